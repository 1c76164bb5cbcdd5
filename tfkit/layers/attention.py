"""Multi-head scaled dot-product attention: ``MultiHeadAttention``.

    mha = tfkit.layers.MultiHeadAttention(num_heads=2, key_dim=8)
    y = mha(query, value)                              # (batch, T, query_dim)
    y, scores = mha(x, x, use_causal_mask=True, return_attention_scores=True)   # scores (batch, 2, T, T)

Keras 3's layer: ``query_dense``, ``key_dense``, ``value_dense`` and
``output_dense`` are ``EinsumDense`` projections with kernels
``(dim, num_heads, key_dim)`` / ``(num_heads, value_dim, out_dim)``, so
Keras weights copy over in order. Masks attached to ``query``, ``value``
and ``key`` (from ``Embedding(mask_zero=True)`` and friends), the
``attention_mask`` argument, the causal mask and the sliding window are
combined with a logical AND; the output carries the query's mask.
"""

from __future__ import annotations

import math
import string
from typing import Any, Sequence

import tensorflow as tf

from tfkit import constraints, initializers, random, regularizers
from tfkit.base import registry, settings
from tfkit.base.argument_validation import positive_int
from tfkit.engine import masking
from tfkit.engine.layer import Layer
from tfkit.layers.core import EinsumDense, base_config

__all__ = ["MultiHeadAttention"]


# ------------------------------------------------------ einsum equations


def _letter(i: int) -> str:
    return string.ascii_lowercase[i]


def projection_equation(free_dims: int, bound_dims: int, output_dims: int) -> tuple[str, str, int]:
    """``(equation, bias_axes, output_rank)`` of a projection, as Keras builds it.

    ``projection_equation(2, 1, 2) == ("abc,cde->abde", "de", 4)``: the free
    axes pass through, the bound ones are contracted with the kernel.
    """
    inputs = kernel = outputs = bias = ""
    for i in range(free_dims):
        inputs += _letter(i)
        outputs += _letter(i)
    for i in range(free_dims, free_dims + bound_dims):
        inputs += _letter(i)
        kernel += _letter(i)
    for i in range(free_dims + bound_dims, free_dims + bound_dims + output_dims):
        kernel += _letter(i)
        outputs += _letter(i)
        bias += _letter(i)
    return f"{inputs},{kernel}->{outputs}", bias, len(outputs)


def attention_equations(rank: int, attention_axes: Sequence[int]) -> tuple[str, str, int]:
    """``(dot_product, combine, scores_rank)`` einsum equations for projected tensors.

    Projected tensors are ``(batch, <other axes>, <attention axes>, heads, channels)``;
    scores are ``(batch, <other axes>, heads, <query attention axes>, <key attention axes>)``.
    """
    target = "".join(_letter(i) for i in range(rank))
    batch_dims = tuple(i for i in range(rank) if i not in attention_axes and i != rank - 1)
    offset = rank
    source = ""
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += _letter(offset)
            offset += 1
    product = (
        "".join(target[i] for i in batch_dims)
        + "".join(target[i] for i in attention_axes)
        + "".join(source[i] for i in attention_axes)
    )
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


def causal_mask(query_length: Any, value_length: Any) -> tf.Tensor:
    """``(1, T, S)`` booleans, true where key position ``<=`` query position."""
    rows = tf.range(query_length)[:, None]
    cols = tf.range(value_length)[None, :]
    return (rows >= cols)[None]


def _clone(initializer: Any) -> Any:
    """A fresh copy, so the four projections never share one initializer object."""
    get_config = getattr(initializer, "get_config", None)
    return type(initializer).from_config(get_config()) if get_config is not None else initializer


# -------------------------------------------------------------- the layer


@registry.builtin("layers")
class MultiHeadAttention(Layer):
    """MultiHeadAttention layer.

    This is an implementation of multi-headed attention as described in the
    paper "Attention is all you Need" (Vaswani et al., 2017). If `query`,
    `key`, `value` are the same, then this is self-attention. Each timestep
    in `query` attends to the corresponding sequence in `key`, and returns a
    fixed-width vector.

    This layer first projects `query`, `key` and `value` with `EinsumDense`
    layers (`query_dense`, `key_dense`, `value_dense`, kernels
    `(dim, num_heads, key_dim)`), computes
    `softmax(Q @ K^T / sqrt(key_dim))` per head, uses it to combine the
    values, and projects the concatenated heads back with `output_dense`
    (kernel `(num_heads, value_dim, out_dim)`), as in Keras 3, so Keras
    weights copy over in order. Masks attached to `query`, `value` and `key`,
    the `attention_mask` argument, the causal mask and the sliding window are
    combined with a logical AND; the output carries the query's mask.

    Args:
        num_heads: Number of attention heads.
        key_dim: Size of each attention head for query and key.
        value_dim: Size of each attention head for value. `None` (the
            default) uses `key_dim`.
        dropout: Dropout probability in `[0, 1)`, applied to the attention
            weights. Defaults to `0.0`.
        use_bias: Boolean, whether the dense layers use bias vectors/matrices.
            Defaults to `True`.
        output_shape: The expected shape of an output tensor, besides the
            batch and sequence dims (an int or a tuple). If not specified,
            projects back to the query feature dim (the query input's last
            dimension).
        attention_axes: Axes over which the attention is applied (an int or
            a tuple of ints). `None` (the default) means attention over all
            axes but batch, heads, and features.
        sliding_window: Optional positive integer: query position `i` only
            attends to key positions `j` with `abs(i - j) < sliding_window`.
            Defaults to `None`.
        kernel_initializer: Initializer for dense layer kernels. Defaults to
            `"glorot_uniform"`.
        bias_initializer: Initializer for dense layer biases. Defaults to
            `"zeros"`.
        kernel_regularizer: Regularizer for dense layer kernels. Defaults to
            `None`.
        bias_regularizer: Regularizer for dense layer biases. Defaults to
            `None`.
        activity_regularizer: Regularizer for dense layer activity. Defaults
            to `None`.
        kernel_constraint: Constraint for dense layer kernels. Defaults to
            `None`.
        bias_constraint: Constraint for dense layer biases. Defaults to
            `None`.
        use_gate: Boolean, whether to apply a gated attention mechanism. When
            `True`, an additional gating branch (a sigmoid projection of the
            query) multiplies the attended values before the output
            projection. Defaults to `False`.
        seed: Optional integer to seed the dropout layer. Defaults to `None`.
        flash_attention: If `None` (the default), the global setting
            `tfkit.config.enable_flash_attention()` decides. TensorFlow has no
            flash attention, so a call with flash attention enabled raises a
            `ValueError`; it cannot be combined with `dropout` either.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        query: Query tensor of shape `(B, T, dim)`, where `B` is the batch
            size, `T` is the target sequence length, and `dim` is the
            feature dimension.
        value: Value tensor of shape `(B, S, dim)`, where `S` is the source
            sequence length.
        key: Optional key tensor of shape `(B, S, dim)`. If not given, `value`
            is used for both `key` and `value`, which is the most common
            case.
        query_mask: Optional boolean mask of shape `(B, T)`; defaults to the
            mask attached to `query` (e.g. by `Embedding(mask_zero=True)`).
        value_mask: Optional boolean mask of shape `(B, S)`; defaults to the
            mask attached to `value`.
        key_mask: Optional boolean mask of shape `(B, S)`; defaults to the
            mask attached to `key`.
        attention_mask: A boolean mask of shape `(B, T, S)`, that prevents
            attention to certain positions. The boolean mask specifies which
            query elements can attend to which key elements, 1 indicates
            attention and 0 indicates no attention. Broadcasting can happen
            for the missing batch dimensions and the head dimension. It is
            combined (logical AND) with the input masks, the causal mask and
            the sliding window.
        return_attention_scores: A boolean to indicate whether the output
            should be `(attention_output, attention_scores)` if `True`, or
            `attention_output` if `False`. Defaults to `False`.
        training: Python boolean indicating whether the layer should behave
            in training mode (adding dropout) or in inference mode (no
            dropout). Defaults to `None`, meaning inference.
        use_causal_mask: A boolean to indicate whether to apply a causal mask
            to prevent tokens from attending to future tokens (e.g., used in
            a decoder Transformer). Defaults to `False`.

    Input shape:
        `query` `(B, T, dim)`, `value` `(B, S, dim_v)` and optional `key`
        `(B, S, dim_k)` (more axes between batch and features with
        `attention_axes`).

    Output shape:
        `attention_output`: the result of the computation, of shape
        `(B, T, E)`, where `T` is for target sequence shapes and `E` is the
        query input last dimension if `output_shape` is `None`. Otherwise,
        the multi-head outputs are projected to the shape specified by
        `output_shape`. `attention_scores` (optional): multi-head attention
        coefficients over attention axes, `(B, num_heads, T, S)`.

    Raises:
        ValueError: If `num_heads`, `key_dim`, `value_dim`, `sliding_window`,
            `dropout`, `output_shape` or `attention_axes` is malformed; if
            the inputs' shapes disagree; or if flash attention is enabled.

    Example:
        >>> layer = tfkit.layers.MultiHeadAttention(num_heads=2, key_dim=8)
        >>> x = np.ones((2, 5, 16))
        >>> output, scores = layer(x, x, use_causal_mask=True, return_attention_scores=True)
        >>> output.shape, scores.shape
        (TensorShape([2, 5, 16]), TensorShape([2, 2, 5, 5]))
        >>> layer.query_dense.kernel.shape
        TensorShape([16, 2, 8])
        >>> cross = tfkit.layers.MultiHeadAttention(2, 4, output_shape=6)
        >>> cross(np.ones((2, 3, 5)), np.ones((2, 7, 9))).shape
        TensorShape([2, 3, 6])
    """

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim: int | None = None,
        dropout: float = 0.0,
        use_bias: bool = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        sliding_window: int | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        use_gate: bool = False,
        seed: int | None = None,
        flash_attention: bool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        who = f"MultiHeadAttention layer '{self.name}'"
        self.num_heads = positive_int(num_heads, "num_heads", who)
        self.key_dim = positive_int(key_dim, "key_dim", who)
        self.value_dim = positive_int(value_dim, "value_dim", who, allow_none=True) or self.key_dim
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"{who} expected dropout to be a float in [0, 1), got {dropout!r}")
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        self.use_gate = bool(use_gate)
        self.flash_attention = flash_attention
        check_flash_attention_dropout(flash_attention, self.dropout, who)
        if output_shape is not None and not isinstance(output_shape, (int, list, tuple)):
            raise ValueError(f"{who} expected output_shape to be an int, a tuple or None, got {output_shape!r}")
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        self.partial_output_shape = tuple(output_shape) if output_shape else None
        if attention_axes is not None and not isinstance(attention_axes, (int, list, tuple)):
            raise ValueError(f"{who} expected attention_axes to be an int, a list or a tuple, got {attention_axes!r}")
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        self.attention_axes = tuple(attention_axes) if attention_axes is not None else None
        self.sliding_window = positive_int(sliding_window, "sliding_window", who, allow_none=True)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self.seed_generator = random.SeedGenerator(seed)
        self.supports_masking = True

    # --------------------------------------------------------------- build

    def _projection(
        self, equation: str, output_shape: Sequence[Any], bias_axes: str, name: str, activation: Any = None
    ) -> EinsumDense:
        return EinsumDense(
            equation,
            output_shape=tuple(output_shape),
            bias_axes=bias_axes if self.use_bias else None,
            activation=activation,
            kernel_initializer=_clone(self.kernel_initializer),
            bias_initializer=_clone(self.bias_initializer),
            kernel_regularizer=self.kernel_regularizer,
            bias_regularizer=self.bias_regularizer,
            kernel_constraint=self.kernel_constraint,
            bias_constraint=self.bias_constraint,
            dtype=self.dtype_policy,  # sub-layers compute as this layer does (mixed precision)
            name=name,
        )

    def _heads_projection(self, shape: tuple, width: int, name: str, activation: Any = None) -> EinsumDense:
        equation, bias_axes, rank = projection_equation(len(shape) - 1, bound_dims=1, output_dims=2)
        layer = self._projection(equation, [None] * (rank - 3) + [self.num_heads, width], bias_axes, name, activation)
        layer.build((None,) * (len(shape) - 1) + (shape[-1],))
        return layer

    def build(self, query_shape: Any, value_shape: Any, key_shape: Any = None) -> None:
        who = f"MultiHeadAttention layer '{self.name}'"
        key_shape = value_shape if key_shape is None else key_shape
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(
                f"{who}: value and key must agree on every dimension but the last; "
                f"got value shape {tuple(value_shape)} and key shape {tuple(key_shape)}"
            )
        if len(query_shape) != len(value_shape):
            raise ValueError(
                f"{who}: query and value must have the same rank; got query shape {tuple(query_shape)} "
                f"and value shape {tuple(value_shape)}"
            )
        for label, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) < 3 or shape[-1] is None:
                raise ValueError(f"{who}: {label} needs shape (batch, ..., features) with known features, got {shape}")
        self.query_dense = self._heads_projection(tuple(query_shape), self.key_dim, "query")
        self.key_dense = self._heads_projection(tuple(key_shape), self.key_dim, "key")
        self.value_dense = self._heads_projection(tuple(value_shape), self.value_dim, "value")
        if self.use_gate:
            self.gate_dense = self._heads_projection(tuple(query_shape), self.value_dim, "gate", "sigmoid")
        projected_rank = len(query_shape) + 1
        axes = self.attention_axes if self.attention_axes is not None else tuple(range(1, projected_rank - 2))
        self._tfkit_axes = tuple(a if a >= 0 else projected_rank - 1 + a for a in axes)
        self._tfkit_dot, self._tfkit_combine, scores_rank = attention_equations(projected_rank, self._tfkit_axes)
        self._tfkit_norm_axes = tuple(range(scores_rank - len(self._tfkit_axes), scores_rank))
        out_dims = self.partial_output_shape or (query_shape[-1],)
        equation, bias_axes, rank = projection_equation(len(query_shape) - 1, bound_dims=2, output_dims=len(out_dims))
        self.output_dense = self._projection(
            equation, [None] * (rank - 1 - len(out_dims)) + list(out_dims), bias_axes, "attention_output"
        )
        self.output_dense.build((None,) * (len(query_shape) - 1) + (self.num_heads, self.value_dim))

    # ---------------------------------------------------------------- call

    def _attention_mask(
        self,
        query: tf.Tensor,
        value: tf.Tensor,
        query_mask: Any,
        value_mask: Any,
        key_mask: Any,
        attention_mask: Any,
        use_causal_mask: bool,
    ) -> tf.Tensor | None:
        return combined_attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask, self.sliding_window
        )

    def _masked_softmax(self, scores: tf.Tensor, mask: tf.Tensor | None) -> tf.Tensor:
        if mask is not None:
            # Masks are (batch, <query axes>, <key axes>); scores have heads before the attention axes.
            expand_at = -len(self._tfkit_axes) * 2 - 1
            for _ in range(scores.shape.rank - mask.shape.rank):
                mask = tf.expand_dims(mask, axis=expand_at)
            negative = -3e4 if scores.dtype == tf.float16 else -1e9
            scores = tf.where(mask, scores, tf.cast(negative, scores.dtype))
        if len(self._tfkit_norm_axes) == 1:
            probabilities = tf.nn.softmax(scores, axis=self._tfkit_norm_axes[0])
        else:
            probabilities = tf.exp(scores - tf.reduce_logsumexp(scores, axis=self._tfkit_norm_axes, keepdims=True))
        if mask is not None:
            probabilities = tf.where(mask, probabilities, tf.zeros((), probabilities.dtype))
        return probabilities

    def _compute_attention(
        self,
        query: tf.Tensor,
        key: tf.Tensor,
        value: tf.Tensor,
        attention_mask: Any = None,
        training: Any = None,
        return_attention_scores: bool = False,
    ) -> tuple[tf.Tensor, tf.Tensor]:
        """``(attended, scores)`` from projected ``(batch, ..., heads, dim)`` tensors, as Keras's method of this
        name: ``call`` projects, then calls it, so a subclass that overrides it (KerasHub's attention layers)
        changes only the attention itself. ``attention_mask`` is boolean ``(batch, T, S)`` or None."""
        del return_attention_scores  # the scores are computed either way
        query = query * tf.cast(self._inverse_sqrt_key_dim, query.dtype)
        scores = self._masked_softmax(tf.einsum(self._tfkit_dot, key, query), attention_mask)
        weights = scores
        if self.dropout > 0.0 and training is not None and training is not False:
            dropped = random.dropout(scores, rate=self.dropout, seed=self.seed_generator)
            weights = dropped if training is True else tf.where(tf.cast(training, tf.bool), dropped, scores)
        return tf.einsum(self._tfkit_combine, weights, value), scores

    # Keras's private names, which code written for Keras's layer (KerasHub's subclasses) reads; the projections
    # are also set through them, as keras-io's LoRA example wraps `_query_dense` and `_value_dense`.
    _query_dense = property(lambda self: self.query_dense, lambda self, layer: setattr(self, "query_dense", layer))
    _key_dense = property(lambda self: self.key_dense, lambda self, layer: setattr(self, "key_dense", layer))
    _value_dense = property(lambda self: self.value_dense, lambda self, layer: setattr(self, "value_dense", layer))
    _output_dense = property(lambda self: self.output_dense, lambda self, layer: setattr(self, "output_dense", layer))
    _num_heads = property(lambda self: self.num_heads)
    _key_dim = property(lambda self: self.key_dim)
    _value_dim = property(lambda self: self.value_dim)
    _dropout = property(lambda self: self.dropout)
    _use_bias = property(lambda self: self.use_bias)
    _inverse_sqrt_key_dim = property(lambda self: 1.0 / math.sqrt(float(self.key_dim)))
    _dot_product_equation = property(lambda self: self._tfkit_dot)
    _combine_equation = property(lambda self: self._tfkit_combine)
    _attention_axes = property(lambda self: getattr(self, "_tfkit_axes", self.attention_axes))

    @tf.autograph.experimental.do_not_convert
    def call(
        self,
        query: tf.Tensor,
        value: Any,
        key: Any = None,
        query_mask: Any = None,
        value_mask: Any = None,
        key_mask: Any = None,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: Any = None,
        use_causal_mask: bool = False,
    ) -> Any:
        query_mask = masking.get_mask(query) if query_mask is None else query_mask
        value_mask = masking.get_mask(value) if value_mask is None else value_mask
        if key_mask is None and key is not None and key is not value:
            key_mask = masking.get_mask(key)
        value = self._as_input(value)
        key = value if key is None else self._as_input(key)
        refuse_flash_attention(self.flash_attention, return_attention_scores, f"MultiHeadAttention layer '{self.name}'")
        mask = self._attention_mask(query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask)
        gate = self.gate_dense(query) if self.use_gate else None
        query = self.query_dense(query)
        key = self.key_dense(key)
        value = self.value_dense(value)
        attended, scores = self._compute_attention(query, key, value, mask, training, return_attention_scores)
        if gate is not None:
            attended = attended * gate
        output = self.output_dense(attended)
        if return_attention_scores:
            return output, scores
        return output

    def _as_input(self, x: Any) -> tf.Tensor:
        x = tf.convert_to_tensor(x)
        if x.dtype.is_floating and x.dtype != self.compute_dtype:
            x = tf.cast(x, self.compute_dtype)
        return x

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> tuple:
        query_shape = tuple(query_shape)
        if value_shape is not None and key_shape is not None and tuple(value_shape)[1:-1] != tuple(key_shape)[1:-1]:
            raise ValueError(
                f"MultiHeadAttention layer '{self.name}': value and key must agree on every dimension "
                f"but the last; got value shape {tuple(value_shape)} and key shape {tuple(key_shape)}"
            )
        if self.partial_output_shape:
            return query_shape[:-1] + self.partial_output_shape
        return query_shape

    # -------------------------------------------------------------- config

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(
            num_heads=self.num_heads,
            key_dim=self.key_dim,
            value_dim=self.value_dim,
            dropout=self.dropout,
            use_bias=self.use_bias,
            use_gate=self.use_gate,
            output_shape=list(self.partial_output_shape) if self.partial_output_shape else None,
            attention_axes=list(self.attention_axes) if self.attention_axes is not None else None,
            sliding_window=self.sliding_window,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            kernel_constraint=constraints.serialize(self.kernel_constraint),
            bias_constraint=constraints.serialize(self.bias_constraint),
            seed=self.seed,
        )
        return config


def uses_flash_attention(flash_attention: bool | None) -> bool:
    """The layer's ``flash_attention`` or, when None, ``tfkit.config.enable_flash_attention()``'s switch."""
    return bool(flash_attention or settings.flash_attention())


def check_flash_attention_dropout(flash_attention: bool | None, dropout: float, who: str) -> None:
    if uses_flash_attention(flash_attention) and dropout > 0.0:
        raise ValueError(
            f"{who}: dropout is not supported with flash attention; set dropout=0.0 or flash_attention=False"
        )


def refuse_flash_attention(flash_attention: bool | None, return_attention_scores: bool, who: str) -> None:
    """Keras's TensorFlow backend has no flash attention: a call that asks for it fails, naming the way out."""
    if not uses_flash_attention(flash_attention):
        return
    if return_attention_scores:
        raise ValueError(f"{who}: attention scores are not available with flash attention; set flash_attention=False")
    raise ValueError(
        f"{who}: flash attention is not available on TensorFlow; use flash_attention=None or False "
        f"(and tfkit.config.disable_flash_attention())"
    )


def combined_attention_mask(
    query: tf.Tensor,
    value: tf.Tensor,
    query_mask: Any,
    value_mask: Any,
    key_mask: Any,
    attention_mask: Any,
    use_causal_mask: bool,
    sliding_window: int | None = None,
) -> tf.Tensor | None:
    """Every mask that applies, ANDed into one ``(batch, T, S)``-broadcastable boolean (None when none does)."""
    combined = None

    def both(a: Any, b: tf.Tensor) -> tf.Tensor:
        return b if a is None else tf.logical_and(a, b)

    if query_mask is not None:
        combined = both(combined, tf.cast(query_mask, tf.bool)[..., None])
    if value_mask is not None:
        combined = both(combined, tf.cast(value_mask, tf.bool)[..., None, :])
    if key_mask is not None:
        combined = both(combined, tf.cast(key_mask, tf.bool)[..., None, :])
    if use_causal_mask:
        combined = both(combined, causal_mask(tf.shape(query)[1], tf.shape(value)[1]))
    if sliding_window is not None:
        rows = tf.range(tf.shape(query)[1])[:, None]
        cols = tf.range(tf.shape(value)[1])[None, :]
        combined = both(combined, (tf.abs(rows - cols) < sliding_window)[None])
    if attention_mask is not None:
        combined = both(combined, tf.cast(attention_mask, tf.bool))
    return combined
