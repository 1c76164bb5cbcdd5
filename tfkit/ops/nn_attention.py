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
        raise ValueError(
            f"dot_product_attention: {name} must have rank 4 (batch, length, heads, head_dim), "
            f"got shape {tuple(value.shape)}"
        )


def dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    scale: Any = None,
    is_causal: bool = False,
    flash_attention: bool | None = None,
    attn_logits_soft_cap: float | None = None,
) -> tf.Tensor:
    """Scaled dot product attention function.

    Computes the attention function on Q (`query`), K (`key`), and V (`value`):
    `attention(Q, K, V) = softmax(Q * K / sqrt(d)) * V`. If we define `logits`
    as the output of `Q * K` and the `probs` as the output of `softmax`.

    Throughout this function, we utilize the following notation to represent
    the shape of array:

    - B: batch size
    - S: length of the key/value
    - T: length of the query
    - N: number of attention heads
    - H: dimensions of each attention head
    - K: number of key/value heads
    - G: number of groups, which equals to `N // K`

    When `K < N` (grouped-query attention), the key and value heads are each
    repeated `G` times to match the query heads. The logits and the softmax are
    computed in float32 (float64 for float64 inputs), and masked positions get
    a large negative logit.

    Args:
        query: The query array with the shape of `(B, T, N, H)`.
        key: The key array with the shape of `(B, S, K, H)`. When `K` equals
            `N`, `K` heads are used directly; otherwise `N` must be a multiple
            of `K`.
        value: The value array with the same shape of `key`.
        bias: Optional bias array to be added to logits. The shape must be
            broadcastable to `(B, N, T, S)`. Defaults to `None`.
        mask: Optional mask array used to filter out logits. It is a boolean
            mask where `True` indicates the element should take part in
            attention. For an additive mask, users should pass it to bias. The
            shape must be broadcastable to `(B, N, T, S)`. Defaults to `None`.
        scale: Optional scale for the logits. If `None` (the default), the
            scale will be set to `1.0 / sqrt(H)`.
        is_causal: Whether to apply causal mask: query position `t` attends
            only to key positions `s <= t`. Defaults to `False`.
        flash_attention: Whether to use flash attention. Flash attention is not
            available on TensorFlow: only `None` (the default) and `False` are
            accepted.
        attn_logits_soft_cap: The value limit for maximum value of the
            attention logits before the softmax function is applied: the
            logits become `cap * tanh(logits / cap)`. This is only supported in
            JAX TPU backend in Keras; tfkit applies it everywhere. Defaults to
            `None` (no cap).

    Returns:
        An array of the attention output with the same shape of `query`.

    Raises:
        ValueError: If `flash_attention=True`, if `query`, `key` or `value` is
            not of rank 4, or if the number of query heads is not a multiple of
            the number of key/value heads.

    Example:
        >>> query = np.random.normal(size=(2, 4, 8, 16)).astype("float32")
        >>> key = np.random.normal(size=(2, 6, 2, 16)).astype("float32")
        >>> value = np.random.normal(size=(2, 6, 2, 16)).astype("float32")
        >>> tfkit.ops.nn.dot_product_attention(query, key, value).shape
        TensorShape([2, 4, 8, 16])
        >>> v = np.arange(6, dtype="float32").reshape(1, 3, 1, 2)
        >>> q = np.zeros((1, 3, 1, 2), "float32")
        >>> tfkit.ops.dot_product_attention(q, q, v, is_causal=True)[0, :, 0].numpy()
        array([[0., 1.],
               [1., 2.],
               [2., 3.]], dtype=float32)
    """
    if flash_attention:
        raise ValueError(
            "dot_product_attention: flash_attention=True is not supported on TensorFlow; "
            "pass flash_attention=None or False"
        )
    query, key, value = promote(float_of(tensor(query)), float_of(tensor(key)), float_of(tensor(value)))
    for name, t in (("query", query), ("key", key), ("value", value)):
        _check_4d(name, t)
    query_heads, kv_heads = query.shape[2], key.shape[2]
    if query_heads is not None and kv_heads is not None and query_heads != kv_heads:
        if kv_heads < 1 or query_heads % kv_heads:
            raise ValueError(
                f"dot_product_attention: the number of query heads ({query_heads}) must be a multiple "
                f"of the number of key/value heads ({kv_heads})"
            )
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
