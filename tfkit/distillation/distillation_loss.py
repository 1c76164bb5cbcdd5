"""What a student learns from its teacher: Keras 3's distillation losses.

    LogitsDistillation(temperature=3.0)                        # KL of the softened output distributions
    FeatureDistillation(loss="mse", teacher_layer_name="t_hidden", student_layer_name="s_hidden")
    class MyLoss(DistillationLoss): def compute_loss(self, teacher_outputs, student_outputs, **kwargs): ...

A ``loss`` may be a name, a ``tfkit.losses`` object or function, or a nested structure of them
matching the outputs (``None`` skips an output). **Keras 3.15 bug, fixed here:** with its
default ``loss="kl_divergence"`` (a name, so a function), Keras's ``LogitsDistillation`` applies
the KL divergence to the temperature-scaled *logits* (clipped to [1e-7, 1]) instead of to their
softmax; only a ``KLDivergence()`` object gets the softmax and the ``T**2`` factor. tfkit treats
every spelling of the KL divergence alike, as the Hinton et al. recipe Keras documents.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import losses, tree

_KL_NAMES = ("kl_divergence", "kld", "KLD", "KLDivergence", "kullback_leibler_divergence")


def _loss_function(item: Any) -> Any:
    if item is None:
        return None
    if isinstance(item, str):
        found = losses.loss_object(item)
        if found is None:
            raise ValueError(f"Unknown loss function: '{item}'.")
        return found
    return item


def _is_kl(item: Any) -> bool:
    wrapped = getattr(item, "fn", None)  # a LossFunctionWrapper around the function
    return (
        (isinstance(item, str) and item in _KL_NAMES)
        or item is losses.kl_divergence
        or wrapped is losses.kl_divergence
        or isinstance(item, losses.KLDivergence)
    )


def _serialize(loss: Any) -> Any:
    """A loss, or a list / dict of per-output losses, as plain data."""
    if isinstance(loss, (list, tuple)):
        return [_serialize(item) for item in loss]
    if isinstance(loss, dict):
        return {key: _serialize(item) for key, item in loss.items()}
    return None if loss is None else losses.serialize(loss)


def _deserialize(config: Any) -> Any:
    if isinstance(config, list):
        return [_deserialize(item) for item in config]
    if isinstance(config, dict) and "class_name" not in config:
        return {key: _deserialize(item) for key, item in config.items()}
    return None if config is None else losses.loss_object(config)


def _sum(values: Any) -> tf.Tensor:
    return tf.add_n([tf.cast(v, tf.float32) for v in tree.flatten(values)])


class DistillationLoss:
    """Base class of distillation losses: what a student learns from its teacher.

    Subclasses implement `compute_loss(teacher_outputs, student_outputs, **kwargs)`, which
    returns a scalar tensor. `validate_outputs` checks that the two outputs have the same
    structure, and `validate_model_compatibility(teacher, student)` may raise a `ValueError`
    when the loss cannot compare the two models (the base class checks nothing); `Distiller`
    calls both.

    Example:
        >>> class L1Distillation(tfkit.distillation.DistillationLoss):
        ...     def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        ...         return tf.reduce_mean(tf.abs(teacher_outputs - student_outputs))
        >>> float(L1Distillation().compute_loss(tf.constant([[2.0, 0.0]]), tf.constant([[1.0, 1.0]])))
        1.0
    """

    def compute_loss(self, teacher_outputs: Any, student_outputs: Any, **kwargs: Any) -> tf.Tensor:
        raise NotImplementedError("Subclasses must implement compute_loss")

    def validate_outputs(self, teacher_outputs: Any, student_outputs: Any) -> None:
        tree.assert_same_structure(teacher_outputs, student_outputs)

    def validate_model_compatibility(self, teacher: Any, student: Any) -> None:
        """Raise ``ValueError`` when this loss cannot compare the two models (nothing to check here)."""


class FeatureDistillation(DistillationLoss):
    """Distillation loss that matches a student layer's outputs to a teacher layer's.

    Computes the mean of `loss(teacher_features, student_features)` on the outputs of the named
    layers, or on the models' final outputs when no names are given. The features must have the
    same shape (add a projection layer to the student otherwise). Naming layers needs Functional
    or Sequential models.

    Args:
        loss: The loss comparing the features: a name, a `tfkit.losses` object or function, or a
            nested structure of them matching the outputs (`None` skips an output). Defaults to
            `"mse"`.
        teacher_layer_name: Optional name of the teacher layer whose outputs are matched.
            Defaults to `None`, the final outputs.
        student_layer_name: Optional name of the student layer whose outputs are matched.
            Defaults to `None`, the final outputs.

    Raises:
        ValueError: If `loss` holds no loss but `None`, or names an unknown loss. `Distiller`
            also raises one when a named layer is missing or a model is subclassed.

    Example:
        >>> loss = tfkit.distillation.FeatureDistillation(loss="mse")
        >>> float(loss.compute_loss(tf.constant([[2.0, 0.0, -1.0]]), tf.constant([[1.0, 1.0, 0.0]])))
        1.0
    """

    def __init__(
        self, loss: Any = "mse", teacher_layer_name: str | None = None, student_layer_name: str | None = None
    ) -> None:
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self._loss_argument = loss
        self.loss = tree.map_structure(_loss_function, loss)
        if all(item is None for item in tree.flatten(self.loss)):
            raise ValueError("The `loss` argument in `FeatureDistillation` must contain at least one non-`None` value.")

    def validate_model_compatibility(self, teacher: Any, student: Any) -> None:
        named = {"teacher": (teacher, self.teacher_layer_name), "student": (student, self.student_layer_name)}
        if self.teacher_layer_name is not None or self.student_layer_name is not None:
            subclassed = [who for who, (model, _) in named.items() if getattr(model, "inputs", None) is None]
            if subclassed:
                raise ValueError(
                    f"FeatureDistillation with specific layer names requires Functional or Sequential "
                    f"models. The {' and '.join(subclassed)} model(s) appear to be subclassed (no "
                    "symbolic inputs/outputs). Either use Functional/Sequential models, or use "
                    "FeatureDistillation without layer names (to distill final outputs only), or use "
                    "LogitsDistillation instead."
                )
        for who, (model, name) in named.items():
            if name is not None:
                try:
                    model.get_layer(name=name)
                except ValueError as error:
                    raise ValueError(f"In {who} model: {error}") from None

    def validate_outputs(self, teacher_outputs: Any, student_outputs: Any) -> None:
        super().validate_outputs(teacher_outputs, student_outputs)
        try:
            tree.assert_same_structure(self.loss, teacher_outputs)
        except ValueError as error:
            raise ValueError(
                f"Loss structure mismatch. Loss structure: {self.loss!r}, Output structure: "
                f"{tree.map_structure(lambda _: '*', teacher_outputs)!r}. Error: {error}"
            ) from None

    def compute_loss(self, teacher_outputs: Any, student_outputs: Any, **kwargs: Any) -> tf.Tensor:
        def apply(loss_fn: Any, teacher: Any, student: Any) -> Any:
            return 0.0 if loss_fn is None else tf.reduce_mean(loss_fn(teacher, student))

        return _sum(tree.map_structure(apply, self.loss, teacher_outputs, student_outputs))

    def get_config(self) -> dict[str, Any]:
        return {
            "loss": _serialize(self.loss),
            "teacher_layer_name": self.teacher_layer_name,
            "student_layer_name": self.student_layer_name,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "FeatureDistillation":
        config = dict(config)
        config["loss"] = _deserialize(config.get("loss", "mse"))
        return cls(**config)


class LogitsDistillation(DistillationLoss):
    """Distillation loss on the logits softened by a temperature (Hinton et al.'s soft targets).

    With the KL divergence (any spelling: `"kl_divergence"`, `"kld"`, `tfkit.losses.KLDivergence()`,
    ...), the loss is `kl(softmax(teacher / T), softmax(student / T)) * T**2`; with any other
    loss, `loss(teacher / T, student / T)`; each is averaged. The outputs must be logits.
    Keras 3.15 bug, fixed here: with its default `loss="kl_divergence"` (a name, so a function),
    Keras's `LogitsDistillation` applies the KL divergence to the temperature-scaled logits
    (clipped to `[1e-7, 1]`) instead of to their softmax; only a `KLDivergence()` object gets
    the softmax and the `T**2` factor. tfkit treats every spelling of the KL divergence alike,
    as the recipe Keras documents.

    Args:
        temperature: The temperature `T` softening both distributions, a positive number.
            Defaults to `3.0`.
        loss: The loss comparing the softened outputs: a name, a `tfkit.losses` object or
            function, or a nested structure of them matching the outputs (`None` skips an
            output). Defaults to `"kl_divergence"`.

    Raises:
        ValueError: If `temperature` is not a positive number, or `loss` holds no loss but
            `None`.

    Example:
        >>> loss = tfkit.distillation.LogitsDistillation(temperature=2.0)
        >>> teacher_logits = tf.constant([[2.0, 0.0, -1.0]])
        >>> student_logits = tf.constant([[1.0, 1.0, 0.0]])
        >>> round(float(loss.compute_loss(teacher_logits, student_logits)), 4)
        0.4887
    """

    def __init__(self, temperature: float = 3.0, loss: Any = "kl_divergence") -> None:
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise ValueError(f"temperature must be a number, got {type(temperature)}")
        if temperature <= 0.0:
            raise ValueError("temperature must be positive.")
        self.temperature = temperature
        self._kl = tree.map_structure(_is_kl, loss)
        self.loss = tree.map_structure(_loss_function, loss)
        if all(item is None for item in tree.flatten(self.loss)):
            raise ValueError("At least one loss must be non-`None`.")

    def compute_loss(self, teacher_outputs: Any, student_outputs: Any, **kwargs: Any) -> tf.Tensor:
        temperature = float(self.temperature)

        def apply(loss_fn: Any, is_kl: bool, teacher: Any, student: Any) -> Any:
            if loss_fn is None:
                return 0.0
            teacher, student = tf.convert_to_tensor(teacher) / temperature, tf.convert_to_tensor(student) / temperature
            if is_kl:
                value = tf.reduce_mean(loss_fn(tf.nn.softmax(teacher, -1), tf.nn.softmax(student, -1)))
                return value * temperature**2
            return tf.reduce_mean(loss_fn(teacher, student))

        return _sum(tree.map_structure(apply, self.loss, self._kl, teacher_outputs, student_outputs))

    def get_config(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "loss": _serialize(self.loss)}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "LogitsDistillation":
        config = dict(config)
        config["loss"] = _deserialize(config.get("loss", "kl_divergence"))
        return cls(**config)
