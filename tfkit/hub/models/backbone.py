"""``Backbone``: the base of every family's network, KerasHub's ``keras_hub.models.Backbone`` on tfkit.

    backbone = tfkit.hub.models.Backbone.from_preset("./gpt2_tiny")     # the preset's class, weights loaded
    backbone.save_to_preset("./copy")                                    # KerasHub loads it too

A backbone is a functional ``tfkit.Model`` that builds its own graph from
its constructor's arguments (``GPT2Backbone(vocabulary_size=..., ...)``), so
its config is those arguments, as in KerasHub. A family declares them once, in
its constructor's signature: ``Backbone`` keeps each as an attribute of the same
name (``backbone.hidden_dim``) and writes them all, defaults included, in
``get_config``, where KerasHub's families write each name three times.
"""

from __future__ import annotations

from typing import Any

from tfkit import dtype_policies
from tfkit.base import registry
from tfkit.engine import config_capture
from tfkit.hub.models.backbone_lora import BackboneLora
from tfkit.hub.presets import classes, saver
from tfkit.hub.presets.preset_loader import get_preset_loader
from tfkit.hub.presets.refusals import refuses_bad_presets
from tfkit.models import Model
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class Backbone(BackboneLora, Model):
    """Base class for all `Backbone` models.

    A backbone is the network of a model family without a task head: it
    outputs the last hidden states. `Task` classes (`CausalLM`,
    `TextClassifier`, ...) wrap one and add a head, preprocessing and a
    default `compile`. Every backbone can be built from a preset
    (`from_preset`) and saved to one (`save_to_preset`) in KerasHub's layout.

    Args:
        *args: The functional model's arguments (inputs and outputs), passed
            by a subclass's constructor.
        dtype: The dtype policy of the backbone's layers (`"float32"`,
            `"bfloat16"`, `"mixed_bfloat16"`, or a `DTypePolicy`). `None` (the
            default) uses the global policy.
        **kwargs: `tfkit.Model` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.Backbone, tfkit.Model)
        True
    """

    # The constructor argument that bounds the positions of a learned position embedding (`generate` refuses a
    # longer sequence by name), or None where positions are unbounded (rotary, relative buckets, ALiBi).
    positions_argument: str | None = None

    def __init__(self, *args: Any, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if dtype is not None:
            self.dtype_policy = dtype_policies.get(dtype)
        for name, value in self._declared_arguments().items():
            setattr(self, name, value)

    def _declared_arguments(self) -> dict[str, Any]:
        """The subclass constructor's arguments by name, as given or defaulted (`dtype` apart)."""
        return config_capture.declared_arguments(type(self), self._st.init_args, stop_at=Backbone, leave_out=("dtype",))

    @property
    def token_embedding(self) -> Any:
        """The layer embedding token ids (a `ReversibleEmbedding` for language models), or `None`."""
        return getattr(self, "_token_embedding", None)

    @token_embedding.setter
    def token_embedding(self, value: Any) -> None:
        self._token_embedding = value

    def get_config(self) -> dict[str, Any]:
        """The backbone's config: `name`, `trainable`, `dtype` and every constructor argument, by its attribute.

        Returns:
            A dict of plain values; a subclass whose arguments are not plain
            (a layer) replaces them with their serialized form.
        """
        config = {"name": self.name, "trainable": self.trainable, "dtype": dtype_policies.serialize(self.dtype_policy)}
        for name in self._declared_arguments():
            config[name] = config_capture.to_plain(getattr(self, name))
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Backbone":
        """Builds the backbone from its constructor arguments (`get_config`'s output)."""
        config = dict(config)
        if isinstance(config.get("dtype"), dict):
            config["dtype"] = dtype_policies.get(config["dtype"])
        return cls(**config)

    @classmethod
    @refuses_bad_presets
    def from_preset(cls, preset: str, load_weights: bool = True, **kwargs: Any) -> "Backbone":
        """Instantiates a backbone from a preset: a KerasHub preset folder or a `hf://`/`kaggle://` handle.

        Called on `Backbone`, it returns the class the preset names; called on
        a family's class, the preset must be of that family.

        Args:
            preset: A preset folder, or an `hf://owner/name` or
                `kaggle://owner/model/keras/variant` handle (downloaded by
                `huggingface_hub` or `kagglehub`).
            load_weights: Whether to load the preset's weights. `False`
                builds the architecture with fresh weights. Defaults to `True`.
            **kwargs: Constructor arguments that replace the preset's, such as
                `dtype`.

        Returns:
            The backbone.

        Raises:
            ValueError: If the preset is not a backbone of this class, names a
                class tfkit.hub does not have, or its weights do not fit.
        """
        return get_preset_loader(preset).load_backbone(cls, load_weights, **kwargs)

    def save_to_preset(self, preset_dir: str, max_shard_size: Any = 10) -> None:
        """Saves the backbone to a preset folder in KerasHub's layout (config, weights, metadata).

        Args:
            preset_dir: The folder to write (created if missing).
            max_shard_size: KerasHub's shard size in GB; tfkit writes one
                weights file, whatever its size. Defaults to `10`.
        """
        saver.save_backbone(self, preset_dir, classes.task_kinds(registry.public_class(type(self)), Model))
