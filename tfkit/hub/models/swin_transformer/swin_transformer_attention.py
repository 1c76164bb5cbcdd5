"""Swin Transformer's windows: partition and reverse, the shifted-window mask, and window attention.

    windows, (height, width) = window_partition(x, 7)             # (batch * windows, 7, 7, channels)
    attention = WindowAttention(dim=96, num_heads=3, window_size=7)
    out = attention(tf.reshape(windows, (-1, 49, 96)), mask=shifted_window_mask(56, 56, 7, 3))

``WindowAttention`` keeps KerasHub's attribute and layer names (``qkv`` named ``"attention_qkv"``, ``proj``
named ``"attention_projection"``, its own ``relative_position_bias_table``), so KerasHub's weight files load.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.layers import Dense, Dropout


def relative_position_index(window_height: int, window_width: int) -> np.ndarray:
    """The index into the bias table of each pair of a window's tokens, `(area, area)`, as KerasHub numbers them.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_attention import relative_position_index
        >>> relative_position_index(2, 2)[0].tolist()
        [4, 3, 1, 0]
    """
    xx, yy = np.meshgrid(np.arange(window_height), np.arange(window_width))
    coords = np.stack([yy, xx]).reshape(2, -1)
    relative = (coords[:, :, None] - coords[:, None, :]).transpose(1, 2, 0)
    rows = (relative[:, :, 0] + window_height - 1) * (2 * window_width - 1)
    return (rows + relative[:, :, 1] + window_width - 1).astype("int32")


def window_partition(x: tf.Tensor, window_size: int) -> tuple[tf.Tensor, tuple[int, int]]:
    """Splits `(batch, height, width, channels)` into windows, zero-padding the bottom and right edges first.

    Returns:
        The windows, `(batch * windows, window_size, window_size, channels)`, and the padded `(height, width)`.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_attention import window_partition
        >>> windows, padded = window_partition(tf.ones((2, 5, 4, 3)), 2)
        >>> windows.shape, padded
        (TensorShape([12, 2, 2, 3]), (6, 4))
    """
    _, height, width, channels = x.shape
    pad_h, pad_w = -height % window_size, -width % window_size
    if pad_h or pad_w:
        x = tf.pad(x, [[0, 0], [0, pad_h], [0, pad_w], [0, 0]])
    height, width = height + pad_h, width + pad_w
    x = tf.reshape(x, (-1, height // window_size, window_size, width // window_size, window_size, channels))
    x = tf.transpose(x, (0, 1, 3, 2, 4, 5))
    return tf.reshape(x, (-1, window_size, window_size, channels)), (height, width)


def window_reverse(windows: tf.Tensor, window_size: int, height: int, width: int) -> tf.Tensor:
    """Puts windows `(batch * windows, window_size, window_size, channels)` back as `(batch, height, width, channels)`.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_attention import window_reverse
        >>> window_reverse(tf.ones((12, 2, 2, 3)), 2, 6, 4).shape
        TensorShape([2, 6, 4, 3])
    """
    channels = windows.shape[-1]
    rows, columns = height // window_size, width // window_size
    x = tf.reshape(windows, (-1, rows, columns, window_size, window_size, channels))
    return tf.reshape(tf.transpose(x, (0, 1, 3, 2, 4, 5)), (-1, height, width, channels))


def shifted_window_mask(height: int, width: int, window_size: int, shift_size: int) -> np.ndarray:
    """The additive mask of shifted windows, `(windows, area, area)`: `-100` between tokens from different regions.

    The feature map is cut into 3 x 3 regions by the window and the shift (the
    tokens the cyclic shift brought together); a window's tokens attend only
    within their region, as KerasHub computes it.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_attention import shifted_window_mask
        >>> shifted_window_mask(4, 4, 2, 1).shape
        (4, 4, 4)
    """
    regions = np.zeros((1, height, width, 1), "int32")
    cuts_h = [(0, height - window_size), (height - window_size, height - shift_size), (height - shift_size, height)]
    cuts_w = [(0, width - window_size), (width - window_size, width - shift_size), (width - shift_size, width)]
    for count, ((h0, h1), (w0, w1)) in enumerate((h, w) for h in cuts_h for w in cuts_w):
        regions[:, h0:h1, w0:w1, :] = count
    windows = window_partition(tf.constant(regions), window_size)[0].numpy().reshape(-1, window_size * window_size)
    return (windows[:, None, :] != windows[:, :, None]).astype("float32") * -100.0


class WindowAttention(Layer):
    """Multi-head self-attention within windows, with a learned bias per relative position (W-MSA and SW-MSA).

    Args:
        dim: The number of input (and output) channels.
        num_heads: The number of attention heads.
        head_dim: The size of each head. Defaults to `None`: `dim // num_heads`.
        window_size: The window's side (an int) or `(height, width)`.
            Defaults to `7`.
        qkv_bias: Whether the query, key and value projection has a bias.
            Defaults to `True`.
        qk_scale: The scale of the queries. Defaults to `None`:
            `head_dim ** -0.5`.
        attention_dropout: The dropout rate of the attention weights.
            Defaults to `0.0`.
        proj_drop: The dropout rate of the output. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: `(batch * windows, area, dim)`.
        mask: An additive mask `(windows, area, area)`, or `None`.
        training: Whether dropout is active.

    Example:
        >>> from tfkit.hub.models.swin_transformer.swin_transformer_attention import WindowAttention
        >>> WindowAttention(dim=8, num_heads=2, window_size=2)(np.ones((3, 4, 8))).shape
        TensorShape([3, 4, 8])
    """

    def __init__(
        self,
        dim: int,
        num_heads: int,
        head_dim: int | None = None,
        window_size: Any = 7,
        qkv_bias: bool = True,
        qk_scale: float | None = None,
        attention_dropout: float = 0.0,
        proj_drop: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.dim, self.num_heads = dim, num_heads
        self.window_size = (window_size, window_size) if isinstance(window_size, int) else tuple(window_size)
        self.head_dim = head_dim or dim // num_heads
        self.scale = qk_scale if qk_scale is not None else self.head_dim**-0.5
        self.qkv_bias = qkv_bias
        self.attention_dropout, self.proj_drop_rate = attention_dropout, proj_drop
        self.relative_position_index = relative_position_index(*self.window_size)

    def build(self, input_shape: Any) -> None:
        height, width = self.window_size
        self.relative_position_bias_table = self.add_weight(
            shape=((2 * height - 1) * (2 * width - 1), self.num_heads),
            initializer=initializers.TruncatedNormal(stddev=0.02),
            name="relative_position_bias_table",
        )
        policy = self.dtype_policy
        self.qkv = Dense(self.head_dim * self.num_heads * 3, use_bias=self.qkv_bias, dtype=policy, name="attention_qkv")
        self.qkv.build(input_shape)
        self.attention_dropout_layer = Dropout(self.attention_dropout, dtype=policy)
        self.proj = Dense(self.dim, dtype=policy, name="attention_projection")
        self.proj.build((None, None, self.head_dim * self.num_heads))
        self.proj_drop = Dropout(self.proj_drop_rate, dtype=policy)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape[:-1]) + (self.dim,)

    def call(self, x: tf.Tensor, mask: Any = None, training: Any = None) -> tf.Tensor:
        tokens, channels = x.shape[1], x.shape[2]
        qkv = tf.reshape(self.qkv(x), (-1, tokens, 3, self.num_heads, self.head_dim))
        query, key, value = tf.unstack(tf.transpose(qkv, (2, 0, 3, 1, 4)), axis=0)
        scores = tf.matmul(query * tf.cast(self.scale, query.dtype), key, transpose_b=True)
        bias = tf.gather(self.relative_position_bias_table, self.relative_position_index)
        scores = scores + tf.cast(tf.transpose(bias, (2, 0, 1)), scores.dtype)
        if mask is not None:
            windows = mask.shape[0]
            scores = tf.reshape(scores, (-1, windows, self.num_heads, tokens, tokens))
            scores = tf.reshape(
                scores + tf.cast(mask, scores.dtype)[None, :, None], (-1, self.num_heads, tokens, tokens)
            )
        weights = self.attention_dropout_layer(tf.nn.softmax(scores, axis=-1), training=training)
        out = tf.reshape(tf.transpose(tf.matmul(weights, value), (0, 2, 1, 3)), (-1, tokens, channels))
        return self.proj_drop(self.proj(out), training=training)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            dim=self.dim,
            num_heads=self.num_heads,
            head_dim=self.head_dim,
            window_size=self.window_size,
            qkv_bias=self.qkv_bias,
            qk_scale=self.scale,
            attention_dropout=self.attention_dropout,
            proj_drop=self.proj_drop_rate,
        )
        return config
