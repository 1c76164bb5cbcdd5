"""``Task``: a backbone with a head, a preprocessor and a default ``compile``, KerasHub's ``keras_hub.models.Task``.

causal_lm = tfkit.hub.models.CausalLM.from_preset("./gpt2_tiny")   # GPT2CausalLM, weights loaded
causal_lm.fit(["some text", "more text"], batch_size=2)            # raw strings: preprocessed in tf.data
causal_lm.save_to_preset("./my_gpt2")                               # KerasHub loads it too
classifier.save_task_weights("head.weights.h5")                     # the head alone (task.weights.h5)
"""

from __future__ import annotations

import os
from typing import Any

from tfkit.hub.models.pipeline import PreprocessingPipeline
from tfkit.hub.presets import files, loader, saver, task_weights
from tfkit.hub.presets.preset_loader import get_preset_loader
from tfkit.hub.presets.refusals import refuses_bad_presets
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
        """Whether the task holds weights its backbone does not (a classification head).

        Returns:
            `True` when `save_task_weights` has something to write.
        """
        return task_weights.has_task_weights(self)

    def save_task_weights(self, filepath: str) -> None:
        """Saves the task's own weights (its head, not the backbone) to a `.weights.h5` file, as KerasHub does.

        The file has Keras 3's weights layout of the whole task with the
        backbone's layers left out (KerasHub's `task.weights.h5`), and the
        optimizer's state, as Keras writes it.

        Args:
            filepath: The file to write; its name must end in `.weights.h5`.

        Raises:
            ValueError: If the name does not end in `.weights.h5`, or the task
                has no weights outside its backbone.

        Example:
            >>> import tfkit.hub as keras_hub
            >>> backbone = keras_hub.models.BertBackbone(vocabulary_size=10, num_layers=1, num_heads=2,
            ...     hidden_dim=8, intermediate_dim=16, max_sequence_length=12)
            >>> classifier = keras_hub.models.BertTextClassifier(backbone, num_classes=2)
            >>> classifier.save_task_weights("head.weights.h5")
            >>> fresh = keras_hub.models.BertTextClassifier(backbone, num_classes=2)
            >>> fresh.load_task_weights("head.weights.h5")
            >>> bool(np.array_equal(fresh.output_dense.kernel, classifier.output_dense.kernel))
            True
        """
        task_weights.save_task_weights(self, filepath)

    def load_task_weights(self, filepath: str) -> None:
        """Loads the task's own weights (its head) from a `.weights.h5` file `save_task_weights` (or KerasHub) wrote.

        The backbone is left as it is; every other variable of the task must
        get one array of its shape, or nothing is loaded.

        Args:
            filepath: The file to read; its name must end in `.weights.h5`.

        Raises:
            ValueError: If the name does not end in `.weights.h5`, or the
                file's arrays do not fit the task's head.
        """
        task_weights.load_task_weights(self, filepath)

    @classmethod
    @refuses_bad_presets
    def from_preset(cls, preset: str, load_weights: bool = True, **kwargs: Any) -> "Task":
        """Instantiates a task from a preset: its backbone, preprocessor and, when stored, its task config.

        Called on a task kind (`CausalLM`, `TextClassifier`, ...) it returns
        that kind's class for the preset's family (`GPT2CausalLM`). When the
        preset's `task.json` describes a task of this kind, the task is
        built from it (`num_classes`, the preprocessor's arguments) and its
        own weights (`task.weights.h5`) are loaded, unless `num_classes` is
        passed: the head is then new. Otherwise the task is built around the
        preset's backbone and its preprocessor with default arguments.

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
                no task of this kind, or its files do not fit.
        """
        if cls is Task:
            raise ValueError(
                "Do not call Task.from_preset() directly; call a task kind, such as "
                "tfkit.hub.models.CausalLM.from_preset() or TextClassifier.from_preset()"
            )
        source = get_preset_loader(preset)
        cls = source.matching_class(cls)
        load_task_weights = "num_classes" not in kwargs  # a new number of classes is a new head, as in KerasHub
        dtype = kwargs.pop("dtype", None)
        if "backbone" not in kwargs:
            kwargs["backbone"] = source.load_backbone(cls.backbone_cls, load_weights, dtype=dtype)
        entry = loader.task_entry(source.directory, cls)
        if entry is not None:
            return loader.load_task(source.directory, entry, load_weights and load_task_weights, **kwargs)
        if "preprocessor" not in kwargs and cls.preprocessor_cls is not None:
            kwargs["preprocessor"] = cls.preprocessor_cls.from_preset(source)
        return cls(**kwargs)

    def save_to_preset(self, preset_dir: str, max_shard_size: Any = 10) -> None:
        """Saves the task to a preset folder: `task.json`, its own weights, the backbone and the preprocessor.

        The task's weights outside the backbone (a classification head) go
        to `task.weights.h5`, the backbone's to `model.weights.h5`, as
        KerasHub writes them.

        Args:
            preset_dir: The folder to write (created if missing).
            max_shard_size: KerasHub's shard size in GB; tfkit writes one
                weights file. Defaults to `10`.
        """
        saver.write_serialized(self, preset_dir, files.TASK_CONFIG_FILE)
        if self.has_task_weights():
            self.save_task_weights(os.path.join(preset_dir, files.TASK_WEIGHTS_FILE))
        self.backbone.save_to_preset(preset_dir, max_shard_size=max_shard_size)
        if hasattr(self.preprocessor, "save_to_preset"):
            self.preprocessor.save_to_preset(preset_dir)
        elif self.preprocessor is not None:  # a plain layer (a Pipeline), which KerasHub saves too
            saver.save_plain_preprocessor(self.preprocessor, preset_dir)
