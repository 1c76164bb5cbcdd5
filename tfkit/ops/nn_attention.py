"""Scaled dot-product attention over ``(batch, length, heads, head_dim)`` tensors, as ``keras.ops``.

    out = tfkit.ops.dot_product_attention(q, k, v)                     # softmax(q k^T / sqrt(d)) v
    out = tfkit.ops.dot_product_attention(q, k, v, is_causal=True)     # no peeking ahead
    out = tfkit.ops.dot_product_attention(q, k, v, mask=keep)          # keep: bool, broadcast to (B, N, T, S)

Fewer key/value heads than query heads (grouped-query attention) are repeated to match.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.ops._convert import export, float_of, promote, tensor


def _check_4d(name: str, value: tf.Tensor) -> None:
    if len(value.shape) != 4:
        raise ValueError(f"dot_product_attention: {name} must have rank 4 (batch, length, heads, head_dim), "
                         f"got shape {tuple(value.shape)}")


def dot_product_attention(query: Any, key: Any, value: Any, bias: Any = None, mask: Any = None, scale: Any = None,
                          is_causal: bool = False, flash_attention: bool | None = None,
                          attn_logits_soft_cap: float | None = None) -> tf.Tensor:
    """Attention of ``query`` (B, T, N, H) over ``key``/``value`` (B, S, K, H); returns (B, T, N, H).

    ``bias`` is added to the logits, ``mask`` (True = attend) and ``is_causal``
    remove positions, ``attn_logits_soft_cap`` squashes the logits with
    ``cap * tanh(logits / cap)``. Flash attention is not available on TensorFlow.
    """
    if flash_attention:
        raise ValueError("dot_product_attention: flash_attention=True is not supported on TensorFlow; "
                         "pass flash_attention=None or False")
    query, key, value = promote(float_of(tensor(query)), float_of(tensor(key)), float_of(tensor(value)))
    for name, t in (("query", query), ("key", key), ("value", value)):
        _check_4d(name, t)
    query_heads, kv_heads = query.shape[2], key.shape[2]
    if query_heads is not None and kv_heads is not None and query_heads != kv_heads:
        if kv_heads < 1 or query_heads % kv_heads:
            raise ValueError(f"dot_product_attention: the number of query heads ({query_heads}) must be a multiple "
                             f"of the number of key/value heads ({kv_heads})")
        key = tf.repeat(key, query_heads // kv_heads, axis=2)
        value = tf.repeat(value, query_heads // kv_heads, axis=2)
    logits_dtype = tf.float64 if query.dtype == tf.float64 else tf.float32
    logits = tf.cast(tf.einsum("btnh,bsnh->bnts", query, key), logits_dtype)
    if scale is None:
        scale = tf.math.rsqrt(tf.cast(tf.shape(key)[-1], logits_dtype))
    logits = logits * tf.cast(scale, logits_dtype)
    if bias is not None:
        logits = logits + tf.cast(tensor(bias), logits_dtype)
    if attn_logits_soft_cap is not None:
        cap = tf.cast(attn_logits_soft_cap, logits_dtype)
        logits = cap * tf.tanh(logits / cap)
    keep = None
    if mask is not None:
        keep = tf.cast(tensor(mask), tf.bool)
    if is_causal:
        shape = tf.shape(logits)
        causal = tf.linalg.band_part(tf.ones([shape[2], shape[3]], tf.bool), -1, 0)
        keep = causal if keep is None else tf.logical_and(keep, causal)
    if keep is not None:
        logits = tf.where(keep, logits, tf.cast(0.7 * logits_dtype.min, logits_dtype))
    probabilities = tf.cast(tf.nn.softmax(logits, axis=-1), value.dtype)
    return tf.einsum("bnts,bsnh->btnh", probabilities, value)


__all__ = ["dot_product_attention"]
export(globals(), __all__)
