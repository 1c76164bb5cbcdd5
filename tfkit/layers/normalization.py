"""Normalization layers: ``BatchNormalization``, ``LayerNormalization``, ``GroupNormalization``.

    bn = tfkit.layers.BatchNormalization()
    y = bn(x, training=True)    # normalizes with the batch's statistics, updates the moving ones
    y = bn(x)                   # inference: normalizes with moving_mean / moving_variance

Each layer computes ``(x - mean) / sqrt(variance + epsilon) * gamma + beta``;
they differ in the axes the mean and variance are taken over.
"""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from tfkit import constraints, initializers, regularizers
from tfkit.base import registry
from tfkit.engine.input_spec import InputSpec
from tfkit.engine.layer import Layer
from tfkit.layers import batch_renorm
from tfkit.layers.core import base_config
from tfkit.layers.regularization import in_training

__all__ = ["BatchNormalization", "LayerNormalization", "GroupNormalization"]

_MASK_EPSILON = 1e-7  # keeps a fully masked batch finite, as Keras does


def _check_axis_int(axis: Any, who: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise ValueError(f"{who} expected axis to be an int, got {axis!r}")
    return int(axis)


def _positive_axis(axis: int, input_shape: Sequence, who: str) -> int:
    rank = len(input_shape)
    if not -rank <= axis < rank:
        raise ValueError(f"{who}: axis {axis} is out of range for input shape {tuple(input_shape)}")
    axis %= rank
    if axis == 0:
        raise ValueError(
            f"{who}: axis 0 is the batch axis and cannot be normalized over; got input shape {tuple(input_shape)}"
        )
    if input_shape[axis] is None:
        raise ValueError(
            f"{who}: axis {axis} of the input must have a known size, got input shape {tuple(input_shape)}"
        )
    return axis


def _check_epsilon(epsilon: Any, who: str) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or epsilon <= 0:
        raise ValueError(f"{who} expected epsilon to be a positive number, got {epsilon!r}")
    return float(epsilon)


class _AffineNormalization(Layer):
    """Shared constructor, weights (``gamma``/``beta``) and config of the normalization layers."""

    def __init__(
        self,
        epsilon: float,
        center: bool,
        scale: bool,
        beta_initializer: Any,
        gamma_initializer: Any,
        beta_regularizer: Any,
        gamma_regularizer: Any,
        beta_constraint: Any,
        gamma_constraint: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.epsilon = _check_epsilon(epsilon, f"{type(self).__name__} layer '{self.name}'")
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def _add_affine_weights(self, shape: tuple) -> None:
        self.gamma = (
            self.add_weight(
                shape=shape,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                name="gamma",
            )
            if self.scale
            else None
        )
        self.beta = (
            self.add_weight(
                shape=shape,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                name="beta",
            )
            if self.center
            else None
        )

    def _normalize(
        self, inputs: tf.Tensor, mean: tf.Tensor, variance: tf.Tensor, param_shape: Sequence[int]
    ) -> tf.Tensor:
        """``(x - mean) * rsqrt(variance + eps) * gamma + beta`` with gamma/beta reshaped to ``param_shape``."""
        inv = tf.math.rsqrt(variance + tf.cast(self.epsilon, variance.dtype))
        if self.gamma is not None:
            inv = inv * tf.reshape(tf.cast(self.gamma, inputs.dtype), param_shape)
        offset = -mean * inv
        if self.beta is not None:
            offset = offset + tf.reshape(tf.cast(self.beta, inputs.dtype), param_shape)
        return inputs * inv + offset

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        return input_shape

    def _affine_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(
            epsilon=self.epsilon,
            center=self.center,
            scale=self.scale,
            beta_initializer=initializers.serialize(self.beta_initializer),
            gamma_initializer=initializers.serialize(self.gamma_initializer),
            beta_regularizer=regularizers.serialize(self.beta_regularizer),
            gamma_regularizer=regularizers.serialize(self.gamma_regularizer),
            beta_constraint=constraints.serialize(self.beta_constraint),
            gamma_constraint=constraints.serialize(self.gamma_constraint),
        )
        return config


# -------------------------------------------------------- BatchNormalization


@registry.builtin("layers")
class BatchNormalization(_AffineNormalization):
    """Layer that normalizes its inputs with batch statistics.

    Batch normalization keeps each feature (along `axis`) close to mean 0 and
    standard deviation 1, computing `gamma * (x - mean) / sqrt(var + epsilon)
    + beta` with the mean and variance taken over the batch and every axis
    but `axis`.

    It behaves differently in training and inference:

    - During training (`training=True`, and the layer `trainable`), it uses
      the current batch's mean and variance, and updates the moving
      statistics: `moving = moving * momentum + batch * (1 - momentum)`.
    - During inference (the default), and whenever the layer is frozen
      (`trainable=False`, as in Keras 3), it uses `moving_mean` and
      `moving_variance`.

    With a mask (`(batch, steps)` for `(batch, steps, features)` inputs), only
    unmasked positions count towards the batch statistics. float16 and
    bfloat16 inputs are normalized in float32 and cast back.

    Args:
        axis: Integer, the axis that should be normalized (typically the
            features axis). For instance, after a `Conv2D` layer with
            `data_format="channels_first"`, use `axis=1`. Defaults to `-1`.
        momentum: Float in `[0, 1]`, the momentum for the moving average.
            Defaults to `0.99`.
        epsilon: Small positive float added to the variance to avoid dividing
            by zero. Defaults to `1e-3`.
        center: If `True`, add a learned offset `beta` to the normalized
            tensor. If `False`, `beta` is not used. Defaults to `True`.
        scale: If `True`, multiply by a learned `gamma`. If `False`, `gamma`
            is not used (fine when the next layer is linear, as the scaling
            can be done by it). Defaults to `True`.
        beta_initializer: Initializer for the beta weight. Defaults to
            `"zeros"`.
        gamma_initializer: Initializer for the gamma weight. Defaults to
            `"ones"`.
        moving_mean_initializer: Initializer for the moving mean. Defaults to
            `"zeros"`.
        moving_variance_initializer: Initializer for the moving variance.
            Defaults to `"ones"`.
        beta_regularizer: Optional regularizer for the beta weight.
            Defaults to `None`.
        gamma_regularizer: Optional regularizer for the gamma weight.
            Defaults to `None`.
        beta_constraint: Optional constraint for the beta weight. Defaults to
            `None`.
        gamma_constraint: Optional constraint for the gamma weight. Defaults
            to `None`.
        synchronized: If `True`, the batch statistics are averaged over the
            replicas of the current `tf.distribute` strategy at each training
            step (synchronized batch normalization). Has no effect outside a
            multi-replica strategy. Defaults to `False`.
        renorm: Whether to use batch renormalization (Ioffe, 2017): while
            training, the normalized values are corrected towards the
            renormalization statistics by factors `r` and `d` (without
            gradient), and the extra non-trainable weights `moving_stddev`,
            `renorm_mean` and `renorm_stddev` are created. Defaults to
            `False`.
        renorm_clipping: Optional dict (only used with `renorm`) mapping the
            keys `"rmax"`, `"rmin"` and `"dmax"` to scalars that clip the
            correction: `r` to `[rmin, rmax]` and `d` to `[-dmax, dmax]`. A
            missing key leaves that bound off. Defaults to `None`.
        renorm_momentum: Float, the momentum of the renormalization moving
            statistics (only used with `renorm`). Defaults to `0.99`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of any rank of at least 2.
        training: Python boolean or boolean tensor: whether the layer should
            behave in training mode (normalize with the batch statistics and
            update the moving ones) or in inference mode. Defaults to `None`
            (inference, unless set by the caller, e.g. `fit`).
        mask: Optional boolean tensor whose shape is a prefix of the inputs'
            (e.g. `(batch, steps)`): only `True` positions count towards the
            batch statistics.

    Input shape:
        Arbitrary. `axis` must have a known size.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `axis` is not an int, or is the batch axis, out of
            range or of unknown size (at build time); if `momentum` is not in
            `[0, 1]`; if `epsilon` is not a positive number; or if
            `renorm_clipping` has unknown keys, `rmax < rmin` or a negative
            `dmax`.

    Example:
        >>> layer = tfkit.layers.BatchNormalization()
        >>> x = np.array([[1.0, 10.0], [3.0, 30.0]], dtype="float32")
        >>> np.round(layer(x, training=True).numpy(), 4)
        array([[-0.9995, -1.    ],
               [ 0.9995,  1.    ]], dtype=float32)
        >>> np.round(layer.moving_mean.numpy(), 4)
        array([0.02, 0.2 ], dtype=float32)
        >>> layer(x).shape  # inference: uses the moving statistics
        TensorShape([2, 2])
    """

    def __init__(
        self,
        axis: int = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        moving_mean_initializer: Any = "zeros",
        moving_variance_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        synchronized: bool = False,
        renorm: bool = False,
        renorm_clipping: dict[str, float] | None = None,
        renorm_momentum: float = 0.99,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            epsilon,
            center,
            scale,
            beta_initializer,
            gamma_initializer,
            beta_regularizer,
            gamma_regularizer,
            beta_constraint,
            gamma_constraint,
            **kwargs,
        )
        who = f"BatchNormalization layer '{self.name}'"
        self.renorm, self.renorm_momentum = bool(renorm), float(renorm_momentum)
        self.renorm_clipping = batch_renorm.checked_clipping(self.renorm, renorm_clipping, who)
        self.axis = _check_axis_int(axis, who)
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:
            raise ValueError(f"{who} expected momentum to be a number in [0, 1], got {momentum!r}")
        self.momentum = float(momentum)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.synchronized = bool(synchronized)

    def build(self, input_shape: tuple) -> None:
        axis = _positive_axis(self.axis, input_shape, f"BatchNormalization layer '{self.name}'")
        shape = (input_shape[axis],)
        self._tfkit_axis = axis
        self._tfkit_reduction_axes = [i for i in range(len(input_shape)) if i != axis]
        self._add_affine_weights(shape)
        self.moving_mean = self.add_weight(
            shape=shape, initializer=self.moving_mean_initializer, trainable=False, name="moving_mean", autocast=False
        )
        self.moving_variance = self.add_weight(
            shape=shape,
            initializer=self.moving_variance_initializer,
            trainable=False,
            name="moving_variance",
            autocast=False,
        )
        if self.renorm:
            batch_renorm.add_weights(self, shape)
        self.input_spec = InputSpec(ndim=len(input_shape), axes={axis: input_shape[axis]})
        self.built = True  # also when build() is called directly, as in Keras

    def _param_shape(self, rank: int) -> list[int]:
        shape = [1] * rank
        shape[self._tfkit_axis] = -1
        return shape

    def _moments(self, inputs: tf.Tensor, mask: Any) -> tuple[tf.Tensor, tf.Tensor]:
        """Batch mean and (biased) variance per feature, over unmasked positions only."""
        axes = self._tfkit_reduction_axes
        replica = tf.distribute.get_replica_context()
        sync = self.synchronized and replica is not None and replica.num_replicas_in_sync > 1
        if mask is None and not sync:
            mean, variance = tf.nn.moments(inputs, axes=axes)
            return mean, variance
        if mask is None:
            weights = tf.ones_like(inputs)
        else:
            weights = tf.cast(mask, inputs.dtype)
            for _ in range(inputs.shape.rank - weights.shape.rank):
                weights = tf.expand_dims(weights, -1)
            weights = tf.broadcast_to(weights, tf.shape(inputs))
        total = tf.reduce_sum(weights, axis=axes)
        weighted_sum = tf.reduce_sum(weights * inputs, axis=axes)
        if sync:
            total, weighted_sum = replica.all_reduce(tf.distribute.ReduceOp.SUM, [total, weighted_sum])
        mean = weighted_sum / (total + _MASK_EPSILON)
        centered = inputs - tf.reshape(mean, self._param_shape(inputs.shape.rank))
        squares = tf.reduce_sum(weights * tf.square(centered), axis=axes)
        if sync:
            squares = replica.all_reduce(tf.distribute.ReduceOp.SUM, squares)
        return mean, squares / (total + _MASK_EPSILON)

    def call(self, inputs: tf.Tensor, training: Any = None, mask: Any = None) -> tf.Tensor:
        if inputs.dtype in (tf.float16, tf.bfloat16):  # mixed precision: statistics in float32, as in Keras
            return tf.cast(self._normalize_batch(tf.cast(inputs, tf.float32), training, mask), inputs.dtype)
        return self._normalize_batch(inputs, training, mask)

    def _normalize_batch(self, inputs: tf.Tensor, training: Any, mask: Any) -> tf.Tensor:
        param_shape = self._param_shape(inputs.shape.rank)

        def with_batch_statistics() -> tf.Tensor:
            mean, variance = self._moments(inputs, mask)
            if self.renorm:
                return batch_renorm.normalize_training(self, inputs, mean, variance, param_shape)
            momentum = tf.cast(self.momentum, self.moving_mean.dtype)
            self.moving_mean.assign(self.moving_mean * momentum + tf.cast(mean, momentum.dtype) * (1 - momentum))
            self.moving_variance.assign(
                self.moving_variance * momentum + tf.cast(variance, momentum.dtype) * (1 - momentum)
            )
            return self._normalize(
                inputs, tf.reshape(mean, param_shape), tf.reshape(variance, param_shape), param_shape
            )

        def with_moving_statistics() -> tf.Tensor:
            mean = tf.reshape(tf.cast(self.moving_mean, inputs.dtype), param_shape)
            variance = tf.reshape(tf.cast(self.moving_variance, inputs.dtype), param_shape)
            return self._normalize(inputs, mean, variance, param_shape)

        if not self.trainable:  # a frozen layer always runs in inference mode, as in Keras
            return with_moving_statistics()
        return in_training(training, with_batch_statistics, with_moving_statistics)

    def get_config(self) -> dict[str, Any]:
        config = self._affine_config()
        config.update(
            axis=self.axis,
            momentum=self.momentum,
            moving_mean_initializer=initializers.serialize(self.moving_mean_initializer),
            moving_variance_initializer=initializers.serialize(self.moving_variance_initializer),
            synchronized=self.synchronized,
            renorm=self.renorm,
            renorm_clipping=self.renorm_clipping,
            renorm_momentum=self.renorm_momentum,
        )
        return config


# -------------------------------------------------------- LayerNormalization


@registry.builtin("layers")
class LayerNormalization(_AffineNormalization):
    """Layer normalization layer (Ba et al., 2016).

    Normalizes the activations of each sample independently (not across the
    batch like `BatchNormalization`): the mean and variance are taken over
    `axis` for each sample, then `gamma * (x - mean) / sqrt(var + epsilon) +
    beta` is returned. `gamma` and `beta` have the shape of the normalized
    axes. It behaves the same in training and inference. float16 and
    bfloat16 inputs are normalized in float32 and cast back.

    Args:
        axis: Integer or list of integers, the axis or axes to normalize
            across (typically the features axis). Defaults to `-1`, the last
            axis.
        epsilon: Small positive float added to the variance to avoid dividing
            by zero. Defaults to `1e-3`.
        center: If `True`, add a learned offset `beta` to the normalized
            tensor. If `False`, `beta` is not used. Defaults to `True`.
        scale: If `True`, multiply by a learned `gamma`. If `False`, `gamma`
            is not used (fine when the next layer is linear, as the scaling
            can be done by it). Defaults to `True`.
        beta_initializer: Initializer for the beta weight. Defaults to
            `"zeros"`.
        gamma_initializer: Initializer for the gamma weight. Defaults to
            `"ones"`.
        beta_regularizer: Optional regularizer for the beta weight.
            Defaults to `None`.
        gamma_regularizer: Optional regularizer for the gamma weight.
            Defaults to `None`.
        beta_constraint: Optional constraint for the beta weight. Defaults to
            `None`.
        gamma_constraint: Optional constraint for the gamma weight. Defaults
            to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 2 or more.

    Input shape:
        Arbitrary. Every axis in `axis` must have a known size.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `axis` is empty or holds a non-int, or (at build time)
            names the batch axis, an axis out of range, an axis of unknown size,
            or the same axis twice; if `epsilon` is not a positive number.

    Example:
        >>> layer = tfkit.layers.LayerNormalization()
        >>> x = np.array([[1.0, 2.0, 3.0], [10.0, 10.0, 40.0]], dtype="float32")
        >>> np.round(layer(x).numpy(), 3)
        array([[-1.224,  0.   ,  1.224],
               [-0.707, -0.707,  1.414]], dtype=float32)
        >>> layer.gamma.shape
        TensorShape([3])
    """

    def __init__(
        self,
        axis: int | Sequence[int] = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            epsilon,
            center,
            scale,
            beta_initializer,
            gamma_initializer,
            beta_regularizer,
            gamma_regularizer,
            beta_constraint,
            gamma_constraint,
            **kwargs,
        )
        who = f"LayerNormalization layer '{self.name}'"
        if isinstance(axis, (list, tuple)):
            if not axis:
                raise ValueError(f"{who} expected at least one axis, got {axis!r}")
            self.axis = [_check_axis_int(a, who) for a in axis]
        else:
            self.axis = _check_axis_int(axis, who)

    def build(self, input_shape: tuple) -> None:
        who = f"LayerNormalization layer '{self.name}'"
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        positive = sorted({_positive_axis(a, input_shape, who) for a in axes})
        if len(positive) != len(axes):
            raise ValueError(f"{who}: axis {self.axis} names the same axis twice for input shape {tuple(input_shape)}")
        self._tfkit_axes = positive
        self._add_affine_weights(tuple(input_shape[a] for a in positive))
        self.input_spec = InputSpec(ndim=len(input_shape), axes={a: input_shape[a] for a in positive})
        self.built = True  # also when build() is called directly, as in Keras

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        if inputs.dtype in (tf.float16, tf.bfloat16):  # mixed precision: statistics in float32, as in Keras
            return tf.cast(self.call(tf.cast(inputs, tf.float32)), inputs.dtype)
        axes = self._tfkit_axes
        param_shape = [1] * inputs.shape.rank
        for a in axes:
            param_shape[a] = inputs.shape[a]
        mean, variance = tf.nn.moments(inputs, axes=axes, keepdims=True)
        return self._normalize(inputs, mean, variance, param_shape)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        for a in axes:
            if not -len(input_shape) <= a < len(input_shape):
                raise ValueError(
                    f"LayerNormalization layer '{self.name}': axis {a} is out of range for input shape {input_shape}"
                )
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = self._affine_config()
        config["axis"] = list(self.axis) if isinstance(self.axis, list) else self.axis
        return config


# -------------------------------------------------------- GroupNormalization


@registry.builtin("layers")
class GroupNormalization(_AffineNormalization):
    """Group normalization layer (Wu and He, 2018).

    Splits the channels (along `axis`) into `groups` groups of equal size and
    normalizes each group of each sample with its own mean and variance
    (taken over the group's channels and every other non-batch axis). It is
    independent of the batch size, so it behaves the same in training and
    inference. `groups=-1` gives one group per channel (instance
    normalization); `groups=1` normalizes over all channels and positions
    together (close to layer normalization). `gamma` and `beta` have one value
    per channel.

    Args:
        groups: Integer, the number of groups. It must divide the number of
            channels and not exceed it; `-1` means one group per channel.
            Defaults to `32`.
        axis: Integer, the channels axis. Defaults to `-1`.
        epsilon: Small positive float added to the variance to avoid dividing
            by zero. Defaults to `1e-3`.
        center: If `True`, add a learned offset `beta` to the normalized
            tensor. If `False`, `beta` is not used. Defaults to `True`.
        scale: If `True`, multiply by a learned `gamma`. If `False`, `gamma`
            is not used (fine when the next layer is linear, as the scaling
            can be done by it). Defaults to `True`.
        beta_initializer: Initializer for the beta weight. Defaults to
            `"zeros"`.
        gamma_initializer: Initializer for the gamma weight. Defaults to
            `"ones"`.
        beta_regularizer: Optional regularizer for the beta weight.
            Defaults to `None`.
        gamma_regularizer: Optional regularizer for the gamma weight.
            Defaults to `None`.
        beta_constraint: Optional constraint for the beta weight. Defaults to
            `None`.
        gamma_constraint: Optional constraint for the gamma weight. Defaults
            to `None`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: A tensor of rank 2 or more.

    Input shape:
        Arbitrary. The `axis` axis must have a known size.

    Output shape:
        Same shape as the input.

    Raises:
        ValueError: If `groups` is not a positive int or `-1`, `axis` is not
            an int, or `epsilon` not a positive number; at build time, if
            `axis` is the batch axis, out of range or of unknown size, or the
            number of channels is below or not a multiple of `groups`.

    Example:
        >>> layer = tfkit.layers.GroupNormalization(groups=2)
        >>> x = np.array([[1.0, 3.0, 10.0, 30.0]], dtype="float32")
        >>> np.round(layer(x).numpy(), 4)
        array([[-0.9995,  0.9995, -1.    ,  1.    ]], dtype=float32)
    """

    def __init__(
        self,
        groups: int = 32,
        axis: int = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            epsilon,
            center,
            scale,
            beta_initializer,
            gamma_initializer,
            beta_regularizer,
            gamma_regularizer,
            beta_constraint,
            gamma_constraint,
            **kwargs,
        )
        who = f"GroupNormalization layer '{self.name}'"
        if isinstance(groups, bool) or not isinstance(groups, int) or (groups <= 0 and groups != -1):
            raise ValueError(
                f"{who} expected groups to be a positive int (or -1 for one group per channel), got {groups!r}"
            )
        self.groups = int(groups)
        self.axis = _check_axis_int(axis, who)

    def build(self, input_shape: tuple) -> None:
        who = f"GroupNormalization layer '{self.name}'"
        axis = _positive_axis(self.axis, input_shape, who)
        channels = input_shape[axis]
        groups = channels if self.groups == -1 else self.groups
        if groups > channels:
            raise ValueError(
                f"{who}: groups ({groups}) cannot exceed the number of channels ({channels}) "
                f"on axis {self.axis} of input shape {tuple(input_shape)}"
            )
        if channels % groups:
            raise ValueError(
                f"{who}: the number of channels ({channels}) on axis {self.axis} must be a multiple "
                f"of groups ({groups}); got input shape {tuple(input_shape)}"
            )
        self._tfkit_axis = axis
        self._tfkit_groups = groups
        self._add_affine_weights((channels,))
        self.input_spec = InputSpec(ndim=len(input_shape), axes={axis: channels})
        self.built = True  # also when build() is called directly, as in Keras

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        axis, groups = self._tfkit_axis, self._tfkit_groups
        rank = inputs.shape.rank
        dynamic = tf.shape(inputs)
        dims = [inputs.shape[i] if inputs.shape[i] is not None else dynamic[i] for i in range(rank)]
        per_group = inputs.shape[axis] // groups
        grouped_shape = [*dims[:axis], groups, per_group, *dims[axis + 1 :]]
        grouped = tf.reshape(inputs, tf.stack(grouped_shape) if any(tf.is_tensor(d) for d in dims) else grouped_shape)
        reduce_axes = [i for i in range(1, rank + 1) if i != axis]
        mean, variance = tf.nn.moments(grouped, axes=reduce_axes, keepdims=True)
        param_shape = [1] * (rank + 1)
        param_shape[axis], param_shape[axis + 1] = groups, per_group
        normalized = self._normalize(grouped, mean, variance, param_shape)
        outputs = tf.reshape(normalized, dynamic)
        outputs.set_shape(inputs.shape)
        return outputs

    def get_config(self) -> dict[str, Any]:
        config = self._affine_config()
        config.update(groups=self.groups, axis=self.axis)
        return config
