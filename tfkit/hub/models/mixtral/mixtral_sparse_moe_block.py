"""``MixtralSparseMoeBlock``: Mixtral's router and its bank of gated feedforward experts, KerasHub's layers.

    block = MixtralSparseMoeBlock(hidden_dim=4096, intermediate_dim=14336, num_experts=8, top_k=2)
    y, router_logits = block(x, attention_mask=padding_mask, training=True)   # adds the balancing loss

The router (``sparse_feedforward_gate_dense``) scores each token against the experts;
each token's ``top_k`` experts run and their outputs are summed with the renormalized
routing weights (``tfkit.hub.layers.mixture_of_experts``). The experts' kernels are
three ``(num_experts, ...)`` weights of one layer (``MixtralMoeExperts``, named
``experts``), as KerasHub stores them. In training the layer adds
``router_aux_loss_coef`` times the load-balancing loss, and ``router_jitter_noise``
scales the router's inputs by uniform noise.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.mixture_of_experts import gated_experts, load_balancing_loss, route
from tfkit.layers import Dense


class MixtralMoeExperts(DeclaredConfig, Layer):
    """Batched gated feedforward experts: `num_experts` sets of gate, up and down kernels in three weights.

    Args:
        num_experts: Integer, the number of experts.
        hidden_dim: Integer, the size of the inputs and outputs.
        intermediate_dim: Integer, each expert's hidden size.
        activation_fn: The gate's activation. Defaults to `"silu"`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(tokens, hidden_dim)`.
        weights: `(tokens, top_k)` routing weights.
        experts: `(tokens, top_k)` chosen expert indices.

    Returns:
        `(tokens, hidden_dim)`: the routed sum of the chosen experts' outputs.

    Example:
        >>> from tfkit.hub.models.mixtral.mixtral_sparse_moe_block import MixtralMoeExperts
        >>> bank = MixtralMoeExperts(num_experts=4, hidden_dim=3, intermediate_dim=5)
        >>> bank(tf.ones((2, 3)), tf.fill((2, 1), 1.0), tf.constant([[0], [3]])).shape
        TensorShape([2, 3])
    """

    def __init__(
        self,
        num_experts: int,
        hidden_dim: int,
        intermediate_dim: int,
        activation_fn: Any = "silu",
        kernel_initializer: Any = "glorot_uniform",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.num_experts = num_experts
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.activation_fn = activation_fn
        self.activation = activations.get(activation_fn)
        self.kernel_initializer = initializers.get(kernel_initializer)

    def build(self, input_shape: Any = None) -> None:
        up = (self.num_experts, self.hidden_dim, self.intermediate_dim)
        down = (self.num_experts, self.intermediate_dim, self.hidden_dim)
        self._expert_feedforward_gate_dense = self.add_weight(
            name="expert_feedforward_gate_dense", shape=up, initializer=self.kernel_initializer
        )
        self._expert_feedforward_intermediate_dense = self.add_weight(
            name="expert_feedforward_intermediate_dense", shape=up, initializer=self.kernel_initializer
        )
        self._expert_feedforward_output_dense = self.add_weight(
            name="expert_feedforward_output_dense", shape=down, initializer=self.kernel_initializer
        )

    def call(self, hidden_states: tf.Tensor, weights: tf.Tensor, experts: tf.Tensor) -> tf.Tensor:
        return gated_experts(
            hidden_states,
            tf.cast(self._expert_feedforward_gate_dense, self.compute_dtype),
            tf.cast(self._expert_feedforward_intermediate_dense, self.compute_dtype),
            tf.cast(self._expert_feedforward_output_dense, self.compute_dtype),
            weights,
            experts,
            self.activation,
        )


class MixtralSparseMoeBlock(DeclaredConfig, Layer):
    """Mixtral's sparse mixture-of-experts feedforward network: a router and a bank of experts.

    Args:
        hidden_dim: Integer, the size of the inputs and outputs.
        intermediate_dim: Integer, each expert's hidden size.
        num_experts: Integer, the number of experts.
        top_k: Integer, how many experts each token goes to. Defaults to `2`.
        router_jitter_noise: Float: in training, the router's inputs are
            scaled by uniform noise in `[1 - noise, 1 + noise]`. Defaults to
            `0.0`.
        layer_norm_epsilon: Float, kept for KerasHub's signature (the block
            has no norm). Defaults to `1e-5`.
        router_aux_loss_coef: Float, the weight of the load-balancing loss
            added in training. Defaults to `0.02`.
        kernel_initializer: Initializer of the router's kernel. Defaults to
            `"glorot_uniform"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(batch, length, hidden_dim)`.
        attention_mask: Optional `(batch, length)` padding mask, for the
            balancing loss.
        training: Whether the jitter and the balancing loss apply.

    Returns:
        `(outputs, router_logits)`: `(batch, length, hidden_dim)` and
        `(batch * length, num_experts)`.

    Example:
        >>> from tfkit.hub.models.mixtral.mixtral_sparse_moe_block import MixtralSparseMoeBlock
        >>> block = MixtralSparseMoeBlock(hidden_dim=4, intermediate_dim=6, num_experts=4)
        >>> outputs, logits = block(tf.ones((2, 3, 4)))
        >>> outputs.shape, logits.shape
        (TensorShape([2, 3, 4]), TensorShape([6, 4]))
    """

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        num_experts: int,
        top_k: int = 2,
        router_jitter_noise: float = 0.0,
        layer_norm_epsilon: float = 1e-5,
        router_aux_loss_coef: float = 0.02,
        kernel_initializer: Any = "glorot_uniform",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_dim = hidden_dim
        self.intermediate_dim = intermediate_dim
        self.num_experts = num_experts
        self.top_k = top_k
        self.router_jitter_noise = router_jitter_noise
        self.layer_norm_epsilon = layer_norm_epsilon
        self.router_aux_loss_coef = router_aux_loss_coef
        self.kernel_initializer = initializers.get(kernel_initializer)

    def build(self, hidden_states_shape: Any) -> None:
        self._sparse_feedforward_gate_dense = Dense(
            self.num_experts,
            kernel_initializer=self.kernel_initializer,
            use_bias=False,
            dtype=self.dtype_policy,
            name="sparse_feedforward_gate_dense",
        )
        self._sparse_feedforward_gate_dense.build(hidden_states_shape)
        self.expert_bank = MixtralMoeExperts(
            num_experts=self.num_experts,
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.intermediate_dim,
            kernel_initializer=self.kernel_initializer,
            dtype=self.dtype_policy,
            name="experts",
        )
        self.expert_bank.build(hidden_states_shape)

    def call(self, hidden_states: tf.Tensor, attention_mask: Any = None, training: Any = None) -> tuple:
        shape = tf.shape(hidden_states)
        flat = tf.reshape(hidden_states, [-1, self.hidden_dim])
        if training and self.router_jitter_noise > 0:
            noise = self.router_jitter_noise
            flat = flat * tf.random.uniform(tf.shape(flat), 1.0 - noise, 1.0 + noise, dtype=flat.dtype)
        router_logits = self._sparse_feedforward_gate_dense(flat)
        weights, experts = route(router_logits, self.top_k)
        outputs = self.expert_bank(flat, weights, experts)
        if training:
            loss = load_balancing_loss(router_logits, self.num_experts, self.top_k, attention_mask)
            self.add_loss(self.router_aux_loss_coef * loss)
        return tf.reshape(outputs, shape), router_logits

    def compute_output_shape(self, hidden_states_shape: Any) -> Any:
        return hidden_states_shape, (None, self.num_experts)
