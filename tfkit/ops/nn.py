"""Keras 3's ``keras.ops.nn`` on TensorFlow: every name of it, the common activations and losses defined here.

    probs = tfkit.ops.softmax(logits, axis=-1)
    loss = tfkit.ops.sparse_categorical_crossentropy(labels, logits, from_logits=True)
    y = tfkit.ops.nn.conv(images, kernel, strides=1, padding="same")

The other families live beside this file and are re-exported here: ``nn_activations``
(shrinks, GLU, sparsemax ...), ``nn_conv``, ``nn_pool``, ``nn_patches`` (depth/space,
unfold/fold), ``nn_norm``, ``nn_attention`` and ``nn_ctc``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations
from tfkit.ops import nn_activations, nn_attention, nn_conv, nn_ctc, nn_norm, nn_patches, nn_pool
from tfkit.ops._convert import export, float_of, tensor
from tfkit.ops.nn_activations import *  # noqa: F401,F403
from tfkit.ops.nn_attention import *  # noqa: F401,F403
from tfkit.ops.nn_conv import *  # noqa: F401,F403
from tfkit.ops.nn_ctc import *  # noqa: F401,F403
from tfkit.ops.nn_norm import *  # noqa: F401,F403
from tfkit.ops.nn_patches import *  # noqa: F401,F403
from tfkit.ops.nn_pool import *  # noqa: F401,F403


def relu(x: Any) -> tf.Tensor:
    """Rectified linear unit activation function.

    It is defined as `f(x) = max(0, x)`. Integer inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.relu(x).numpy(), 4)
        array([0., 0., 1.], dtype=float32)
    """
    return tf.nn.relu(tensor(x))


def relu6(x: Any) -> tf.Tensor:
    """Rectified linear unit activation function with upper bound of 6.

    It is defined as `f(x) = np.clip(x, 0, 6)`. Integer inputs keep their dtype.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape and dtype as `x`.

    Example:
        >>> x = np.array([-1.0, 3.0, 8.0])
        >>> np.round(tfkit.ops.relu6(x).numpy(), 4)
        array([0., 3., 6.], dtype=float32)
    """
    return tf.nn.relu6(tensor(x))


def sigmoid(x: Any) -> tf.Tensor:
    """Sigmoid activation function.

    It is defined as `f(x) = 1 / (1 + exp(-x))`. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.sigmoid(x).numpy(), 4)
        array([0.2689, 0.5   , 0.7311], dtype=float32)
    """
    return tf.sigmoid(float_of(tensor(x)))


def _over_axes(function: Any, x: Any, axis: Any) -> tf.Tensor:
    """``function`` (a softmax) over one axis, all axes (``None``) or several (a tuple) of ``x``."""
    x = float_of(tensor(x))
    if isinstance(axis, int):
        return function(x, axis=axis)
    rank = len(x.shape)
    axes = list(range(rank)) if axis is None else sorted(a % rank for a in axis)
    kept = [a for a in range(rank) if a not in axes]
    moved = tf.transpose(x, kept + axes)
    shape = tf.shape(moved)
    flat = tf.reshape(moved, tf.concat([shape[: len(kept)], [-1]], 0))
    out = tf.reshape(function(flat, axis=-1), shape)
    return tf.transpose(out, tf.math.invert_permutation(kept + axes))


def softmax(x: Any, axis: Any = -1) -> tf.Tensor:
    """Softmax activation function.

    The elements of the output vector lie within the range `(0, 1)`, and their
    total sum is exactly 1 (excluding the floating point rounding error).

    Each vector is processed independently. The `axis` argument specifies the
    axis along which the function is applied within the input. Integer inputs
    are computed in float32.

    It is defined as:
    `f(x) = exp(x) / sum(exp(x))`

    Args:
        x: Input tensor.
        axis: Integer, axis along which the softmax is applied; a tuple of axes
            or `None` (all axes) applies it over several axes at once, as if
            they were flattened into one. Defaults to `-1`.

    Returns:
        A tensor with the same shape as `x`.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0])
        >>> np.round(tfkit.ops.softmax(x).numpy(), 4)
        array([0.09  , 0.2447, 0.6652], dtype=float32)
        >>> tfkit.ops.softmax(np.ones((2, 2)), axis=None).numpy()
        array([[0.25, 0.25],
               [0.25, 0.25]], dtype=float32)
    """
    return _over_axes(tf.nn.softmax, x, axis)


def log_softmax(x: Any, axis: Any = -1) -> tf.Tensor:
    """Log-softmax activation function.

    It is defined as:
    `f(x) = x - max(x) - log(sum(exp(x - max(x))))`, the logarithm of
    `softmax(x)` computed in a numerically stable way. Integer inputs are
    computed in float32.

    Args:
        x: Input tensor.
        axis: Integer, axis along which the log-softmax is applied; a tuple of
            axes or `None` (all axes) applies it over several axes at once.
            Defaults to `-1`.

    Returns:
        A tensor with the same shape as `x`.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0])
        >>> np.round(tfkit.ops.log_softmax(x).numpy(), 4)
        array([-2.4076, -1.4076, -0.4076], dtype=float32)
    """
    return _over_axes(tf.nn.log_softmax, x, axis)


def softplus(x: Any) -> tf.Tensor:
    """Softplus activation function.

    It is defined as `f(x) = log(exp(x) + 1)`, where `log` is the natural
    logarithm and `exp` is the exponential function. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.softplus(x).numpy(), 4)
        array([0.3133, 0.6931, 1.3133], dtype=float32)
    """
    return tf.nn.softplus(float_of(tensor(x)))


def softsign(x: Any) -> tf.Tensor:
    """Softsign activation function.

    It is defined as `f(x) = x / (abs(x) + 1)`. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.softsign(x).numpy(), 4)
        array([-0.5,  0. ,  0.5], dtype=float32)
    """
    return tf.nn.softsign(float_of(tensor(x)))


def silu(x: Any) -> tf.Tensor:
    """Sigmoid Linear Unit (SiLU) activation function, also known as Swish.

    The SiLU activation function is computed by the sigmoid function
    multiplied by its input. It is defined as `f(x) = x * sigmoid(x)`.
    Integer inputs are computed in float32. `swish` is the same function.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.silu(x).numpy(), 4)
        array([-0.2689,  0.    ,  0.7311], dtype=float32)
    """
    return tf.nn.silu(float_of(tensor(x)))


def gelu(x: Any, approximate: bool = True) -> tf.Tensor:
    """Gaussian Error Linear Unit (GELU) activation function.

    If `approximate` is `True`, it is defined as:
    `f(x) = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`

    Or if `approximate` is `False`, it is defined as:
    `f(x) = x * P(X <= x) = 0.5 * x * (1 + erf(x / sqrt(2)))`,
    where `P(X) ~ N(0, 1)`. Integer inputs are computed in float32.

    Args:
        x: Input tensor.
        approximate: Approximate version of GELU activation (the `tanh` form).
            Defaults to `True`.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.gelu(x).numpy(), 4)
        array([-0.1588,  0.    ,  0.8412], dtype=float32)
        >>> np.round(tfkit.ops.gelu(x, approximate=False).numpy(), 4)
        array([-0.1587,  0.    ,  0.8413], dtype=float32)
    """
    return tf.nn.gelu(float_of(tensor(x)), approximate=approximate)


def elu(x: Any, alpha: float = 1.0) -> tf.Tensor:
    """Exponential Linear Unit activation function.

    It is defined as:

    `f(x) = alpha * (exp(x) - 1.) for x < 0`, `f(x) = x for x >= 0`.

    Integer inputs are computed in float32.

    Args:
        x: Input tensor.
        alpha: A scalar, slope of the negative section. Defaults to `1.0`.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.elu(x).numpy(), 4)
        array([-0.6321,  0.    ,  1.    ], dtype=float32)
        >>> np.round(tfkit.ops.elu(x, alpha=2.0).numpy(), 4)
        array([-1.2642,  0.    ,  1.    ], dtype=float32)
    """
    return activations.elu(float_of(tensor(x)), alpha=alpha)


def selu(x: Any) -> tf.Tensor:
    """Scaled Exponential Linear Unit (SELU) activation function.

    It is defined as:

    `f(x) = scale * alpha * (exp(x) - 1.) for x < 0`,
    `f(x) = scale * x for x >= 0`,

    with `alpha = 1.67326324` and `scale = 1.05070098`. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.selu(x).numpy(), 4)
        array([-1.1113,  0.    ,  1.0507], dtype=float32)
    """
    return tf.nn.selu(float_of(tensor(x)))


def leaky_relu(x: Any, negative_slope: float = 0.2) -> tf.Tensor:
    """Leaky version of a Rectified Linear Unit activation function.

    It allows a small gradient when the unit is not active, it is defined as:

    `f(x) = negative_slope * x for x < 0` or `f(x) = x for x >= 0`.

    Integer inputs are computed in float32.

    Args:
        x: Input tensor.
        negative_slope: Slope of the activation function at `x < 0`.
            Defaults to `0.2`.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.leaky_relu(x).numpy(), 4)
        array([-0.2,  0. ,  1. ], dtype=float32)
        >>> np.round(tfkit.ops.leaky_relu(x, negative_slope=0.5).numpy(), 4)
        array([-0.5,  0. ,  1. ], dtype=float32)
    """
    return tf.nn.leaky_relu(float_of(tensor(x)), alpha=negative_slope)


def hard_sigmoid(x: Any) -> tf.Tensor:
    """Hard sigmoid activation function.

    It is defined as:

    `0 if x < -3`, `1 if x > 3`, `(x / 6) + 0.5 if -3 <= x <= 3`,

    that is `relu6(x + 3) / 6`. Integer inputs are computed in float32.

    Args:
        x: Input tensor.

    Returns:
        A tensor with the same shape as `x` (float32 for integer input).

    Example:
        >>> x = np.array([-1.0, 0.0, 1.0])
        >>> np.round(tfkit.ops.hard_sigmoid(x).numpy(), 4)
        array([0.3333, 0.5   , 0.6667], dtype=float32)
    """
    return activations.hard_sigmoid(float_of(tensor(x)))


def one_hot(x: Any, num_classes: int, axis: int = -1, dtype: Any = None, sparse: bool = False) -> tf.Tensor:
    """Converts integer tensor `x` into a one-hot tensor.

    The one-hot encoding is a representation where each integer value is
    converted into a binary vector with a length equal to `num_classes`,
    and the index corresponding to the integer value is marked as 1, while
    all other indices are marked as 0. Indices outside `[0, num_classes)`
    (negative ones included) give all-zero vectors.

    Args:
        x: Integer tensor to be encoded. The shape can be
            arbitrary, but the dtype should be integer (other dtypes are cast).
        num_classes: Number of classes for the one-hot encoding.
        axis: Axis along which the encoding is performed.
            `-1` represents the last axis. Defaults to `-1`.
        dtype: (Optional) Data type of the output tensor. If not
            provided (`None`, the default), it is float32. A `"bool"` dtype
            gives `True`/`False`.
        sparse: Whether to return a sparse tensor. tfkit works with dense
            tensors: only `False` (the default) is supported.

    Returns:
        A one-hot encoded tensor with the same shape as `x`
        except for the specified `axis` dimension, which will have
        a length of `num_classes`. The dtype of the output tensor
        is determined by `dtype`.

    Raises:
        ValueError: If `sparse=True`.

    Example:
        >>> x = np.array([1, 3, 2, 0])
        >>> tfkit.ops.one_hot(x, num_classes=4).numpy()
        array([[0., 1., 0., 0.],
               [0., 0., 0., 1.],
               [0., 0., 1., 0.],
               [1., 0., 0., 0.]], dtype=float32)
        >>> tfkit.ops.one_hot(np.array([0, 2]), 3, dtype="int32").numpy()
        array([[1, 0, 0],
               [0, 0, 1]], dtype=int32)
    """
    if sparse:
        raise ValueError("tfkit.ops.one_hot: sparse=True is not supported (tfkit works with dense tensors)")
    dtype = tf.as_dtype(dtype or "float32")
    on_off = (True, False) if dtype == tf.bool else (None, None)
    return tf.one_hot(tf.cast(tensor(x), tf.int64), num_classes, on_off[0], on_off[1], axis=axis, dtype=dtype)


def multi_hot(
    inputs: Any, num_classes: int | None = None, axis: int = -1, dtype: Any = None, sparse: bool = False, **kwargs: Any
) -> tf.Tensor:
    """Encodes integer labels as multi-hot vectors.

    This function encodes integer labels as multi-hot vectors, where each label
    is mapped to a binary value in the resulting vector: the result marks which
    of the `num_classes` classes occur in each row. It is `one_hot` reduced
    (with `max`, or `any` for a `"bool"` dtype) over axis 1 of a batch of
    labels, or over axis 0 of a single vector of labels.

    Args:
        inputs: Tensor of integer labels to be converted to multi-hot vectors:
            a vector, or a batch of shape `(batch_size, labels)`.
        num_classes: Integer, the total number of unique classes. Required;
            the `None` default exists for the legacy keyword below.
        axis: (optional) Axis along which the multi-hot encoding should be
            added. Defaults to `-1`, which corresponds to the last dimension.
        dtype: (optional) The data type of the resulting tensor. Default
            (`None`) is float32.
        sparse: Whether to return a sparse tensor. tfkit works with dense
            tensors: only `False` (the default) is supported.
        **kwargs: Only the legacy keyword `num_tokens`, an alias of
            `num_classes`, is accepted.

    Returns:
        Tensor: The multi-hot encoded tensor.

    Raises:
        ValueError: If `num_classes` is not given, or if `sparse=True`.
        TypeError: If `**kwargs` holds a keyword other than `num_tokens`.

    Example:
        >>> data = tfkit.ops.convert_to_tensor([0, 4])
        >>> tfkit.ops.multi_hot(data, num_classes=5).numpy()
        array([1., 0., 0., 0., 1.], dtype=float32)
        >>> tfkit.ops.multi_hot(np.array([[0, 2], [1, 1]]), 3).numpy()
        array([[1., 0., 1.],
               [0., 1., 0.]], dtype=float32)
    """
    if num_classes is None:
        num_classes = kwargs.pop("num_tokens", None)
    if kwargs:
        raise TypeError(f"multi_hot got unexpected keyword arguments {sorted(kwargs)}")
    if num_classes is None:
        raise ValueError("multi_hot: the argument num_classes must be given")
    inputs = tensor(inputs)
    hot = one_hot(inputs, num_classes, axis=axis, dtype=dtype, sparse=sparse)
    reduce = tf.reduce_any if hot.dtype == tf.bool else tf.reduce_max
    return reduce(hot, axis=1 if len(inputs.shape) > 1 else 0)


def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> tf.Tensor:
    """Computes binary cross-entropy loss between target and output tensor.

    The binary cross-entropy loss is commonly used in binary
    classification tasks where each input sample belongs to one
    of the two classes. It measures the dissimilarity between the
    target and output probabilities or logits. Probabilities are clipped to
    `[1e-7, 1 - 1e-7]` before the logarithm.

    Args:
        target: The target tensor representing the true binary labels.
            Its shape should match the shape of the `output` tensor.
        output: The output tensor representing the predicted probabilities
            or logits. Its shape should match the shape of the
            `target` tensor.
        from_logits: (optional) Whether `output` is a tensor of logits or
            probabilities.
            Set it to `True` if `output` represents logits; otherwise,
            set it to `False` if `output` represents probabilities.
            Defaults to `False`.

    Returns:
        A float tensor: the computed binary cross-entropy loss between
        `target` and `output`, element-wise (no reduction).

    Example:
        >>> target = np.array([0.0, 1.0, 1.0, 0.0])
        >>> output = np.array([0.1, 0.9, 0.8, 0.2])
        >>> np.round(tfkit.ops.binary_crossentropy(target, output).numpy(), 4)
        array([0.1054, 0.1054, 0.2231, 0.2231], dtype=float32)
    """
    target, output = float_of(tensor(target)), float_of(tensor(output))
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.cast(target, output.dtype), logits=output)
    epsilon = tf.cast(1e-7, output.dtype)
    output = tf.clip_by_value(output, epsilon, 1 - epsilon)
    target = tf.cast(target, output.dtype)
    return -(target * tf.math.log(output) + (1 - target) * tf.math.log(1 - output))


def categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> tf.Tensor:
    """Computes categorical cross-entropy loss between target and output tensor.

    The categorical cross-entropy loss is commonly used in multi-class
    classification tasks where each input sample can belong to one of
    multiple classes. It measures the dissimilarity
    between the target and output probabilities or logits. Probabilities are
    first normalized to sum to 1 along `axis`, then clipped to
    `[1e-7, 1 - 1e-7]` before the logarithm.

    Args:
        target: The target tensor representing the true categorical labels.
            Its shape should match the shape of the `output` tensor
            except for the last dimension.
        output: The output tensor representing the predicted probabilities
            or logits. Its shape should match the shape of the `target`
            tensor except for the last dimension.
        from_logits: (optional) Whether `output` is a tensor of logits or
            probabilities.
            Set it to `True` if `output` represents logits; otherwise,
            set it to `False` if `output` represents probabilities.
            Defaults to `False`.
        axis: (optional) The axis along which the categorical cross-entropy
            is computed.
            Defaults to `-1`, which corresponds to the last dimension of
            the tensors.

    Returns:
        A float tensor: the computed categorical cross-entropy loss between
        `target` and `output`, with `axis` reduced.

    Example:
        >>> target = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        >>> output = np.array([[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]])
        >>> np.round(tfkit.ops.categorical_crossentropy(target, output).numpy(), 4)
        array([0.1054, 0.2231, 0.6931], dtype=float32)
    """
    target, output = float_of(tensor(target)), float_of(tensor(output))
    target = tf.cast(target, output.dtype)
    if from_logits:
        return -tf.reduce_sum(target * tf.nn.log_softmax(output, axis=axis), axis=axis)
    output = output / tf.reduce_sum(output, axis=axis, keepdims=True)
    epsilon = tf.cast(1e-7, output.dtype)
    return -tf.reduce_sum(target * tf.math.log(tf.clip_by_value(output, epsilon, 1 - epsilon)), axis=axis)


def sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False, axis: int = -1) -> tf.Tensor:
    """Computes sparse categorical cross-entropy loss.

    The sparse categorical cross-entropy loss is similar to categorical
    cross-entropy, but it is used when the target tensor contains integer
    class labels instead of one-hot encoded vectors. It measures the
    dissimilarity between the target and output probabilities or logits.
    A trailing axis of size 1 in `target` is squeezed away.

    Args:
        target: The target tensor representing the true class labels as
            integers. Its shape should match the shape of the `output`
            tensor except for the last dimension.
        output: The output tensor representing the predicted probabilities
            or logits.
            Its shape should match the shape of the `target` tensor except
            for the last dimension.
        from_logits: (optional) Whether `output` is a tensor of logits
            or probabilities.
            Set it to `True` if `output` represents logits; otherwise,
            set it to `False` if `output` represents probabilities.
            Defaults to `False`.
        axis: (optional) The axis along which the sparse categorical
            cross-entropy is computed.
            Defaults to `-1`, which corresponds to the last dimension
            of the tensors.

    Returns:
        A float tensor: the computed sparse categorical cross-entropy
        loss between `target` and `output`.

    Example:
        >>> target = np.array([0, 1, 2])
        >>> output = np.array([[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]])
        >>> np.round(tfkit.ops.sparse_categorical_crossentropy(target, output).numpy(), 4)
        array([0.1054, 0.2231, 0.6931], dtype=float32)
    """
    output = float_of(tensor(output))
    target = tf.cast(tensor(target), tf.int32)
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = tf.squeeze(target, -1)
    depth = output.shape[axis]
    return categorical_crossentropy(
        tf.one_hot(target, depth, axis=axis, dtype=output.dtype), output, from_logits=from_logits, axis=axis
    )


def moments(x: Any, axes: Any, keepdims: bool = False, synchronized: bool = False) -> tuple[tf.Tensor, tf.Tensor]:
    """Calculates the mean and variance of `x`.

    The mean and variance are calculated by aggregating the contents of `x`
    across `axes`. If `x` is 1-D and `axes = [0]` this is just the mean and
    variance of a vector. float16 and bfloat16 inputs are computed in float32,
    clipped to the float16 range and cast back; integer inputs are computed in
    float32.

    Args:
        x: Input tensor.
        axes: A list of axes (or a single int) which to compute mean and
            variance.
        keepdims: If this is set to `True`, the axes which are reduced are left
            in the result as dimensions with size one. Defaults to `False`.
        synchronized: Only applicable inside a `tf.distribute` strategy with
            several replicas. If `True`, synchronizes the global batch
            statistics (mean and variance) across all devices at each training
            step in a distributed training strategy. If `False`, each replica
            uses its own local batch statistics. Defaults to `False`.

    Returns:
        A tuple containing two tensors - mean and variance.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([0, 1, 2, 3, 100], dtype="float32")
        >>> mean, variance = tfkit.ops.moments(x, axes=[0])
        >>> mean.numpy(), variance.numpy()
        (np.float32(21.2), np.float32(1553.3601))
    """
    x = float_of(tensor(x))
    axes = [axes] if isinstance(axes, int) else list(axes)
    original = x.dtype
    if original in (tf.float16, tf.bfloat16):
        x = tf.cast(x, tf.float32)
    context = tf.distribute.get_replica_context() if synchronized else None
    if context is not None and context.num_replicas_in_sync > 1:
        count = tf.reduce_sum(tf.ones_like(x), axis=axes, keepdims=True)
        total, squares, count = context.all_reduce(
            tf.distribute.ReduceOp.SUM,
            [tf.reduce_sum(x, axis=axes, keepdims=True), tf.reduce_sum(tf.square(x), axis=axes, keepdims=True), count],
        )
        mean = tf.math.divide_no_nan(total, count)
        variance = tf.maximum(tf.math.divide_no_nan(squares, count) - tf.square(mean), 0.0)
        if not keepdims:
            mean, variance = tf.squeeze(mean, axes), tf.squeeze(variance, axes)
    else:
        mean, variance = tf.nn.moments(x, axes=axes, keepdims=keepdims)
    if original in (tf.float16, tf.bfloat16):
        limit = tf.float16.max
        mean = tf.cast(tf.clip_by_value(mean, -limit, limit), original)
        variance = tf.cast(tf.clip_by_value(variance, -limit, limit), original)
    return mean, variance


def batch_normalization(
    x: Any, mean: Any, variance: Any, axis: int, offset: Any = None, scale: Any = None, epsilon: float = 1e-3
) -> tf.Tensor:
    """Normalizes `x` by `mean` and `variance`.

    This op is typically used by the batch normalization step in a neural
    network. It normalizes the input tensor along the given axis:
    `(x - mean) / sqrt(variance + epsilon) * scale + offset`. Integer inputs
    are computed in float32.

    Args:
        x: Input tensor.
        mean: A mean vector of the same length as the `axis` dimension of the
            input tensor.
        variance: A variance vector of the same length as the `axis` dimension
            of the input tensor.
        axis: Integer, the axis that should be normalized.
        offset: An offset vector of the same length as the `axis` dimension of
            the input tensor. If not `None`, `offset` is added to the normalized
            tensor. Defaults to `None`.
        scale: A scale vector of the same length as the `axis` dimension of the
            input tensor. If not `None`, the normalized tensor is multiplied by
            `scale`. Defaults to `None`.
        epsilon: Small float added to variance to avoid dividing by zero.
            Defaults to `1e-3`.

    Returns:
        The normalized tensor.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
        >>> out = tfkit.ops.batch_normalization(
        ...     x, mean=[0.4, 0.5, 0.6], variance=[0.67, 0.67, 0.67], axis=-1)
        >>> np.round(out.numpy(), 4)
        array([[-0.3662, -0.3662, -0.3662],
               [ 0.    ,  0.    ,  0.    ],
               [ 0.3662,  0.3662,  0.3662]], dtype=float32)
    """
    x = float_of(tensor(x))
    shape = [1] * len(x.shape)
    shape[axis] = -1

    def broadcast(value: Any) -> Any:
        return None if value is None else tf.reshape(tf.cast(tensor(value), x.dtype), shape)

    return tf.nn.batch_normalization(
        x, broadcast(mean), broadcast(variance), broadcast(offset), broadcast(scale), epsilon
    )


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> tf.Tensor:
    """Computes the logarithm of sum of exponentials of elements in a tensor.

    It is computed in a numerically stable way (the maximum is subtracted
    first). Integer inputs are computed in float32.

    Args:
        x: Input tensor.
        axis: An integer or a tuple of integers specifying the axis/axes
            along which to compute the sum. If `None` (the default), the sum is
            computed over all elements.
        keepdims: A boolean indicating whether to keep the dimensions of
            the input tensor when computing the sum. Defaults to `False`.

    Returns:
        A tensor containing the logarithm of the sum of exponentials of
        elements in `x`.

    Example:
        >>> x = tfkit.ops.convert_to_tensor([1.0, 2.0, 3.0])
        >>> np.round(tfkit.ops.logsumexp(x).numpy(), 4)
        np.float32(3.4076)
    """
    return tf.reduce_logsumexp(float_of(tensor(x)), axis=axis, keepdims=keepdims)


_OWN = [
    name
    for name, value in list(globals().items())
    if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == __name__
]
export(globals(), _OWN)
swish = silu  # the same function, as in Keras (records as tfkit.ops.silu, which a .keras file names Silu)

__all__ = (
    _OWN
    + ["swish"]
    + [
        name
        for module in (nn_activations, nn_attention, nn_conv, nn_ctc, nn_norm, nn_patches, nn_pool)
        for name in module.__all__
    ]
)
