"""What the causal LMs of decoder-only stacks share: the cached forward pass, ``generate_step`` and ``score``,
as functions and as the base class ``DecoderCausalLM`` of Llama's, Mistral's, Qwen's, Qwen 3's and Gemma's.

    logits, hidden_states, cache = call_with_cache(backbone, token_ids, cache, cache_update_index)
    generated = generate_with_cache(causal_lm, {"token_ids": ids, "padding_mask": mask}, stop_token_ids=(2,))
    losses = score(causal_lm, token_ids, padding_mask, scoring_mode="loss", target_ids=targets)

A backbone with ``token_embedding`` (a ``ReversibleEmbedding``), ``transformer_layers``
(blocks taking ``self_attention_cache`` and ``self_attention_cache_update_index``) and a
final ``layer_norm`` (Mistral, Qwen, Qwen 3, Llama) decodes with KerasHub's cache tensor
``(batch, num_layers, 2, max_length, num_key_value_heads, head_dim)`` or, in ``generate``,
with a ``(keys, values)`` pair a layer (``tfkit.hub.layers.kv_cache``: no per-step copy of
the whole cache). Generation fills it with one pass over the prompts, then the sampler's
compiled loop adds one token a step, writing each step's keys and values in place at its
position: static shapes, so ``generate`` compiles with XLA.
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit import losses
from tfkit.hub.layers.kv_cache import empty_layer_caches, join_layer_caches, layer_cache
from tfkit.hub.models.causal_lm import CausalLM, stop_mask
from tfkit.hub.models.prefill import full_length, prompt_part
from tfkit.hub.samplers.sampler import Sampler


def empty_cache(token_ids: Any, num_layers: int, num_key_value_heads: int, head_dim: int, dtype: Any) -> tf.Tensor:
    """Zeros ``(batch, num_layers, 2, length, num_key_value_heads, head_dim)`` for ``token_ids`` ``(batch, length)``.

    Args:
        token_ids: The padded token ids; their shape sets the batch and length.
        num_layers: The number of decoder blocks.
        num_key_value_heads: The number of key and value heads of each block.
        head_dim: The size of each head.
        dtype: The cache's dtype (the model's compute dtype).

    Returns:
        The cache, all zeros.

    Example:
        >>> from tfkit.hub.models.decoder_causal_lm import empty_cache
        >>> empty_cache(np.ones((2, 5), "int32"), num_layers=3, num_key_value_heads=2, head_dim=4, dtype="float32").shape
        TensorShape([2, 3, 2, 5, 2, 4])
    """
    shape = tf.shape(token_ids)
    return tf.zeros([shape[0], num_layers, 2, shape[1], num_key_value_heads, head_dim], dtype=dtype)


def call_with_cache(backbone: Any, token_ids: Any, cache: Any, cache_update_index: Any) -> tuple[Any, Any, Any]:
    """One forward pass of ``backbone`` over ``token_ids`` that reads and updates ``cache``.

    Args:
        backbone: A backbone with `token_embedding`, `transformer_layers` and
            `layer_norm`.
        token_ids: int `(batch, length)`, the tokens at positions
            `cache_update_index ...`.
        cache: `(batch, num_layers, 2, max_length, num_key_value_heads, head_dim)`
            as KerasHub has it, or a tuple of `(keys, values)` pairs, one a
            layer (`tfkit.hub.layers.kv_cache`).
        cache_update_index: The position of `token_ids[:, 0]` in the sequence.

    Returns:
        `(logits, hidden_states, cache)`, the cache in the form it came.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> from tfkit.hub.models.decoder_causal_lm import call_with_cache, empty_cache
        >>> backbone = keras_hub.models.QwenBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16)
        >>> ids = np.array([[1, 2, 3]])
        >>> logits, hidden_states, cache = call_with_cache(backbone, ids, empty_cache(ids, 1, 1, 4, "float32"), 0)
        >>> logits.shape, cache.shape
        (TensorShape([1, 3, 10]), TensorShape([1, 1, 2, 3, 1, 4]))
    """
    x = backbone.token_embedding(token_ids)
    caches = []
    for i, block in enumerate(backbone.transformer_layers):
        x, next_cache = block(
            x, self_attention_cache=layer_cache(cache, i), self_attention_cache_update_index=cache_update_index
        )
        caches.append(next_cache)
    hidden_states = backbone.layer_norm(x)
    logits = backbone.token_embedding(hidden_states, reverse=True)
    return logits, hidden_states, join_layer_caches(caches, like=cache)


def prompt_cache(
    model: Any, token_ids: Any, num_key_value_heads: int, head_dim: int, prefill_length: int | None = None
) -> tuple[Any, Any]:
    """A causal LM's ``_build_cache``: zero per-layer caches the length of ``token_ids``, filled by one pass
    over its first ``prefill_length`` positions (all for ``None``); ``(hidden_states, cache)``."""
    shape = tf.shape(token_ids)
    cache = empty_layer_caches(
        shape[0], shape[1], model.backbone.num_layers, num_key_value_heads, head_dim, model.compute_dtype
    )
    _, hidden_states, cache = model.call_with_cache(prompt_part(token_ids, prefill_length), cache, 0)
    return full_length(hidden_states, shape[1]), cache


def first_step_logits(model: Any, hidden_states: Any, index: Any) -> dict[str, Any]:
    """The sampler's ``first_logits``: the logits at ``index`` from the prompt pass's hidden states at ``index - 1``.

    The prompt pass already computed the hidden states of the last prompt
    position, and its keys and values are in the cache, so the first token
    needs only the output projection, not another pass of the model (about a
    decoding step less before the first token; Hugging Face's ``generate``
    does the same). Only for the library's own ``call_with_cache`` (its logits
    are ``token_embedding(hidden_states, reverse=True)``) and samplers that run
    the base class's loop; otherwise ``{}`` and every step calls the model.

    Args:
        model: The causal LM generating.
        hidden_states: The prompt pass's `(batch, length, hidden_dim)`
            hidden states, after the final norm.
        index: int32 scalar, the first position to fill (at least 1).

    Returns:
        `{"first_logits": (batch, vocabulary_size) logits}`, or `{}`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> from tfkit.hub.models.decoder_causal_lm import first_step_logits
        >>> backbone = keras_hub.models.QwenBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16)
        >>> causal_lm = keras_hub.models.QwenCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> first_step_logits(causal_lm, tf.ones((2, 4, 8)), tf.constant(3))["first_logits"].shape
        TensorShape([2, 10])
        >>> causal_lm.compile(sampler="beam")
        >>> first_step_logits(causal_lm, tf.ones((2, 4, 8)), tf.constant(3))
        {}
    """
    own_pass = getattr(type(model).call_with_cache, "__module__", "").startswith("tfkit.hub.")
    if not own_pass or type(model.sampler).__call__ is not Sampler.__call__:
        return {}
    last = tf.gather(hidden_states, index - 1, axis=1)[:, None, :]  # (batch, 1, hidden_dim)
    return {"first_logits": model.backbone.token_embedding(last, reverse=True)[:, 0, :]}


def generate_with_cache(
    model: Any, inputs: dict[str, Any], stop_token_ids: Any = None, prefill_length: int | None = None
) -> dict[str, Any]:
    """A causal LM's ``generate_step``: the prompts' cache, then the sampler's loop, then the output mask.

    Args:
        model: A `CausalLM` with `_build_cache(token_ids, prefill_length)`
            (the prompt pass: `(hidden_states, cache)`), `call_with_cache`
            and a `sampler`.
        inputs: `{"token_ids", "padding_mask"}`, padded to the length to
            generate.
        stop_token_ids: Token ids that end a sequence, or `None`.
        prefill_length: How many positions the prompt pass covers
            (`tfkit.hub.models.prefill`); `None`, all of them.

    Returns:
        `{"token_ids", "padding_mask"}`: the completed sequences, and `True`
        up to each one's first stop token.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> from tfkit.hub.models.decoder_causal_lm import generate_with_cache
        >>> backbone = keras_hub.models.QwenBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16)
        >>> causal_lm = keras_hub.models.QwenCausalLM(backbone)
        >>> causal_lm.compile(sampler="greedy")
        >>> prompt = {"token_ids": tf.constant([[1, 2, 0, 0]]), "padding_mask": tf.constant([[1, 1, 0, 0]])}
        >>> generate_with_cache(causal_lm, prompt)["padding_mask"].numpy().tolist()
        [[True, True, True, True]]
    """
    token_ids, padding_mask = inputs["token_ids"], inputs["padding_mask"]
    hidden_states, cache = model._build_cache(token_ids, prefill_length)
    index = tf.reduce_min(tf.reduce_sum(tf.cast(padding_mask, tf.int32), axis=-1))

    def next_token(prompt: Any, cache: Any, index: Any) -> tuple[Any, Any, Any]:
        update_index = index - 1
        prompt = tf.slice(prompt, [0, update_index], [tf.shape(prompt)[0], 1])  # a static width of 1 (XLA)
        logits, hidden_states, cache = model.call_with_cache(prompt, cache, update_index)
        return tf.squeeze(logits, axis=1), tf.squeeze(hidden_states, axis=1), cache

    token_ids = model.sampler(
        next=next_token,
        prompt=token_ids,
        cache=cache,
        index=index,
        mask=padding_mask,
        stop_token_ids=stop_token_ids,
        hidden_states=hidden_states,
        model=model,
        **first_step_logits(model, hidden_states, index),
    )
    if stop_token_ids is not None:
        padding_mask = stop_mask(token_ids, stop_token_ids, padding_mask)
    else:
        padding_mask = tf.ones_like(token_ids, dtype=tf.bool)
    return {"token_ids": token_ids, "padding_mask": padding_mask}


def score(
    model: Any,
    token_ids: Any,
    padding_mask: Any = None,
    scoring_mode: str = "logits",
    layer_intercept_fn: Callable[[Any, int], Any] | None = None,
    target_ids: Any = None,
) -> tf.Tensor:
    """A causal LM's ``score``: the logits at every position, or each target token's loss.

    Args:
        model: A `CausalLM` whose backbone has `token_embedding`,
            `transformer_layers` and `layer_norm`.
        token_ids: int `(batch, length)`.
        padding_mask: `(batch, length)` mask of the tokens; `None` means all
            ones.
        scoring_mode: `"logits"` or `"loss"`.
        layer_intercept_fn: Optional `fn(x, i)` applied to the embeddings
            (`i = -1`) and to each block's output (`i = 0, 1, ...`), returning
            what the next layer takes.
        target_ids: int `(batch, length)`, the token each position should
            predict; required for `"loss"`.

    Returns:
        `(batch, length, vocabulary_size)` logits, or `(batch, length)` losses.

    Raises:
        ValueError: If `scoring_mode` is neither `"logits"` nor `"loss"`, or it
            is `"loss"` without `target_ids`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> from tfkit.hub.models.decoder_causal_lm import score
        >>> backbone = keras_hub.models.QwenBackbone(vocabulary_size=10, num_layers=1, num_query_heads=2,
        ...     num_key_value_heads=1, hidden_dim=8, intermediate_dim=16)
        >>> causal_lm = keras_hub.models.QwenCausalLM(backbone)
        >>> ids = np.array([[1, 2, 3]])
        >>> score(causal_lm, ids).shape, score(causal_lm, ids, scoring_mode="loss", target_ids=ids).shape
        (TensorShape([1, 3, 10]), TensorShape([1, 3]))
    """
    who = f"{type(model).__name__}.score"
    if scoring_mode not in ("logits", "loss"):
        raise ValueError(f"{who}: scoring_mode must be 'logits' or 'loss', got {scoring_mode!r}")
    if scoring_mode == "loss" and target_ids is None:
        raise ValueError(f"{who}: scoring_mode='loss' needs the target token ids: pass target_ids")
    token_ids = tf.convert_to_tensor(token_ids)
    if padding_mask is None:
        padding_mask = tf.ones_like(token_ids)
    intercept = layer_intercept_fn or (lambda x, _: x)
    backbone = model.backbone
    x = intercept(backbone.token_embedding(token_ids), -1)
    for i, block in enumerate(backbone.transformer_layers):
        x = intercept(block(x, decoder_padding_mask=padding_mask), i)
    logits = backbone.token_embedding(backbone.layer_norm(x), reverse=True)
    if scoring_mode == "logits":
        return logits
    return losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")(target_ids, logits)


class DecoderCausalLM(CausalLM):
    """Base class of the causal LMs whose backbone decodes with one grouped key/value cache (Llama, Mistral, Qwen).

    The backbone's hidden states go through the token embedding's reverse
    projection to next-token logits (the output embedding is the input one
    unless the backbone has `tie_word_embeddings=False`). `generate` fills a
    key/value cache `(batch, num_layers, 2, length, num_key_value_heads,
    head_dim)` with one pass over the prompt, then computes one token per
    step with the sampler chosen in `compile`. A family's class sets
    `backbone_cls` and `preprocessor_cls`.

    Args:
        backbone: The family's backbone (`token_embedding`,
            `transformer_layers`, `layer_norm`).
        preprocessor: The family's causal LM preprocessor, or `None` (the
            model then takes token ids). Defaults to `None`.
        **kwargs: `CausalLM` keyword arguments, such as `name`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM
        >>> issubclass(keras_hub.models.MistralCausalLM, DecoderCausalLM)
        True
    """

    def __init__(self, backbone: Any, preprocessor: Any = None, **kwargs: Any) -> None:
        self.backbone = backbone
        self.preprocessor = preprocessor
        inputs = backbone.input
        outputs = backbone.token_embedding(backbone(inputs), reverse=True)
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)

    def call_with_cache(self, token_ids: Any, cache: Any, cache_update_index: Any) -> tuple[Any, Any, Any]:
        """One forward pass that reads and updates the key/value cache.

        Args:
            token_ids: int `(batch, length)`: the tokens at positions
                `cache_update_index ...` of the sequence.
            cache: float `(batch, num_layers, 2, max_length,
                num_key_value_heads, head_dim)` as KerasHub has it, or a
                tuple of `(keys, values)` pairs, one a layer
                (`tfkit.hub.layers.kv_cache`).
            cache_update_index: The position of `token_ids[:, 0]` in the
                sequence.

        Returns:
            `(logits, hidden_states, cache)`, the cache in the form it came.
        """
        return call_with_cache(self.backbone, token_ids, cache, cache_update_index)

    def _build_cache(self, token_ids: Any, prefill_length: int | None = None) -> tuple[Any, Any]:
        """A zero cache the length of `token_ids`, filled by one pass over its first `prefill_length` positions
        (all for `None`): `(hidden_states, cache)`."""
        backbone = self.backbone
        head_dim = getattr(backbone, "head_dim", None) or backbone.hidden_dim // backbone.num_query_heads
        return prompt_cache(self, token_ids, backbone.num_key_value_heads, head_dim, prefill_length)

    def generate_step(
        self, inputs: dict[str, Any], stop_token_ids: Any = None, prefill_length: int | None = None
    ) -> dict[str, Any]:
        """Generates one batch (see `CausalLM.generate_step`); compiled by `make_generate_function`.

        Args:
            inputs: `{"token_ids", "padding_mask"}`, padded to the length to
                generate.
            stop_token_ids: Token ids that end a row, or `None`.
            prefill_length: How many positions the prompt pass covers
                (`tfkit.hub.models.prefill`); `None`, all of them.

        Returns:
            `{"token_ids", "padding_mask"}`: the completed rows and the mask
            of their tokens up to each row's first stop token.
        """
        return generate_with_cache(self, inputs, stop_token_ids, prefill_length)

    def score(
        self,
        token_ids: Any,
        padding_mask: Any = None,
        scoring_mode: str = "logits",
        layer_intercept_fn: Callable[[Any, int], Any] | None = None,
        target_ids: Any = None,
    ) -> tf.Tensor:
        """Scores token sequences: the logits at every position, or the loss of each target token.

        Args:
            token_ids: int `(batch, length)`, such as `generate`'s output
                preprocessed again.
            padding_mask: `(batch, length)` mask of the tokens. Defaults to
                `None` (all ones).
            scoring_mode: `"logits"` (the default) or `"loss"`.
            layer_intercept_fn: Optional `fn(x, i)` applied to the embeddings
                (`i = -1`) and to each block's output (`i = 0, 1, ...`),
                returning the tensor the next layer takes: a hook for
                interpretability. Defaults to `None`.
            target_ids: int `(batch, length)` of the tokens each position
                should predict; required for `"loss"`. Defaults to `None`.

        Returns:
            `(batch, length, vocabulary_size)` logits, or `(batch, length)`
            per-token losses.

        Raises:
            ValueError: If `scoring_mode` is neither `"logits"` nor `"loss"`,
                or it is `"loss"` without `target_ids`.
        """
        return score(self, token_ids, padding_mask, scoring_mode, layer_intercept_fn, target_ids)
