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
    """``(packed, packed_shape, orig_len)``: ``arr`` halved along ``axis`` (odd lengths padded with 0)."""
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
    """Inverse of :func:`pack_int4`: int4 values as ``dtype`` (signed ``[-8, 7]`` for int8)."""
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
    if dtype == "int8":     # nibble 8..15 -> -8..-1
        eight = tf.constant(8, packed.dtype)
        low = tf.bitwise.bitwise_xor(low, eight) - eight
        high = tf.bitwise.bitwise_xor(high, eight) - eight
    pairs = tf.stack([tf.cast(low, dtype), tf.cast(high, dtype)], axis=1)
    unpacked = tf.reshape(pairs, tf.concat([[-1], tf.shape(front)[1:]], 0))[:orig_len]
    return tf.transpose(unpacked, [perm.index(i) for i in range(rank)])
