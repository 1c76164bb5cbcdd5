"""Two int4 values per byte: Keras's nibble layout (first of each pair low, second high).

    packed, packed_shape, length = pack_int4(q)           # q: int8 in [-8, 7], shape (n, m)
    q_again = unpack_int4(packed, length)                   # shape (n, m), equal to q

Packing runs on the host with numpy (it happens once, when a layer is quantized); unpacking
runs in TensorFlow so it can live inside a compiled call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf


def _check_dtype(dtype: str) -> None:
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got {dtype!r}.")


def pack_int4(arr: Any, axis: int = 0, dtype: str = "int8") -> tuple[tf.Tensor, tuple[int, ...], int]:
    """Packs int4 values two per byte along an axis.

    Keras's nibble layout: of each pair of values along `axis`, the first goes in the low four
    bits and the second in the high four bits. An odd length is padded with a 0. Packing runs
    on the host with NumPy (it happens once, when a layer is quantized).

    Args:
        arr: An integer tensor or array of `dtype` holding int4 values (`[-8, 7]` for `"int8"`,
            `[0, 15]` for `"uint8"`).
        axis: The axis to pack along. Defaults to `0`.
        dtype: `"int8"` or `"uint8"`, the dtype of `arr` and of the packed result. Defaults to
            `"int8"`.

    Returns:
        A tuple `(packed, packed_shape, orig_len)`: the packed tensor, whose `axis` is halved
        (rounded up), its shape as a tuple, and the original length of `axis` (needed by
        `unpack_int4`).

    Raises:
        ValueError: If `dtype` is neither `"int8"` nor `"uint8"`.
        TypeError: If `arr` is not of `dtype`.

    Example:
        >>> q = np.array([[1, -2], [3, 4], [-8, 7]], np.int8)
        >>> packed, packed_shape, orig_len = tfkit.quantizers.pack_int4(q)
        >>> packed.numpy(), packed_shape, orig_len
        (array([[49, 78],
               [ 8,  7]], dtype=int8), (2, 2), 3)
    """
    _check_dtype(dtype)
    got = arr.dtype.name if isinstance(arr.dtype, tf.DType) else np.dtype(arr.dtype).name
    if got != dtype:
        raise TypeError(f"Expected {dtype} tensor for packing, got {got}.")
    array = np.asarray(arr.numpy() if hasattr(arr, "numpy") else arr)
    axis = axis % array.ndim
    front = np.moveaxis(array, axis, 0)
    length = front.shape[0]
    if length % 2:
        front = np.concatenate([front, np.zeros((1,) + front.shape[1:], front.dtype)], axis=0)
    kind = np.dtype(dtype)
    low = np.bitwise_and(front[::2].astype(kind), kind.type(0x0F))
    high = np.bitwise_and(front[1::2].astype(kind), kind.type(0x0F))
    packed = np.moveaxis(np.bitwise_or(low, np.left_shift(high, kind.type(4))).astype(kind), 0, axis)
    return tf.convert_to_tensor(packed), tuple(packed.shape), length


def unpack_int4(packed: Any, orig_len: int, axis: int = 0, dtype: str = "int8") -> tf.Tensor:
    """Unpacks int4 values packed two per byte by `pack_int4`.

    Runs in TensorFlow, so it can live inside a compiled call.

    Args:
        packed: The packed `int8` or `uint8` tensor.
        orig_len: The original length of `axis`, as `pack_int4` returned it.
        axis: The axis that was packed. Defaults to `0`.
        dtype: `"int8"` to read signed values in `[-8, 7]`, `"uint8"` for `[0, 15]`. Defaults to
            `"int8"`.

    Returns:
        A tensor of `dtype` whose `axis` has length `orig_len`.

    Raises:
        ValueError: If `dtype` is neither `"int8"` nor `"uint8"`.
        TypeError: If `packed` is not `int8` or `uint8`.

    Example:
        >>> q = np.array([[1, -2], [3, 4], [-8, 7]], np.int8)
        >>> packed, _, orig_len = tfkit.quantizers.pack_int4(q)
        >>> tfkit.quantizers.unpack_int4(packed, orig_len).numpy()
        array([[ 1, -2],
               [ 3,  4],
               [-8,  7]], dtype=int8)
    """
    _check_dtype(dtype)
    packed = tf.convert_to_tensor(packed)
    if packed.dtype not in (tf.int8, tf.uint8):
        raise TypeError(f"Expected int8 or uint8 tensor for unpacking, got {packed.dtype.name}")
    rank = packed.shape.rank
    axis %= rank
    perm = [axis] + [i for i in range(rank) if i != axis]
    front = tf.transpose(packed, perm)
    mask = tf.constant(0x0F, packed.dtype)
    low = tf.bitwise.bitwise_and(front, mask)
    high = tf.bitwise.bitwise_and(tf.bitwise.right_shift(front, tf.constant(4, packed.dtype)), mask)
    if dtype == "int8":  # nibble 8..15 -> -8..-1
        eight = tf.constant(8, packed.dtype)
        low = tf.bitwise.bitwise_xor(low, eight) - eight
        high = tf.bitwise.bitwise_xor(high, eight) - eight
    pairs = tf.stack([tf.cast(low, dtype), tf.cast(high, dtype)], axis=1)
    unpacked = tf.reshape(pairs, tf.concat([[-1], tf.shape(front)[1:]], 0))[:orig_len]
    return tf.transpose(unpacked, [perm.index(i) for i in range(rank)])
