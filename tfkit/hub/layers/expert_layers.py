"""The Qwen MoE families' feedforward layers (Qwen MoE, Qwen 3 MoE): sparse experts with an optional shared expert,
and the dense MLP of their layers without experts.

    block = SparseMoeBlock(hidden_dim=2048, moe_intermediate_dim=768, num_experts=128, top_k=8,
                           norm_top_k_prob=True, name="qwen3_sparse_moe_block")
    y, router_logits = block(x, attention_mask=padding_mask, training=True)   # adds the balancing loss
    y = GatedMLP(intermediate_dim=6144, hidden_dim=2048, name="qwen3_moe_mlp")(x)   # a layer in mlp_only_layers

KerasHub writes these once a family (``QwenSparseMoeBlock``, ``Qwen3SparseMoeBlock``,
``QwenMoeExperts``, ``Qwen3MoeExperts``, ``QwenMoeMLP``, ``Qwen3MoeMLP``) with the same
weights and sub-layer names; they are internal classes, held by attribute, so the
weight files key them by attribute name. The experts hold each expert's gate and up
kernels side by side in one ``(experts, hidden, 2 * moe_intermediate_dim)`` weight, as
KerasHub does; their SiLU runs in the compute dtype (KerasHub's), the dense MLP's in
float32. Qwen MoE adds a shared expert to every token (a ``GatedMLP`` scaled by a
sigmoid gate).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import activations, initializers
from tfkit.engine.layer import Layer
from tfkit.hub.layers.declared_config import DeclaredConfig
from tfkit.hub.layers.mixture_of_experts import gated_experts, load_balancing_loss, route
from tfkit.layers import Dense


class FusedGateUpExperts(DeclaredConfig, Layer):
    """Batched gated feedforward experts with the gate and up kernels in one weight.

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
        >>> from tfkit.hub.layers.expert_layers import FusedGateUpExperts
        >>> bank = FusedGateUpExperts(num_experts=4, hidden_dim=3, intermediate_dim=5)
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
        self._expert_feedforward_gate_dense = self.add_weight(
            name="expert_feedforward_gate_dense",
            shape=(self.num_experts, self.hidden_dim, 2 * self.intermediate_dim),
            initializer=self.kernel_initializer,
        )
        self._expert_feedforward_output_dense = self.add_weight(
            name="expert_feedforward_output_dense",
            shape=(self.num_experts, self.intermediate_dim, self.hidden_dim),
            initializer=self.kernel_initializer,
        )

    def call(self, hidden_states: tf.Tensor, weights: tf.Tensor, experts: tf.Tensor) -> tf.Tensor:
        gate_up = tf.cast(self._expert_feedforward_gate_dense, self.compute_dtype)
        return gated_experts(
            hidden_states,
            gate_up[..., : self.intermediate_dim],
            gate_up[..., self.intermediate_dim :],
            tf.cast(self._expert_feedforward_output_dense, self.compute_dtype),
            weights,
            experts,
            self.activation,
            activation_in_float32=False,
        )


class SparseMoeBlock(DeclaredConfig, Layer):
    """A sparse mixture-of-experts feedforward network: a router, a bank of experts, optionally a shared expert.

    Args:
        hidden_dim: Integer, the size of the inputs and outputs.
        moe_intermediate_dim: Integer, each expert's hidden size.
        num_experts: Integer, the number of experts.
        top_k: Integer, how many experts each token goes to.
        norm_top_k_prob: Whether the chosen experts' weights are renormalized
            to sum to one.
        shared_expert_intermediate_dim: Integer or `None`: the hidden size of
            a shared expert every token also goes through, its output scaled
            by a sigmoid gate (Qwen MoE's). Defaults to `None` (none).
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        layer_norm_epsilon: Float, kept for KerasHub's signature (the block
            has no norm). Defaults to `1e-6`.
        router_aux_loss_coefficient: Float, the weight of the load-balancing
            loss added in training. Defaults to `0.01`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        hidden_states: `(batch, length, hidden_dim)`.
        attention_mask: Optional `(batch, length)` padding mask, for the
            balancing loss.
        training: Whether the balancing loss applies.

    Returns:
        `(outputs, router_logits)`: `(batch, length, hidden_dim)` and
        `(batch * length, num_experts)`.

    Example:
        >>> from tfkit.hub.layers.expert_layers import SparseMoeBlock
        >>> block = SparseMoeBlock(hidden_dim=4, moe_intermediate_dim=6, num_experts=4, top_k=2,
        ...     norm_top_k_prob=True)
        >>> outputs, logits = block(tf.ones((2, 3, 4)))
        >>> outputs.shape, logits.shape
        (TensorShape([2, 3, 4]), TensorShape([6, 4]))
    """

    def __init__(
        self,
        hidden_dim: int,
        moe_intermediate_dim: int,
        num_experts: int,
        top_k: int,
        norm_top_k_prob: bool,
        shared_expert_intermediate_dim: int | None = None,
        kernel_initializer: Any = "glorot_uniform",
        layer_norm_epsilon: float = 1e-6,
        router_aux_loss_coefficient: float = 0.01,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.hidden_dim = hidden_dim
        self.moe_intermediate_dim = moe_intermediate_dim
        self.num_experts = num_experts
        self.top_k = top_k
        self.norm_top_k_prob = norm_top_k_prob
        self.shared_expert_intermediate_dim = shared_expert_intermediate_dim
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.layer_norm_epsilon = layer_norm_epsilon
        self.router_aux_loss_coefficient = router_aux_loss_coefficient

    def build(self, hidden_states_shape: Any) -> None:
        self._sparse_feedforward_gate_dense = Dense(
            self.num_experts,
            use_bias=False,
            kernel_initializer=self.kernel_initializer,
            dtype=self.dtype_policy,
            name="sparse_feedforward_gate_dense",
        )
        self._sparse_feedforward_gate_dense.build(hidden_states_shape)
        self.expert_bank = FusedGateUpExperts(
            num_experts=self.num_experts,
            hidden_dim=self.hidden_dim,
            intermediate_dim=self.moe_intermediate_dim,
            kernel_initializer=self.kernel_initializer,
            dtype=self.dtype_policy,
            name="experts",
        )
        self.expert_bank.build(hidden_states_shape)
        if self.shared_expert_intermediate_dim:
            self.shared_expert_dense = GatedMLP(
                intermediate_dim=self.shared_expert_intermediate_dim,
                hidden_dim=self.hidden_dim,
                kernel_initializer=self.kernel_initializer,
                layer_norm_epsilon=self.layer_norm_epsilon,
                dtype=self.dtype_policy,
                name="shared_expert_dense",
            )
            self.shared_expert_dense.build(hidden_states_shape)
            self.shared_expert_gate_dense = Dense(
                1, use_bias=False, dtype=self.dtype_policy, name="shared_expert_gate_dense"
            )
            self.shared_expert_gate_dense.build(hidden_states_shape)

    def call(self, hidden_states: tf.Tensor, attention_mask: Any = None, training: Any = None) -> tuple:
        flat = tf.reshape(hidden_states, [-1, self.hidden_dim])
        router_logits = self._sparse_feedforward_gate_dense(flat)
        weights, experts = route(router_logits, self.top_k, normalize=self.norm_top_k_prob)
        outputs = self.expert_bank(flat, weights, experts)
        if self.shared_expert_intermediate_dim:
            shared = self.shared_expert_dense(flat) * tf.sigmoid(self.shared_expert_gate_dense(flat))
            outputs = outputs + shared
        if training:
            loss = load_balancing_loss(router_logits, self.num_experts, self.top_k, attention_mask)
            self.add_loss(self.router_aux_loss_coefficient * loss)
        return tf.reshape(outputs, tf.shape(hidden_states)), router_logits

    def compute_output_shape(self, hidden_states_shape: Any) -> Any:
        return hidden_states_shape, (None, self.num_experts)


class GatedMLP(DeclaredConfig, Layer):
    """A dense gated feedforward network: Qwen MoE's shared expert and its families' layers without experts.

    Args:
        intermediate_dim: Integer, the hidden size.
        hidden_dim: Integer, the size of the inputs and outputs.
        activation_fn: The gate's activation (run in float32). Defaults to
            `"silu"`.
        layer_norm_epsilon: Float, kept for KerasHub's signature. Defaults to
            `1e-6`.
        kernel_initializer: Initializer of the kernels. Defaults to
            `"glorot_uniform"`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        x: `(batch, length, hidden_dim)`.

    Returns:
        `(batch, length, hidden_dim)`.

    Example:
        >>> from tfkit.hub.layers.expert_layers import GatedMLP
        >>> GatedMLP(intermediate_dim=6, hidden_dim=4)(tf.ones((1, 2, 4))).shape
        TensorShape([1, 2, 4])
    """

    def __init__(
        self,
        intermediate_dim: int,
        hidden_dim: int,
        activation_fn: Any = "silu",
        layer_norm_epsilon: float = 1e-6,
        kernel_initializer: Any = "glorot_uniform",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.intermediate_dim = intermediate_dim
        self.hidden_dim = hidden_dim
        self.activation_fn = activation_fn
        self.activation = activations.get(activation_fn)
        self.layer_norm_epsilon = layer_norm_epsilon
        self.kernel_initializer = initializers.get(kernel_initializer)

    def build(self, x_shape: Any) -> None:
        shape = tuple(x_shape)
        for attribute, units, input_shape in (
            ("_feedforward_intermediate_dense", self.intermediate_dim, shape),
            ("_feedforward_gate_dense", self.intermediate_dim, shape),
            ("_feedforward_output_dense", self.hidden_dim, shape[:-1] + (self.intermediate_dim,)),
        ):
            dense = Dense(
                units,
                kernel_initializer=self.kernel_initializer,
                use_bias=False,
                dtype=self.dtype_policy,
                name=attribute.lstrip("_"),
            )
            dense.build(input_shape)
            setattr(self, attribute, dense)

    def call(self, x: tf.Tensor) -> tf.Tensor:
        gate = tf.cast(self.activation(tf.cast(self._feedforward_gate_dense(x), tf.float32)), self.compute_dtype)
        return self._feedforward_output_dense(self._feedforward_intermediate_dense(x) * gate)
