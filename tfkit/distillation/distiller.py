"""``Distiller``: train a student model on its labels and on a frozen teacher's outputs, as Keras 3.

    distiller = Distiller(teacher, student, distillation_losses=LogitsDistillation(temperature=3.0))
    distiller.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    distiller.fit(x, y, epochs=3); trained = distiller.student

The loss is ``student_loss_weight * loss(y, student(x)) + (1 - student_loss_weight) *
sum(weight_i * distillation_loss_i(teacher, student))``; ``fit`` also reports ``student_loss``,
``distillation_loss`` and ``total_loss``. Losses on inner layers (``FeatureDistillation`` with layer
names) read them through models that expose those layers' outputs, built once.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import tree
from tfkit.base import registry
from tfkit.distillation.distillation_loss import (
    DistillationLoss,
    FeatureDistillation,
    LogitsDistillation,
    _loss_function,
)
from tfkit.engine.config_serialization import deserialize_layer, layer_entry
from tfkit.metrics import Mean
from tfkit.models import Sequential
from tfkit.models.model import Model

_LOSSES = {cls.__name__: cls for cls in (FeatureDistillation, LogitsDistillation)}


def _check_shapes(teacher: Any, student: Any, context: str) -> None:
    if len(teacher) != len(student) or any(
        a is not None and b is not None and a != b for a, b in zip(teacher, student)
    ):
        raise ValueError(
            f"Teacher and student {context} shapes are incompatible. Teacher: {tuple(teacher)}, "
            f"Student: {tuple(student)}. All dimensions must match."
        )


def _check_models(teacher: Any, student: Any) -> None:
    for who, model in (("Teacher", teacher), ("Student", student)):
        if not isinstance(model, Model):
            raise ValueError(f"{who} must be a tfkit.Model, got {type(model)}")
    for attribute in ("inputs", "outputs"):
        mine, theirs = getattr(teacher, attribute, None), getattr(student, attribute, None)
        if mine is None or theirs is None:
            continue
        context = attribute[:-1]
        for t, s in zip(tree.flatten(mine), tree.flatten(theirs)):
            _check_shapes(t.shape, s.shape, context)
            if t.dtype != s.dtype:
                raise ValueError(
                    f"Teacher and student {context} dtypes must match. Teacher: {t.dtype.name}, "
                    f"Student: {s.dtype.name}."
                )


def _feature_model(model: Any, layer_names: list[str]) -> Model | None:
    """A model giving ``{"final_output": ..., <layer name>: that layer's output}`` in one pass."""
    if not layer_names:
        return None
    if getattr(model, "inputs", None) is None:
        raise ValueError(
            f"Cannot create feature extractor for {model.name}. The model has no symbolic inputs attribute."
        )
    final = model.layers[-1].output if isinstance(model, Sequential) else model.output
    outputs = {"final_output": final, **{name: model.get_layer(name=name).output for name in layer_names}}
    return Model(inputs=model.inputs, outputs=outputs, name=f"{model.name}_multi_feature_extractor")


@registry.builtin("layers")
class Distiller(Model):
    """A model that trains a student on its labels and on a frozen teacher's outputs (knowledge distillation).

    The distiller's forward pass is the student's. `compile(optimizer, loss, metrics)` takes the
    student's supervised `loss` (required); the training loss is
    `student_loss_weight * loss(y, student(x)) + (1 - student_loss_weight) *
    sum(weight_i * distillation_loss_i(teacher, student))`, and `fit` also reports
    `student_loss`, `distillation_loss` and `total_loss`. The teacher is set non-trainable.
    After training, use `distiller.student`. Losses on inner layers (`FeatureDistillation`
    with layer names) read them through models exposing those layers' outputs, built once.

    Args:
        teacher: The trained `tfkit.Model` to learn from; its inputs and outputs must have the
            student's shapes and dtypes.
        student: The `tfkit.Model` to train.
        distillation_losses: A `DistillationLoss` (e.g. `LogitsDistillation` or
            `FeatureDistillation`) or a list of them.
        distillation_loss_weights: Optional list of weights, one per distillation loss.
            Defaults to `None`, a weight of 1 each.
        student_loss_weight: The weight of the student's supervised loss, in `[0, 1]`; the
            distillation losses get `1 - student_loss_weight`. Defaults to `0.5`.
        name: The name of the model. Defaults to `"distiller"`.
        **kwargs: Base model keyword arguments, such as `trainable` or `dtype`.

    Raises:
        ValueError: If `teacher` or `student` is not a `tfkit.Model` or their shapes or dtypes
            differ, if `distillation_losses` is `None` or holds something other than
            `DistillationLoss` objects, if the number of weights differs from the number of
            losses, if `student_loss_weight` is not a number in `[0, 1]`, or if a loss does not
            fit the models (e.g. a missing layer name).

    Example:
        >>> teacher = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(8, name="t_hidden"),
        ...                             tfkit.layers.Dense(3)])
        >>> student = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(8, name="s_hidden"),
        ...                             tfkit.layers.Dense(3)])
        >>> distiller = tfkit.distillation.Distiller(
        ...     teacher, student,
        ...     distillation_losses=[
        ...         tfkit.distillation.LogitsDistillation(temperature=3.0),
        ...         tfkit.distillation.FeatureDistillation(teacher_layer_name="t_hidden",
        ...                                                student_layer_name="s_hidden")],
        ...     distillation_loss_weights=[1.0, 0.5])
        >>> distiller.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        >>> x, y = np.random.rand(8, 4).astype("float32"), np.arange(8) % 3
        >>> history = distiller.fit(x, y, epochs=1, verbose=0)
        >>> sorted(history.history)
        ['distillation_loss', 'loss', 'student_loss', 'total_loss']
        >>> teacher.trainable, distiller(x).shape
        (False, TensorShape([8, 3]))
    """

    def __init__(
        self,
        teacher: Model,
        student: Model,
        distillation_losses: Any,
        distillation_loss_weights: list[float] | None = None,
        student_loss_weight: float = 0.5,
        name: str = "distiller",
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        _check_models(teacher, student)
        self.teacher, self.student = teacher, student
        if isinstance(student_loss_weight, bool) or not isinstance(student_loss_weight, (int, float)):
            raise ValueError(f"student_loss_weight must be a number, got {type(student_loss_weight)}")
        if not 0.0 <= student_loss_weight <= 1.0:
            raise ValueError(f"student_loss_weight must be between 0.0 and 1.0, got {student_loss_weight}")
        self.student_loss_weight = student_loss_weight
        if distillation_losses is None:
            raise ValueError(
                "'distillation_losses' cannot be `None`. Provide a distillation loss (e.g., "
                "LogitsDistillation or FeatureDistillation) or a list of distillation losses."
            )
        if not isinstance(distillation_losses, (list, tuple)):
            distillation_losses, distillation_loss_weights = [distillation_losses], [1.0]
        elif distillation_loss_weights is None:
            distillation_loss_weights = [1.0] * len(distillation_losses)
        elif len(distillation_loss_weights) != len(distillation_losses):
            raise ValueError(
                f"Number of distillation_loss_weights ({len(distillation_loss_weights)}) must match "
                f"number of distillation_losses ({len(distillation_losses)})"
            )
        for loss in distillation_losses:
            if not isinstance(loss, DistillationLoss):
                raise ValueError(
                    f"distillation_losses must be tfkit.distillation.DistillationLoss objects, got {loss!r}"
                )
            loss.validate_model_compatibility(teacher, student)
        self._tfkit_losses = list(distillation_losses)  # plain objects: never tracked as layers
        self.distillation_loss_weights = list(distillation_loss_weights)
        teacher_names = list(
            dict.fromkeys(l.teacher_layer_name for l in self._tfkit_losses if getattr(l, "teacher_layer_name", None))
        )
        student_names = list(
            dict.fromkeys(l.student_layer_name for l in self._tfkit_losses if getattr(l, "student_layer_name", None))
        )
        self._teacher_features = _feature_model(teacher, teacher_names)
        self._student_features = _feature_model(student, student_names)
        self.teacher.trainable = False
        self.student_loss_tracker = Mean(name="student_loss")
        self.distillation_loss_tracker = Mean(name="distillation_loss")
        self.total_loss_tracker = Mean(name="total_loss")
        self._tfkit_student_loss = None

    @property
    def distillation_losses(self) -> list[DistillationLoss]:
        return list(self._tfkit_losses)

    def compile(self, optimizer: Any = "adam", loss: Any = None, metrics: Any = None, **kwargs: Any) -> None:
        """``loss`` is the student's supervised loss (required); the distillation losses come from the constructor."""
        if loss is None:
            raise ValueError("'loss' cannot be `None`.")
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(f"metrics must be a list or tuple, got {type(metrics)}")
        self._tfkit_student_loss = tree.map_structure(_loss_function, loss)
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)

    def call(self, inputs: Any, training: Any = None) -> Any:
        return self.student(inputs, training=training)

    def _features(self, extractor: Model | None, model: Model, x: Any, training: bool, y_pred: Any) -> dict:
        if extractor is not None:
            return extractor(x, training=training)
        return {"final_output": model(x, training=False) if y_pred is None else y_pred}

    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None, training: bool = True
    ) -> tf.Tensor:
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss = tf.constant(0.0)
        if self.student_loss_weight > 0.0 and y is not None:
            values = tree.flatten(
                tree.map_structure(lambda fn, target, out: fn(target, out), self._tfkit_student_loss, y, y_pred)
            )
            student_loss = tf.reduce_mean(tf.add_n([tf.cast(v, tf.float32) for v in values]))
        distillation = tf.constant(0.0)
        if self.student_loss_weight < 1.0:
            teacher = self._features(self._teacher_features, self.teacher, x, False, None)
            student = self._features(self._student_features, self.student, x, training, y_pred)
            for loss, weight in zip(self._tfkit_losses, self.distillation_loss_weights):
                t_name = getattr(loss, "teacher_layer_name", None) or "final_output"
                s_name = getattr(loss, "student_layer_name", None) or "final_output"
                t_out = teacher[t_name]
                s_out = student[s_name] if t_name != "final_output" or s_name != "final_output" else y_pred
                loss.validate_outputs(t_out, s_out)
                value = tf.convert_to_tensor(loss.compute_loss(t_out, s_out))
                if value.shape.rank:
                    raise ValueError(
                        f"Distillation loss {type(loss).__name__} returned a non-scalar loss with shape "
                        f"{value.shape}. The compute_loss method must return a scalar tensor."
                    )
                distillation += weight * tf.cast(value, tf.float32)
        total = self.student_loss_weight * student_loss + (1.0 - self.student_loss_weight) * distillation
        self.student_loss_tracker.update_state(student_loss)
        self.distillation_loss_tracker.update_state(distillation)
        self.total_loss_tracker.update_state(total)
        return total

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "teacher": layer_entry(self.teacher),
            "student": layer_entry(self.student),
            "distillation_losses": [
                {"class_name": type(loss).__name__, "config": loss.get_config()} for loss in self._tfkit_losses
            ],
            "distillation_loss_weights": self.distillation_loss_weights,
            "student_loss_weight": self.student_loss_weight,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> "Distiller":
        config = dict(config)
        config["teacher"] = deserialize_layer(config["teacher"], custom_objects)
        config["student"] = deserialize_layer(config["student"], custom_objects)
        rebuilt = []
        for entry in config.get("distillation_losses", []):
            name = entry.get("class_name") if isinstance(entry, dict) else None
            loss_class = _LOSSES.get(name) or registry.registered_object(str(name), custom_objects)
            if loss_class is None:
                raise ValueError(f"Unknown distillation loss {name!r}: pass custom_objects={{{name!r}: ...}}")
            rebuilt.append(loss_class.from_config(entry.get("config") or {}))
        config["distillation_losses"] = rebuilt
        return cls(**config)
