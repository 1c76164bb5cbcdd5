"""How per-element losses and sample weights become one number (Keras 3 rules).

    values = tf.constant([1.0, 2.0, 3.0, 4.0])
    reduce_weighted_values(values, sample_weight=[1, 1, 0, 0])                  # 0.75
    reduce_weighted_values(values, [1, 1, 0, 0], reduction="mean_with_sample_weight")  # 1.5

Reductions: ``"sum_over_batch_size"`` (and its synonym ``"mean"``) divide the
weighted sum by the number of loss elements, ``"sum"`` keeps the sum,
``"mean_with_sample_weight"`` divides by the sum of the weights, ``"none"``
(or ``None``) returns the weighted per-element values. A mask (padding, or
classes ignored by a loss) acts as an extra weight; with a mean reduction the
masked entries leave the denominator. Under a ``tf.distribute`` strategy with
several replicas, mean reductions are divided by the replica count, so that
gradients summed across replicas give the global mean (as Keras does; unlike
Keras, this holds too when the per-sample losses are already a scalar);
:func:`unscale_loss_for_distribution` undoes it for reporting.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

REDUCTIONS = ("sum_over_batch_size", "sum", "none", "mean", "mean_with_sample_weight")
EPSILON = 1e-7


def standardize_reduction(reduction: str | None) -> str | None:
    """Check ``reduction`` against the names Keras 3 accepts."""
    if reduction is not None and reduction not in REDUCTIONS:
        raise ValueError(f"Invalid reduction {reduction!r}: expected one of {', '.join(map(repr, REDUCTIONS))} or None")
    return reduction


def squeeze_or_expand_to_same_rank(
    x1: tf.Tensor, x2: tf.Tensor, expand_rank_1: bool = True
) -> tuple[tf.Tensor, tf.Tensor]:
    """Make two tensors the same rank when they differ by one trailing axis of size 1.

    ``(batch,)`` against ``(batch, 1)``: the rank-1 tensor is expanded when
    ``expand_rank_1``, otherwise the size-1 axis is squeezed.
    """
    r1, r2 = x1.shape.rank, x2.shape.rank
    if r1 is None or r2 is None or r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = tf.expand_dims(x2, -1)
        else:
            x1 = tf.squeeze(x1, -1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = tf.expand_dims(x1, -1)
        else:
            x2 = tf.squeeze(x2, -1)
    return x1, x2


def align_weights(values: tf.Tensor, sample_weight: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """Bring ``sample_weight`` to a shape that broadcasts against ``values``.

    Per-sample weights ``(batch,)`` against per-element values ``(batch, time)``
    get trailing axes so that each sample's weight covers all its elements.
    """
    values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
    v_rank, w_rank = values.shape.rank, sample_weight.shape.rank
    if v_rank is not None and w_rank is not None and 0 < w_rank < v_rank:
        sample_weight = tf.reshape(
            sample_weight, tf.concat([tf.shape(sample_weight), tf.ones([v_rank - w_rank], tf.int32)], 0)
        )
    return values, sample_weight


def apply_mask(sample_weight: Any, mask: Any, dtype: tf.DType, reduction: str | None) -> Any:
    """Fold a boolean mask into the sample weights.

    With a mean reduction, valid entries are weighted ``total / valid`` so that
    dividing by the element count averages over the valid entries only.
    """
    if mask is None:
        return sample_weight
    mask = tf.convert_to_tensor(mask)
    if reduction in ("mean", "sum_over_batch_size"):
        total = tf.cast(tf.size(mask), dtype)
        valid = tf.reduce_sum(tf.cast(mask, dtype))
        float_mask = tf.where(tf.cast(mask, tf.bool), tf.math.divide_no_nan(total, valid), tf.zeros((), dtype))
    else:
        float_mask = tf.cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    sample_weight = tf.cast(sample_weight, dtype)
    float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask, sample_weight)
    float_mask, sample_weight = align_weights(float_mask, sample_weight)
    return sample_weight * float_mask


def scale_loss_for_distribution(value: tf.Tensor) -> tf.Tensor:
    """Divide a loss by the number of replicas in sync, for gradients summed across replicas.

    Under a `tf.distribute` strategy with several replicas, each replica's
    mean loss is divided by the replica count, so that summing the replicas'
    gradients gives the gradient of the global mean (as Keras does). Outside
    a strategy, or with one replica, `value` comes back unchanged.

    Args:
        value: A floating-point loss tensor.

    Returns:
        `value / num_replicas_in_sync`, with `value`'s dtype.

    Example:
        >>> tfkit.losses.scale_loss_for_distribution(tf.constant(2.0)).numpy()
        np.float32(2.0)
    """
    replicas = tf.distribute.get_strategy().num_replicas_in_sync
    if replicas > 1:
        value = value * tf.cast(1.0 / replicas, value.dtype)
    return value


def unscale_loss_for_distribution(value: tf.Tensor) -> tf.Tensor:
    """Multiply a loss by the number of replicas in sync: the inverse of `scale_loss_for_distribution`.

    Used to report the global mean loss after a scaled loss has been
    computed on each replica. Outside a strategy, or with one replica,
    `value` comes back unchanged.

    Args:
        value: A floating-point loss tensor.

    Returns:
        `value * num_replicas_in_sync`, with `value`'s dtype.

    Example:
        >>> tfkit.losses.unscale_loss_for_distribution(tf.constant(2.0)).numpy()
        np.float32(2.0)
    """
    replicas = tf.distribute.get_strategy().num_replicas_in_sync
    if replicas > 1:
        value = value * tf.cast(replicas, value.dtype)
    return value


def reduce_values(
    values: tf.Tensor, sample_weight: Any = None, reduction: str | None = "sum_over_batch_size"
) -> tf.Tensor:
    """Sum already-weighted values and divide them as ``reduction`` says."""
    if reduction is None or reduction == "none":
        return values
    loss = tf.reduce_sum(values)
    if reduction == "sum":
        return loss
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        divisor = tf.reduce_sum(tf.broadcast_to(tf.cast(sample_weight, loss.dtype), tf.shape(values)))
    else:
        divisor = tf.cast(tf.size(values), loss.dtype)
    return scale_loss_for_distribution(tf.math.divide_no_nan(loss, divisor))


def reduce_weighted_values(
    values: Any,
    sample_weight: Any = None,
    mask: Any = None,
    reduction: str | None = "sum_over_batch_size",
    dtype: Any = None,
) -> tf.Tensor:
    """Weight per-element loss values (mask folded in) and reduce them to one value.

    This is what a `Loss` does after `call`. Per-sample weights `(batch,)`
    against per-element values `(batch, d1, ...)` cover all of a sample's
    elements. A mask acts as an extra weight; with a mean reduction
    (`"sum_over_batch_size"`/`"mean"`) the masked entries also leave the
    denominator. Mean reductions are divided by the replica count under a
    multi-replica `tf.distribute` strategy (see
    `scale_loss_for_distribution`).

    Args:
        values: The per-sample or per-element losses, a tensor or
            array-like.
        sample_weight: Optional weights that broadcast to `values` (after
            trailing axes are added to per-sample weights). Defaults to
            `None`.
        mask: Optional boolean mask of `values`' shape (or broadcastable to
            it); `False` entries are left out. Defaults to `None`.
        reduction: `"sum_over_batch_size"` or `"mean"` (weighted sum divided
            by the number of elements), `"sum"`, `"mean_with_sample_weight"`
            (weighted sum divided by the sum of the weights), or
            `"none"`/`None` (the weighted values, unreduced). Defaults to
            `"sum_over_batch_size"`.
        dtype: The dtype to compute in; `values` and `sample_weight` are
            cast to it. Defaults to `None`, which means `values`' dtype.

    Returns:
        A scalar tensor, or the weighted values with `reduction` `"none"`
        or `None`.

    Raises:
        ValueError: If `reduction` is not one of the names above.

    Example:
        >>> values = tf.constant([1.0, 2.0, 3.0, 4.0])
        >>> tfkit.losses.reduce_weighted_values(values, sample_weight=[1, 1, 0, 0]).numpy()
        np.float32(0.75)
        >>> tfkit.losses.reduce_weighted_values(
        ...     values, sample_weight=[1, 1, 0, 0], reduction="mean_with_sample_weight").numpy()
        np.float32(1.5)
        >>> tfkit.losses.reduce_weighted_values(values, mask=[True, True, False, False]).numpy()
        np.float32(1.5)
        >>> tfkit.losses.reduce_weighted_values(values, reduction="sum").numpy()
        np.float32(10.0)
    """
    reduction = standardize_reduction(reduction)
    values = tf.convert_to_tensor(values)
    dtype = tf.as_dtype(dtype) if dtype is not None else values.dtype
    values = tf.cast(values, dtype)
    if sample_weight is not None:
        sample_weight = tf.cast(tf.convert_to_tensor(sample_weight), dtype)
    sample_weight = apply_mask(sample_weight, mask, dtype, reduction)
    if sample_weight is not None:
        values, sample_weight = align_weights(values, tf.cast(sample_weight, dtype))
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)
