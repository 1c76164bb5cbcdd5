"""Mixture-of-experts math the MoE families share: top-k routing, the experts' gated feedforward, the balancing loss.

    top_weights, top_experts = route(router_logits, top_k=2)                      # (tokens, 2) each
    y = gated_experts(x, gate, up, down, top_weights, top_experts, activation)   # (tokens, hidden)
    loss = load_balancing_loss(router_logits, num_experts=8, top_k=2, padding_mask=mask)

A router scores every token against every expert; each token goes to its ``top_k``
experts, whose gated feedforward outputs are summed with the renormalized routing
weights. KerasHub computes every expert for every token and zeroes the ones not
chosen; that is the cheapest way for a long prompt (each expert's kernels are read
once for all tokens), and ``gated_experts`` does it there, in KerasHub's order. While
decoding, fewer tokens than experts pass at a time, and reading every expert's
kernels for one token is most of a step's bytes: there ``gated_experts`` gathers only
the chosen experts' kernels (a static-shape decision, so XLA compiles one path). The
two paths give the same sums: the products are the same and an expert not chosen
adds an exact zero in KerasHub's.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf


def route(router_logits: tf.Tensor, top_k: int, normalize: bool = True) -> tuple[tf.Tensor, tf.Tensor]:
    """Each token's `top_k` experts and their routing weights (softmax probabilities, renormalized to sum to 1).

    Args:
        router_logits: `(tokens, num_experts)` router scores.
        top_k: How many experts each token goes to.
        normalize: Whether the chosen weights are divided by their sum
            (Mixtral's and Qwen 3 MoE's; Qwen MoE makes it an option).
            Defaults to `True`.

    Returns:
        `(weights, experts)`, each `(tokens, top_k)`: float weights in the
        logits' dtype and int32 expert indices, best first.

    Example:
        >>> from tfkit.hub.layers.mixture_of_experts import route
        >>> weights, experts = route(tf.constant([[0.0, 2.0, 1.0]]), top_k=2)
        >>> experts.numpy().tolist(), [round(float(w), 4) for w in weights[0]]
        ([[1, 2]], [0.7311, 0.2689])
    """
    weights, experts = tf.math.top_k(tf.nn.softmax(router_logits, axis=-1), k=top_k)
    if normalize:
        weights = weights / tf.reduce_sum(weights, axis=-1, keepdims=True)
    return weights, experts


def gated_experts(
    x: tf.Tensor,
    gate: tf.Tensor,
    up: tf.Tensor,
    down: tf.Tensor,
    weights: tf.Tensor,
    experts: tf.Tensor,
    activation: Callable[[tf.Tensor], tf.Tensor],
    activation_in_float32: bool = True,
) -> tf.Tensor:
    """The routed sum of the chosen experts' `down(up(x) * activation(gate(x)))`.

    Args:
        x: `(tokens, hidden)` inputs.
        gate: `(num_experts, hidden, intermediate)` gate kernels.
        up: `(num_experts, hidden, intermediate)` up-projection kernels.
        down: `(num_experts, intermediate, hidden)` down-projection kernels.
        weights: `(tokens, top_k)` routing weights (`route`'s).
        experts: `(tokens, top_k)` int expert indices (`route`'s).
        activation: The gate's activation.
        activation_in_float32: Whether the activation runs in float32 (Mixtral's,
            as PyTorch's SiLU does) or in `x`'s dtype (Qwen 3 MoE's experts).
            Defaults to `True`.

    Returns:
        `(tokens, hidden)`, in `x`'s dtype.

    Example:
        >>> from tfkit.hub.layers.mixture_of_experts import gated_experts, route
        >>> rng = np.random.default_rng(0)
        >>> gate, up = (tf.constant(rng.normal(size=(4, 3, 5)), tf.float32) for _ in range(2))
        >>> down = tf.constant(rng.normal(size=(4, 5, 3)), tf.float32)
        >>> x = tf.constant(rng.normal(size=(6, 3)), tf.float32)
        >>> weights, experts = route(tf.constant(rng.normal(size=(6, 4)), tf.float32), top_k=2)
        >>> gated_experts(x, gate, up, down, weights, experts, tf.nn.silu).shape
        TensorShape([6, 3])
    """
    tokens, top_k, num_experts = x.shape[0], experts.shape[-1], gate.shape[0]
    act = _in_float32(activation, x.dtype) if activation_in_float32 else activation
    if tokens is not None and top_k is not None and tokens * top_k < num_experts:
        return _gathered(x, gate, up, down, weights, experts, act)
    return _every_expert(x, gate, up, down, weights, experts, act)


def _in_float32(activation: Callable[[tf.Tensor], tf.Tensor], dtype: tf.DType) -> Callable[[tf.Tensor], tf.Tensor]:
    return lambda gated: tf.cast(activation(tf.cast(gated, tf.float32)), dtype)


def _every_expert(
    x: tf.Tensor,
    gate: tf.Tensor,
    up: tf.Tensor,
    down: tf.Tensor,
    weights: tf.Tensor,
    experts: tf.Tensor,
    activation: Callable[[tf.Tensor], tf.Tensor],
) -> tf.Tensor:
    """Every expert on every token, the ones not chosen weighted by zero (KerasHub's computation)."""
    hidden = tf.einsum("th,ehm->etm", x, up) * activation(tf.einsum("th,ehm->etm", x, gate))
    outputs = tf.einsum("eti,eih->eth", hidden, down)
    num_experts = gate.shape[0] if gate.shape[0] is not None else tf.shape(gate)[0]
    routing = tf.reduce_sum(tf.one_hot(experts, num_experts, dtype=weights.dtype) * weights[..., None], axis=1)
    routing = tf.cast(tf.transpose(routing), x.dtype)  # (experts, tokens)
    return tf.reduce_sum(outputs * routing[:, :, None], axis=0)


def _gathered(
    x: tf.Tensor,
    gate: tf.Tensor,
    up: tf.Tensor,
    down: tf.Tensor,
    weights: tf.Tensor,
    experts: tf.Tensor,
    activation: Callable[[tf.Tensor], tf.Tensor],
) -> tf.Tensor:
    """Only each token's chosen experts: their kernels gathered, `top_k` products a token."""
    gated = tf.einsum("th,tkhm->tkm", x, tf.gather(gate, experts))
    hidden = tf.einsum("th,tkhm->tkm", x, tf.gather(up, experts)) * activation(gated)
    outputs = tf.einsum("tki,tkih->tkh", hidden, tf.gather(down, experts))
    return tf.reduce_sum(outputs * tf.cast(weights, x.dtype)[..., None], axis=1)


def load_balancing_loss(router_logits: tf.Tensor, num_experts: int, top_k: int, padding_mask: Any = None) -> tf.Tensor:
    """The auxiliary loss that keeps the router spreading tokens (Switch Transformer's, as Mixtral trains with it).

    `num_experts * sum_e(fraction of the chosen slots going to e * mean
    router probability of e)`, over the tokens the padding mask keeps: 1 when
    the load is even, up to `num_experts` when it is not.

    Args:
        router_logits: `(tokens, num_experts)` router scores of a layer, the
            tokens being `batch * length` in row order.
        num_experts: The number of experts.
        top_k: How many experts each token goes to.
        padding_mask: Optional `(batch, length)`, 1 for real tokens.

    Returns:
        A float32 scalar.

    Example:
        >>> from tfkit.hub.layers.mixture_of_experts import load_balancing_loss
        >>> float(load_balancing_loss(tf.zeros((4, 2)), num_experts=2, top_k=1))  # even: 2 * (1 * 0.5)
        1.0
    """
    probabilities = tf.nn.softmax(tf.cast(router_logits, tf.float32), axis=-1)
    _, chosen = tf.math.top_k(probabilities, k=top_k)
    slots = tf.one_hot(chosen, num_experts, dtype=tf.float32)  # (tokens, top_k, experts)
    if padding_mask is None:
        tokens_per_expert = tf.reduce_mean(slots, axis=0)
        probability_per_expert = tf.reduce_mean(probabilities, axis=0)
    else:
        kept = tf.reshape(tf.cast(padding_mask, tf.float32), [-1])
        tokens_per_expert = tf.reduce_sum(slots * kept[:, None, None], axis=0) / tf.maximum(tf.reduce_sum(kept), 1e-9)
        probability_per_expert = tf.reduce_sum(probabilities * kept[:, None], axis=0) / tf.maximum(
            tf.reduce_sum(kept), 1e-9
        )
    return tf.reduce_sum(tf.reduce_mean(tokens_per_expert, axis=0) * probability_per_expert) * num_experts
