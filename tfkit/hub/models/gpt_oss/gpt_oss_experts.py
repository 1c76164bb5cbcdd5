"""GPT-OSS's mixture of experts, KerasHub's layers: ``GptOssTopKRouter``, ``GptOssExperts``, ``GptOssSparseMoeBlock``.

    block = GptOssSparseMoeBlock(hidden_dim=2880, intermediate_dim=2880, num_experts=32, top_k=4)
    y, router_scores = block(x)                        # router_scores: (batch * length, num_experts)

The router (a dense layer with a bias) keeps each token's ``top_k`` logits and softmaxes
them. Each expert is a clamped gated unit with biases: its ``gate_up_proj`` holds the
gate and up columns interleaved (even columns gate, odd columns up), ``gate`` clipped
above at ``limit``, ``up`` to ``[-limit, limit]``, ``(up + 1) * gate * sigmoid(alpha *
gate)``, then ``down_proj``. KerasHub computes every expert for every token and weights
the ones not chosen by zero; so does this layer for a long prompt, while a decoding step
(fewer tokens times ``top_k`` than experts) gathers only the chosen experts' kernels,
as ``tfkit.hub.layers.mixture_of_experts`` does for the other MoE families. KerasHub's
GPT-OSS adds no load-balancing loss, and neither does this one.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.transformer_layer_utils import clone_initializer
from tfkit.layers import Dense
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class GptOssExperts(DeclaredConfig, Layer):
    """GPT-OSS's bank of clamped gated feedforward experts, with biases, in four weights.

    Args:
        num_experts: Integer, the number of experts.
        hidden_dim: Integer, the size of the inputs and outputs.
        intermediate_dim: Integer, each expert's hidden size.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        alpha: Float, the slope of the gate's sigmoid. Defaults to `1.702`.
        limit: Float, the clamp of the gate (above) and up projections.
            Defaults to `7.0`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(tokens, hidden_dim)`.
        routing: `(tokens, num_experts)` routing weights, zero for the
            experts a token does not use.
        experts: `(tokens, top_k)` the chosen experts' indices.
        weights: `(tokens, top_k)` their routing weights.

    Returns:
        `(tokens, hidden_dim)`: the routed sum of the experts' outputs.

    Example:
        >>> from tfkit.hub.models.gpt_oss.gpt_oss_experts import GptOssExperts
        >>> bank = GptOssExperts(num_experts=4, hidden_dim=3, intermediate_dim=5)
        >>> routing = tf.one_hot([0, 3], 4)
        >>> bank(tf.ones((2, 3)), routing, tf.constant([[0], [3]]), tf.ones((2, 1))).shape
        TensorShape([2, 3])
    """

    def __init__(
        self,
        num_experts: int,
        hidden_dim: int,
        intermediate_dim: int,
        kernel_initializer: Any = "glorot_uniform",
        alpha: float = 1.702,
        limit: float = 7.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_experts = num_experts
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.alpha = alpha
        self.limit = limit

    def build(self, input_shape: Any = None) -> None:
        experts, hidden, intermediate = self.num_experts, self.hidden_dim, self.intermediate_dim
        self.gate_up_proj = self.add_weight(
            name="gate_up_proj", shape=(experts, hidden, 2 * intermediate), initializer=self.kernel_initializer
        )
        self.gate_up_proj_bias = self.add_weight(
            name="gate_up_proj_bias", shape=(experts, 2 * intermediate), initializer="zeros"
        )
        self.down_proj = self.add_weight(
            name="down_proj", shape=(experts, intermediate, hidden), initializer=self.kernel_initializer
        )
        self.down_proj_bias = self.add_weight(name="down_proj_bias", shape=(experts, hidden), initializer="zeros")

    def _gated(self, gate_up: tf.Tensor) -> tf.Tensor:
        gate = tf.minimum(gate_up[..., ::2], self.limit)
        up = tf.clip_by_value(gate_up[..., 1::2], -self.limit, self.limit)
        return (up + 1) * (gate * tf.sigmoid(gate * self.alpha))

    def call(self, hidden_states: tf.Tensor, routing: tf.Tensor, experts: tf.Tensor, weights: tf.Tensor) -> tf.Tensor:
        tokens, top_k = hidden_states.shape[0], experts.shape[-1]
        if tokens is not None and top_k is not None and tokens * top_k < self.num_experts:  # a decoding step
            gate_up = tf.einsum("th,tkhm->tkm", hidden_states, tf.gather(self.gate_up_proj, experts))
            hidden = self._gated(gate_up + tf.gather(self.gate_up_proj_bias, experts))
            outputs = tf.einsum("tkm,tkmh->tkh", hidden, tf.gather(self.down_proj, experts))
            outputs += tf.gather(self.down_proj_bias, experts)
            return tf.reduce_sum(outputs * tf.cast(weights, outputs.dtype)[..., None], axis=1)
        gate_up = tf.einsum("th,ehm->etm", hidden_states, self.gate_up_proj) + self.gate_up_proj_bias[:, None, :]
        outputs = tf.einsum("etm,emh->eth", self._gated(gate_up), self.down_proj) + self.down_proj_bias[:, None, :]
        return tf.reduce_sum(outputs * tf.cast(tf.transpose(routing), outputs.dtype)[..., None], axis=0)


@register_keras_serializable(package="keras_hub")
class GptOssTopKRouter(DeclaredConfig, Layer):
    """GPT-OSS's router: a dense layer's logits, each token's `top_k` of them softmaxed.

    Args:
        num_experts: Integer, the number of experts.
        top_k: Integer, how many experts each token goes to.
        kernel_initializer: Initializer of the kernel. Defaults to
            `"glorot_uniform"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(tokens, hidden_dim)`.

    Returns:
        `(routing, experts, weights)`: the `(tokens, num_experts)` routing
        weights (zero for the experts not chosen, KerasHub's router scores),
        the chosen experts `(tokens, top_k)` and their weights.

    Example:
        >>> from tfkit.hub.models.gpt_oss.gpt_oss_experts import GptOssTopKRouter
        >>> routing, experts, weights = GptOssTopKRouter(num_experts=4, top_k=2)(tf.ones((3, 5)))
        >>> routing.shape, experts.shape, np.allclose(routing.numpy().sum(-1), 1.0)
        (TensorShape([3, 4]), TensorShape([3, 2]), True)
    """

    def __init__(self, num_experts: int, top_k: int, kernel_initializer: Any = "glorot_uniform", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_experts = num_experts
        self.top_k = top_k
        self.kernel_initializer = initializers.get(kernel_initializer)

    def build(self, hidden_states_shape: Any) -> None:
        self.router_dense = Dense(
            self.num_experts, kernel_initializer=self.kernel_initializer, dtype=self.dtype_policy, name="router_dense"
        )
        self.router_dense.build(hidden_states_shape)

    def call(self, hidden_states: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        top_logits, experts = tf.math.top_k(self.router_dense(hidden_states), k=self.top_k)
        weights = tf.nn.softmax(top_logits, axis=-1)
        routing = tf.reduce_sum(tf.one_hot(experts, self.num_experts, dtype=weights.dtype) * weights[..., None], axis=1)
        return routing, experts, weights


@register_keras_serializable(package="keras_hub")
class GptOssSparseMoeBlock(DeclaredConfig, Layer):
    """GPT-OSS sparse Mixture of Experts (MoE) block: its router and its experts.

    Args:
        hidden_dim: Integer, the size of the inputs and outputs.
        intermediate_dim: Integer, each expert's hidden size.
        num_experts: Integer, the number of experts.
        top_k: Integer, how many experts each token goes to. Defaults to `2`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(batch, length, hidden_dim)`.

    Returns:
        `(outputs, router_scores)`: `(batch, length, hidden_dim)` and the
        `(batch * length, num_experts)` routing weights.

    Example:
        >>> from tfkit.hub.models.gpt_oss.gpt_oss_experts import GptOssSparseMoeBlock
        >>> block = GptOssSparseMoeBlock(hidden_dim=4, intermediate_dim=6, num_experts=4)
        >>> outputs, scores = block(tf.ones((1, 3, 4)))
        >>> outputs.shape, scores.shape
        (TensorShape([1, 3, 4]), TensorShape([3, 4]))
    """

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        num_experts: int,
        top_k: int = 2,
        kernel_initializer: Any = "glorot_uniform",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.num_experts = num_experts
        self.top_k = top_k
        self.kernel_initializer = initializers.get(kernel_initializer)

    def build(self, hidden_states_shape: Any) -> None:
        self.router = GptOssTopKRouter(
            num_experts=self.num_experts,
            top_k=self.top_k,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            dtype=self.dtype_policy,
            name="router",
        )
        self.router.build(hidden_states_shape)
        self.experts = GptOssExperts(
            num_experts=self.num_experts,
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.intermediate_dim,
            kernel_initializer=clone_initializer(self.kernel_initializer),
            dtype=self.dtype_policy,
            name="experts",
        )
        self.experts.build(hidden_states_shape)

    def call(self, hidden_states: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        flat = tf.reshape(hidden_states, [-1, self.hidden_dim])  # static when the input's shape is (decoding)
        routing, experts, weights = self.router(flat)
        outputs = self.experts(flat, routing, experts, weights)
        return tf.reshape(outputs, tf.shape(hidden_states)), routing

    def compute_output_shape(self, hidden_states_shape: Any) -> Any:
        return hidden_states_shape, (None, self.num_experts)
