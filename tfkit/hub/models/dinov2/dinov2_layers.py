"""DINOv2's encoder: attention, layer scale, drop path, MLP or SwiGLU feed-forward, blocks, under KerasHub's names.

    encoder = DINOV2Encoder(num_layers=12, hidden_dim=384, num_heads=6, intermediate_dim=1536)
    hidden, stages = encoder(tokens)             # stages: {"stage1": ..., "stage12": ...}, each block's output

Sub-layers are made in the constructors under KerasHub's attribute names (``norm1``, ``attention``,
``layer_scale1``, ``mlp`` with ``fc1``/``fc2`` or ``weights_in``/``weights_out``, the encoder's ``layers``), so
the weight files Keras writes for KerasHub's DINOv2 load into these layers.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers, random
from tfkit.hub.layers.attribute_names import StoredAs
from tfkit.hub.layers.declared_config import DeclaredLayer
from tfkit.hub.layers.vit_style_encoder import PreNormEncoderBlock
from tfkit.hub.models.vit.vit_layers import _ViTAttention
from tfkit.layers import Dense, Dropout, Identity


def _dense(units: int, name: str, dtype: Any, activation: Any = None) -> Dense:
    init = initializers.TruncatedNormal(stddev=0.02)
    return Dense(units, activation=activation, kernel_initializer=init, dtype=dtype, name=name)


class DINOV2Attention(DeclaredLayer):
    """Self-attention (`"attention"`, a multi-head attention layer) followed by dropout.

    Args:
        hidden_dim: The size of the hidden states.
        num_heads: The number of attention heads.
        dropout_rate: The dropout rate. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.dinov2.dinov2_layers import DINOV2Attention
        >>> DINOV2Attention(hidden_dim=8, num_heads=2)(np.ones((1, 5, 8))).shape
        TensorShape([1, 5, 8])
    """

    def __init__(self, hidden_dim: int, num_heads: int, dropout_rate: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.attention = _ViTAttention(
            num_heads=self.num_heads,
            key_dim=self.hidden_dim // self.num_heads,
            dropout=self.dropout_rate,
            dtype=self.dtype_policy,
            name="attention",
        )
        self.dropout = Dropout(self.dropout_rate, dtype=self.dtype_policy, name="dropout")

    def build(self, input_shape: Any) -> None:
        self.attention.build(input_shape, input_shape)

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        return self.dropout(self.attention(inputs, inputs, inputs, training=training), training=training)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class DINOV2LayerScale(DeclaredLayer):
    """Multiplies its inputs by a learned per-channel scale `lambda1`, initialized to `init_values`.

    Args:
        hidden_dim: The number of channels.
        init_values: The initial scale. Defaults to `1.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.dinov2.dinov2_layers import DINOV2LayerScale
        >>> DINOV2LayerScale(hidden_dim=2, init_values=0.5)(np.ones((1, 2))).numpy()
        array([[0.5, 0.5]], dtype=float32)
    """

    def __init__(self, hidden_dim: int, init_values: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def build(self, input_shape: Any) -> None:
        self.lambda1 = self.add_weight(
            shape=(self.hidden_dim,), initializer=initializers.Constant(self.init_values), name="lambda1"
        )

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return inputs * tf.cast(self.lambda1, inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class DINOV2DropPath(DeclaredLayer):
    """Stochastic depth: in training, drops whole examples' residual branches with probability `rate`.

    Args:
        rate: The drop probability. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.dinov2.dinov2_layers import DINOV2DropPath
        >>> DINOV2DropPath(0.5)(np.ones((2, 3))).numpy()
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """

    def __init__(self, rate: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def call(self, inputs: tf.Tensor, training: Any = None) -> tf.Tensor:
        if not training or self.rate == 0.0:
            return inputs
        keep = 1.0 - self.rate
        shape = tf.concat([tf.shape(inputs)[:1], tf.ones([tf.rank(inputs) - 1], tf.int32)], axis=0)
        noise = tf.floor(random.uniform(shape, dtype=inputs.dtype) + keep)
        return inputs / keep * noise

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class DINOV2MLP(DeclaredLayer):
    """Feed-forward block: dense `fc1` (GELU) to `intermediate_dim`, dense `fc2` back to `hidden_dim`.

    Args:
        hidden_dim: The size of the output.
        intermediate_dim: The size of the intermediate layer.
        activation: The intermediate activation. Defaults to `"gelu"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.dinov2.dinov2_layers import DINOV2MLP
        >>> DINOV2MLP(hidden_dim=8, intermediate_dim=16)(np.ones((1, 3, 8))).shape
        TensorShape([1, 3, 8])
    """

    def __init__(self, hidden_dim: int, intermediate_dim: int, activation: Any = "gelu", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fc1 = _dense(self.intermediate_dim, "fc1", self.dtype_policy, activation)
        self.fc2 = _dense(self.hidden_dim, "fc2", self.dtype_policy)

    def build(self, input_shape: Any) -> None:
        self.fc1.build(input_shape)
        self.fc2.build((*tuple(input_shape)[:-1], self.intermediate_dim))

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return self.fc2(self.fc1(inputs))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return (*tuple(input_shape)[:-1], self.hidden_dim)


class DINOV2SwiGLUFFN(DeclaredLayer):
    """SwiGLU feed-forward block: `weights_in` to two halves, `silu(a) * b`, `weights_out` back to `hidden_dim`.

    The halves have `(int(intermediate_dim * 2 / 3) + 7) // 8 * 8` units each.

    Args:
        hidden_dim: The size of the output.
        intermediate_dim: The nominal intermediate size.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.dinov2.dinov2_layers import DINOV2SwiGLUFFN
        >>> DINOV2SwiGLUFFN(hidden_dim=8, intermediate_dim=24)(np.ones((1, 3, 8))).shape
        TensorShape([1, 3, 8])
    """

    def __init__(self, hidden_dim: int, intermediate_dim: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.actual_intermediate_dim = (int(self.intermediate_dim * 2 / 3) + 7) // 8 * 8
        self.weights_in = _dense(2 * self.actual_intermediate_dim, "weights_in", self.dtype_policy)
        self.weights_out = _dense(self.hidden_dim, "weights_out", self.dtype_policy)

    def build(self, input_shape: Any) -> None:
        self.weights_in.build(input_shape)
        self.weights_out.build((*tuple(input_shape)[:-1], self.actual_intermediate_dim))

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        gate, up = tf.split(self.weights_in(inputs), 2, axis=-1)
        return self.weights_out(tf.nn.silu(gate) * up)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return (*tuple(input_shape)[:-1], self.hidden_dim)


class DINOV2Layer(PreNormEncoderBlock):
    """DINOv2 encoder block: pre-norm attention and feed-forward, each layer-scaled, drop-pathed and residual.

    Args:
        hidden_dim: The size of the hidden states.
        num_heads: The number of attention heads.
        intermediate_dim: The size of the feed-forward intermediate layer.
        layer_scale_init_value: The initial layer scale. Defaults to `1.0`.
        use_swiglu_ffn: Whether the feed-forward block is SwiGLU (else a
            GELU MLP). Defaults to `False`.
        dropout_rate: The attention's dropout rate. Defaults to `0.0`.
        drop_path_rate: The stochastic depth rate. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.models.dinov2.dinov2_layers import DINOV2Layer
        >>> DINOV2Layer(hidden_dim=8, num_heads=2, intermediate_dim=16)(np.ones((1, 5, 8))).shape
        TensorShape([1, 5, 8])
    """

    _norm_1, _attention = StoredAs("norm1"), StoredAs("attention")
    _norm_2, _feed_forward = StoredAs("norm2"), StoredAs("mlp")

    def __init__(
        self,
        hidden_dim: int,
        num_heads: int,
        intermediate_dim: int,
        layer_scale_init_value: float = 1.0,
        use_swiglu_ffn: bool = False,
        dropout_rate: float = 0.0,
        drop_path_rate: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.make_parts()

    def make_parts(self) -> None:
        policy, scale = self.dtype_policy, float(self.layer_scale_init_value)
        self._norm_1 = self.layer_norm("norm1", epsilon=1e-6)
        self._attention = DINOV2Attention(
            self.hidden_dim, self.num_heads, self.dropout_rate, dtype=policy, name="attention"
        )
        self.layer_scale1 = DINOV2LayerScale(self.hidden_dim, scale, dtype=policy, name="layer_scale1")
        if self.drop_path_rate > 0:
            self.drop_path = DINOV2DropPath(self.drop_path_rate, dtype=policy, name="drop_path")
        else:
            self.drop_path = Identity(dtype=policy, name="drop_path")
        self._norm_2 = self.layer_norm("norm2", epsilon=1e-6)
        ffn = DINOV2SwiGLUFFN if self.use_swiglu_ffn else DINOV2MLP
        self._feed_forward = ffn(
            hidden_dim=self.hidden_dim, intermediate_dim=self.intermediate_dim, dtype=policy, name="mlp"
        )
        self.layer_scale2 = DINOV2LayerScale(self.hidden_dim, scale, dtype=policy, name="layer_scale2")

    def build_feed_forward(self, input_shape: Any) -> None:
        for layer in (self.layer_scale1, self.mlp, self.layer_scale2):
            layer.build(input_shape)

    def attend(self, x: tf.Tensor, attention_mask: Any, training: Any) -> tf.Tensor:
        return self.attention(x, training=training)

    def after_attention(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        return self.drop_path(self.layer_scale1(x), training=training)

    def after_feed_forward(self, x: tf.Tensor, training: Any) -> tf.Tensor:
        return self.drop_path(self.layer_scale2(x), training=training)


class DINOV2Encoder(DeclaredLayer):
    """`num_layers` `DINOV2Layer` blocks (the attribute `layers`, as KerasHub's); also returns each block's output.

    Args:
        num_layers: The number of blocks.
        hidden_dim: The size of the hidden states.
        num_heads: The number of attention heads.
        intermediate_dim: The size of the feed-forward intermediate layers.
        layer_scale_init_value: The initial layer scale. Defaults to `1.0`.
        use_swiglu_ffn: Whether the feed-forward blocks are SwiGLU. Defaults
            to `False`.
        dropout_rate: The attention's dropout rate. Defaults to `0.0`.
        drop_path_rate: The stochastic depth rate. Defaults to `0.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Returns:
        `(hidden_states, {"stage1": ..., ...})`: the last block's output and
        every block's.

    Example:
        >>> from tfkit.hub.models.dinov2.dinov2_layers import DINOV2Encoder
        >>> hidden, stages = DINOV2Encoder(num_layers=2, hidden_dim=8, num_heads=2, intermediate_dim=16)(
        ...     np.ones((1, 5, 8)))
        >>> hidden.shape, sorted(stages)
        (TensorShape([1, 5, 8]), ['stage1', 'stage2'])
    """

    def __init__(
        self,
        num_layers: int,
        hidden_dim: int,
        num_heads: int,
        intermediate_dim: int,
        layer_scale_init_value: float = 1.0,
        use_swiglu_ffn: bool = False,
        dropout_rate: float = 0.0,
        drop_path_rate: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.layers = [
            DINOV2Layer(
                hidden_dim=self.hidden_dim,
                num_heads=self.num_heads,
                intermediate_dim=self.intermediate_dim,
                layer_scale_init_value=self.layer_scale_init_value,
                use_swiglu_ffn=self.use_swiglu_ffn,
                dropout_rate=self.dropout_rate,
                drop_path_rate=self.drop_path_rate,
                dtype=self.dtype_policy,
                name=f"layers_{i}",
            )
            for i in range(self.num_layers)
        ]

    def build(self, input_shape: Any) -> None:
        for layer in self.layers:
            layer.build(input_shape)

    def call(self, inputs: tf.Tensor, training: Any = None) -> tuple[tf.Tensor, dict[str, tf.Tensor]]:
        stages = {}
        x = inputs
        for index, layer in enumerate(self.layers, start=1):
            x = layer(x, training=training)
            stages[f"stage{index}"] = x
        return x, stages

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape, {f"stage{i}": input_shape for i in range(1, self.num_layers + 1)}
