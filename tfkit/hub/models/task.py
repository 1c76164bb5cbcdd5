"""``Task``: a backbone with a head, a preprocessor and a default ``compile``, KerasHub's ``keras_hub.models.Task``.

causal_lm = tfkit.hub.models.CausalLM.from_preset("./gpt2_tiny")   # GPT2CausalLM, weights loaded
causal_lm.fit(["some text", "more text"], batch_size=2)            # raw strings: preprocessed in tf.data
causal_lm.save_to_preset("./my_gpt2")                               # KerasHub loads it too
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.pipeline import PreprocessingPipeline
from tfkit.hub.presets import classes, files, handles, loader, saver
from tfkit.models import Model
from tfkit.saving import deserialize, register_keras_serializable, serialize


@register_keras_serializable(package="keras_hub")
class Task(PreprocessingPipeline, Model):
    """Base class for all task models: a backbone, a task head and a preprocessor.

    A task is a functional `tfkit.Model` over a `Backbone`, with the head of
    its objective (language modeling, classification, ...) and the
    `Preprocessor` that turns raw data into the backbone's inputs, so `fit`,
    `evaluate` and `predict` take raw strings or images. It compiles itself
    with the objective's defaults when built (`compile=True`).

    Args:
        *args: The functional model's arguments, passed by a subclass.
        compile: Whether to compile with the task's defaults on
            construction. The model can be compiled again before training.
            Defaults to `True`.
        **kwargs: `tfkit.Model` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> issubclass(keras_hub.models.Task, tfkit.Model)
        True
    """

    backbone_cls: Any = None
    preprocessor_cls: Any = None

    def __init__(self, *args: Any, compile: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.backbone is not None:
            self.dtype_policy = self.backbone.dtype_policy
        if compile:
            self.compile()

    @property
    def backbone(self) -> Any:
        """The task's `Backbone`."""
        return getattr(self, "_backbone", None)

    @backbone.setter
    def backbone(self, value: Any) -> None:
        self._backbone = value

    @property
    def preprocessor(self) -> Any:
        """The task's `Preprocessor` (applied by `fit`, `evaluate` and `predict`), or `None`."""
        return getattr(self, "_preprocessor", None)

    @preprocessor.setter
    def preprocessor(self, value: Any) -> None:
        self._preprocessor = value

    def get_config(self) -> dict[str, Any]:
        """`{"backbone", "preprocessor", "name"}`: the task's constructor arguments, serialized."""
        return {
            "backbone": serialize(self.backbone),
            "preprocessor": serialize(self.preprocessor) if self.preprocessor is not None else None,
            "name": self.name,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Task":
        """Rebuilds the task, its backbone and its preprocessor from `get_config`'s output."""
        config = dict(config)
        for key in ("backbone", "preprocessor"):
            if isinstance(config.get(key), dict):
                config[key] = deserialize(config[key])
        return cls(**config)

    def has_task_weights(self) -> bool:
        """Whether the task holds weights its backbone does not (a classification head)."""
        backbone_ids = {id(w) for w in self.backbone.weights}
        return any(id(w) not in backbone_ids for w in self.weights)

    @classmethod
    def from_preset(cls, preset: str, load_weights: bool = True, **kwargs: Any) -> "Task":
        """Instantiates a task from a preset: its backbone, preprocessor and, when stored, its task config.

        Called on a task kind (`CausalLM`, `TextClassifier`, ...) it returns
        that kind's class for the preset's family (`GPT2CausalLM`).

        Args:
            preset: A preset folder or an `hf://` / `kaggle://` handle.
            load_weights: Whether to load the preset's weights. Defaults to
                `True`.
            **kwargs: Constructor arguments of the task, such as `num_classes`
                or `preprocessor`; `dtype` goes to the backbone.

        Returns:
            The task.

        Raises:
            ValueError: If called on `Task` itself, or the preset's family has
                no task of this kind.
        """
        if cls is Task:
            raise ValueError(
                "Do not call Task.from_preset() directly; call a task kind, such as "
                "tfkit.hub.models.CausalLM.from_preset() or TextClassifier.from_preset()"
            )
        directory = handles.local_directory(preset)
        backbone_cls = loader.backbone_class(directory)
        cls = classes.matching_subclass(cls, backbone_cls, directory)
        if "backbone" not in kwargs:
            kwargs["backbone"] = loader.load_backbone(
                directory, cls.backbone_cls, load_weights, dtype=kwargs.pop("dtype", None)
            )
        if "preprocessor" not in kwargs and cls.preprocessor_cls is not None:
            kwargs["preprocessor"] = cls.preprocessor_cls.from_preset(directory)
        return cls(**kwargs)

    def save_to_preset(self, preset_dir: str, max_shard_size: Any = 10) -> None:
        """Saves the task to a preset folder: `task.json`, the backbone, the preprocessor and its assets.

        Args:
            preset_dir: The folder to write (created if missing).
            max_shard_size: KerasHub's shard size in GB; tfkit writes one
                weights file. Defaults to `10`.

        Raises:
            ValueError: If the task holds weights of its own (a head), which
                tfkit does not write to a preset yet.
        """
        if self.has_task_weights():
            raise ValueError(
                f"{type(self).__name__} '{self.name}' holds weights outside its backbone (task.weights.h5); "
                f"tfkit.hub does not write those to a preset yet: save the model with model.save(...)"
            )
        saver.write_serialized(self, preset_dir, files.TASK_CONFIG_FILE)
        self.backbone.save_to_preset(preset_dir, max_shard_size=max_shard_size)
        if self.preprocessor is not None:
            self.preprocessor.save_to_preset(preset_dir)
