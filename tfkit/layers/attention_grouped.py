"""``GroupQueryAttention``: attention where groups of query heads share one key/value head (Keras 3's layer).

    gqa = tfkit.layers.GroupQueryAttention(head_dim=64, num_query_heads=8, num_key_value_heads=2)
    y = gqa(query, value)                                # (batch, T, dim) -> (batch, T, dim)
    y, scores = gqa(x, x, use_causal_mask=True, return_attention_scores=True)   # scores (batch, 8, T, T)

Keras's weights, names and layout, so Keras's ``.keras`` files import: the
``EinsumDense`` projections ``_query_dense`` ("query", kernel
``(dim, num_query_heads, head_dim)``), ``_key_dense`` and ``_value_dense``
(``num_key_value_heads`` heads), ``_gate_dense`` (``use_gate``: a sigmoid gate
on the attended values) and ``_output_dense`` ("attention_output"). Each
key/value head is repeated for ``num_query_heads // num_key_value_heads``
query heads. Masks attached to the inputs, ``attention_mask``, the causal
mask and ``sliding_window`` are ANDed. As in Keras, calls that return scores
or use dropout compute the softmax explicitly (masked probabilities are
zero); the others go through ``tfkit.ops.dot_product_attention``, which is
also where ``flash_attention=True`` is refused: TensorFlow has none.
"""

from __future__ import annotations

import math
from typing import Any

import tensorflow as tf

from tfkit import constraints, initializers, random, regularizers
from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.engine import masking
from tfkit.engine.layer import Layer
from tfkit.layers.attention import check_flash_attention_dropout, combined_attention_mask, refuse_flash_attention
from tfkit.layers.core import EinsumDense, base_config
from tfkit.ops.nn_attention import dot_product_attention

__all__ = ["GroupQueryAttention"]


def _fresh(initializer: Any) -> Any:
    """A copy, so no two projections share one initializer object (and so one draw)."""
    get_config = getattr(initializer, "get_config", None)
    return type(initializer).from_config(get_config()) if get_config is not None else initializer


@registry.builtin("layers", "GroupQueryAttention")
class GroupedQueryAttention(Layer):
    """Grouped Query Attention layer.

    This is an implementation of grouped-query attention introduced by
    Ainslie et al., 2023. Here `num_key_value_heads` denotes the number of
    groups: each key/value head is repeated for
    `num_query_heads // num_key_value_heads` query heads. Setting
    `num_key_value_heads` to 1 is equivalent to multi-query attention, and
    when `num_key_value_heads` is equal to `num_query_heads` it is equivalent
    to multi-head attention. `GroupQueryAttention` and
    `GroupedQueryAttention` are the same class.

    The layer has Keras's weights, names and layout, so Keras's `.keras`
    files import: the `EinsumDense` projections `_query_dense` ("query",
    kernel `(dim, num_query_heads, head_dim)`), `_key_dense` and
    `_value_dense` (`num_key_value_heads` heads), `_gate_dense` (with
    `use_gate`) and `_output_dense` ("attention_output"). Masks attached to
    the inputs, `attention_mask`, the causal mask and `sliding_window` are
    combined with a logical AND. As in Keras, calls that return scores or
    use dropout compute the softmax explicitly (masked probabilities are
    zero); the others go through `tfkit.ops.dot_product_attention`.

    Args:
        head_dim: Size of each attention head.
        num_query_heads: Number of query attention heads.
        num_key_value_heads: Number of key and value attention heads; must
            divide `num_query_heads`.
        dropout: Dropout probability in `[0, 1)`, applied to the attention
            weights. Defaults to `0.0`.
        use_bias: Boolean, whether the dense layers use bias vectors/matrices.
            Defaults to `True`.
        sliding_window: Optional positive integer: query position `i` only
            attends to key positions `j` with `abs(i - j) < sliding_window`.
            Defaults to `None`.
        flash_attention: If `None` (the default), the global setting
            `tfkit.config.enable_flash_attention()` decides. TensorFlow has no
            flash attention, so a call with flash attention enabled raises a
            `ValueError`; it cannot be combined with `dropout` either.
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
        `query` `(B, T, dim)`, `value` `(B, S, dim)` and optional `key`
        `(B, S, dim)`; rank 3 only.

    Output shape:
        `attention_output` of shape `(B, T, dim)`, and optionally
        `attention_scores` of shape `(B, num_query_heads, T, S)`.

    Raises:
        ValueError: If a head count or `sliding_window` is not a positive
            integer, `num_query_heads` is not a multiple of
            `num_key_value_heads`, `dropout` is out of range, the inputs are
            not of rank 3, or flash attention is enabled.

    Example:
        >>> layer = tfkit.layers.GroupQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2)
        >>> x = np.ones((2, 5, 16))
        >>> output, scores = layer(x, x, return_attention_scores=True)
        >>> output.shape, scores.shape
        (TensorShape([2, 5, 16]), TensorShape([2, 4, 5, 5]))
        >>> layer._key_dense.kernel.shape
        TensorShape([16, 2, 4])
    """

    def __init__(
        self,
        head_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        dropout: float = 0.0,
        use_bias: bool = True,
        sliding_window: int | None = None,
        flash_attention: bool | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        use_gate: bool = False,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        who = f"GroupQueryAttention layer '{self.name}'"
        self.head_dim = positive_int(head_dim, "head_dim", who)
        self.num_query_heads = positive_int(num_query_heads, "num_query_heads", who)
        self.num_key_value_heads = positive_int(num_key_value_heads, "num_key_value_heads", who)
        if num_query_heads % num_key_value_heads:
            raise ValueError(
                f"{who} expected `num_query_heads` ({num_query_heads}) to be a multiple of "
                f"`num_key_value_heads` ({num_key_value_heads})"
            )
        self.num_repeats = num_query_heads // num_key_value_heads
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"{who} expected `dropout` to be a float in [0, 1), got {dropout!r}")
        self.dropout = float(dropout)
        self.use_bias, self.use_gate = bool(use_bias), bool(use_gate)
        self.sliding_window = positive_int(sliding_window, "sliding_window", who, allow_none=True)
        self.flash_attention = flash_attention
        check_flash_attention_dropout(flash_attention, self.dropout, who)
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
        self, equation: str, output_shape: tuple, bias_axes: str, name: str, input_shape: tuple, activation: Any = None
    ) -> EinsumDense:
        layer = EinsumDense(
            equation,
            output_shape=output_shape,
            bias_axes=bias_axes if self.use_bias else None,
            activation=activation,
            kernel_initializer=_fresh(self.kernel_initializer),
            bias_initializer=_fresh(self.bias_initializer),
            kernel_regularizer=self.kernel_regularizer,
            bias_regularizer=self.bias_regularizer,
            activity_regularizer=self.activity_regularizer,
            kernel_constraint=self.kernel_constraint,
            bias_constraint=self.bias_constraint,
            dtype=self.dtype_policy,
            name=name,
        )
        layer.build(input_shape)
        return layer

    def build(self, query_shape: Any, value_shape: Any, key_shape: Any = None) -> None:
        who = f"GroupQueryAttention layer '{self.name}'"
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        for label, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) != 3 or shape[-1] is None:
                raise ValueError(
                    f"{who}: {label} needs shape (batch, length, features) with known features, got {shape}"
                )
        self.feature_dim = query_shape[-1]
        queries, keys = (None, self.num_query_heads, self.head_dim), (None, self.num_key_value_heads, self.head_dim)
        self._query_dense = self._projection("bqm,muh->bquh", queries, "uh", "query", query_shape)
        self._key_dense = self._projection("bkm,mvh->bkvh", keys, "vh", "key", key_shape)
        if self.use_gate:
            self._gate_dense = self._projection("bqm,muh->bquh", queries, "uh", "gate", query_shape, "sigmoid")
        self._value_dense = self._projection("bkm,mvh->bkvh", keys, "vh", "value", value_shape)
        self._output_dense = self._projection(
            "bquh,uhm->bqm",
            (None, self.feature_dim),
            "m",
            "attention_output",
            (None, None, self.num_query_heads, self.head_dim),
        )

    # ---------------------------------------------------------------- call

    def _explicit(
        self, query: tf.Tensor, key: tf.Tensor, value: tf.Tensor, mask: Any, training: Any
    ) -> tuple[tf.Tensor, tf.Tensor]:
        """Scores ``(batch, heads, T, S)`` by einsum and a masked softmax (masked probabilities 0), then dropout."""
        query = query * tf.cast(1.0 / math.sqrt(float(self.head_dim)), query.dtype)
        scores = tf.einsum("bquh,bkuh->buqk", query, key)
        if mask is not None:
            mask = tf.cast(mask, tf.bool)
            for _ in range(scores.shape.rank - mask.shape.rank):
                mask = tf.expand_dims(mask, axis=-3)
            negative = -3e4 if scores.dtype == tf.float16 else -1e9
            scores = tf.nn.softmax(tf.where(mask, scores, tf.cast(negative, scores.dtype)), axis=-1)
            scores = tf.where(mask, scores, tf.zeros((), scores.dtype))
        else:
            scores = tf.nn.softmax(scores, axis=-1)
        weights = scores
        if self.dropout > 0.0 and training is not None and training is not False:
            dropped = random.dropout(scores, rate=self.dropout, seed=self.seed_generator)
            weights = dropped if training is True else tf.where(tf.cast(training, tf.bool), dropped, scores)
        return tf.einsum("buqk,bkuh->bquh", weights, value), scores

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
        who = f"GroupQueryAttention layer '{self.name}'"
        query_mask = masking.get_mask(query) if query_mask is None else query_mask
        value_mask = masking.get_mask(value) if value_mask is None else value_mask
        if key_mask is None and key is not None and key is not value:
            key_mask = masking.get_mask(key)
        value = self._as_input(value)
        key = value if key is None else self._as_input(key)
        mask = combined_attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask, self.sliding_window
        )
        gate = self._gate_dense(query) if self.use_gate else None
        query = self._query_dense(query)
        key = tf.repeat(self._key_dense(key), self.num_repeats, axis=2)  # (batch, S, query heads, head_dim)
        value = tf.repeat(self._value_dense(value), self.num_repeats, axis=2)
        scores = None
        refuse_flash_attention(self.flash_attention, return_attention_scores, who)
        if self.dropout > 0.0 or return_attention_scores:
            attended, scores = self._explicit(query, key, value, mask, training)
        else:
            if mask is not None:
                mask = tf.cast(mask, tf.bool)
                for _ in range(4 - mask.shape.rank):
                    mask = tf.expand_dims(mask, axis=-3)
            attended = dot_product_attention(query, key, value, mask=mask, scale=1.0 / math.sqrt(float(self.head_dim)))
        output = self._output_dense(attended * gate if gate is not None else attended)
        return (output, scores) if return_attention_scores else output

    def _as_input(self, x: Any) -> tf.Tensor:
        x = tf.convert_to_tensor(x)
        return tf.cast(x, self.compute_dtype) if x.dtype.is_floating and x.dtype != self.compute_dtype else x

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> tuple:
        query_shape = tuple(query_shape)
        value_shape = query_shape if value_shape is None else tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if query_shape[-1] != value_shape[-1]:
            raise ValueError(
                f"GroupQueryAttention layer '{self.name}': the last dimension of query and value must "
                f"be equal, got query shape {query_shape} and value shape {value_shape}"
            )
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(
                f"GroupQueryAttention layer '{self.name}': value and key must agree on every "
                f"dimension but the last, got value shape {value_shape} and key shape {key_shape}"
            )
        return query_shape

    # -------------------------------------------------------------- config

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(
            head_dim=self.head_dim,
            num_query_heads=self.num_query_heads,
            num_key_value_heads=self.num_key_value_heads,
            use_bias=self.use_bias,
            use_gate=self.use_gate,
            sliding_window=self.sliding_window,
            dropout=self.dropout,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            activity_regularizer=regularizers.serialize(self.activity_regularizer),
            kernel_constraint=constraints.serialize(self.kernel_constraint),
            bias_constraint=constraints.serialize(self.bias_constraint),
            seed=self.seed,
        )
        return config


GroupQueryAttention = GroupedQueryAttention
