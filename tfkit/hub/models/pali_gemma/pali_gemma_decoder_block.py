"""``PaliGemmaDecoderBlock``: Gemma's decoder layer with PaliGemma's prefix-LM mask (image and prompt see each other).

    block = PaliGemmaDecoderBlock(hidden_dim=2048, intermediate_dim=32768, head_dim=256,
                                  num_query_heads=8, num_key_value_heads=1)
    x = block(x, padding_mask=mask, response_mask=response)                  # x: image tokens, then text
    x, cache = block(x, cache=cache, cache_update_index=index)              # cached decoding: causal

The sequence is the image tokens, then the text. Every position attends to
the image tokens and to the prompt (``padding_mask`` true, ``response_mask``
false) in both directions; a response token (``response_mask`` true) attends
causally; other positions (padding) causally. Without a padding mask (decoding
steps) the mask is causal. Everything else is ``GemmaDecoderBlock``'s.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.kv_cache import cache_length
from tfkit.hub.layers.transformer_layer_utils import compute_causal_mask
from tfkit.hub.models.gemma.gemma_decoder_block import GemmaDecoderBlock


def _over_keys(mask: Any, key_length: Any, image_value: bool) -> tf.Tensor:
    """A text mask ``(batch, text)`` over all keys ``(batch, 1, key_length)``: ``image_value`` on the image tokens."""
    mask = tf.cast(mask, tf.bool)
    shape = tf.shape(mask)
    images = tf.fill([shape[0], key_length - shape[1]], image_value)
    return tf.concat([images, mask], axis=1)[:, tf.newaxis, :]


def prefix_lm_mask(
    batch: Any, length: Any, key_length: Any, padding_mask: Any, response_mask: Any, cache_update_index: Any = 0
) -> tf.Tensor:
    """PaliGemma's attention mask: bidirectional over image and prompt, causal elsewhere (bool ``(b, t, keys)``).

    Args:
        batch: The number of sequences.
        length: The number of query positions.
        key_length: The number of keys (image tokens plus text, or the cache's length).
        padding_mask: `(batch, text)` mask of the image-and-prompt block's text
            tokens (with `response_mask`: the real tokens), or `None` (causal).
        response_mask: `(batch, text)` mask of the response tokens, or `None`.
        cache_update_index: The position of the first query. Defaults to `0`.

    Returns:
        The boolean mask.

    Example:
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_decoder_block import prefix_lm_mask
        >>> mask = prefix_lm_mask(1, 4, 4, np.array([[1, 1, 1]]), np.array([[0, 1, 1]]))  # 1 image token
        >>> mask.numpy()[0].astype(int).tolist()
        [[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]
    """
    causal = compute_causal_mask(batch, key_length, length, cache_index=cache_update_index)
    if padding_mask is None:
        return causal
    block = _over_keys(padding_mask, key_length, True)
    if response_mask is not None:
        response = _over_keys(response_mask, key_length, False)
        causal = tf.logical_and(causal, response)
        block = tf.logical_and(block, tf.logical_not(response))
    return tf.logical_or(block, causal)


class PaliGemmaDecoderBlock(GemmaDecoderBlock):
    """PaliGemma mixed decoder block: `GemmaDecoderBlock` with the prefix-LM attention mask.

    The image tokens come first. They and the prompt's tokens attend to each
    other in both directions; response tokens (`response_mask`) attend
    causally. The weights and every other computation are Gemma's (as in
    KerasHub, where the class is not exported).

    Args:
        hidden_dim: Integer, the size of the hidden states.
        intermediate_dim: Integer, twice the width of the gated feedforward
            network.
        head_dim: Integer, the size of each attention head.
        num_query_heads: Integer, the number of query heads.
        num_key_value_heads: Integer, the number of key and value heads.
        **kwargs: `GemmaDecoderBlock` keyword arguments (`query_head_dim_normalize`,
            `use_post_ffw_norm`, `use_post_attention_norm`, `logit_soft_cap`,
            `use_sliding_window_attention`, `sliding_window_size`,
            `layer_norm_epsilon`, `dropout`, `name`, `dtype`).

    Call arguments:
        x: Image tokens then text, `(batch, length, hidden_dim)`.
        padding_mask: Optional `(batch, text_length)` mask of real text tokens.
        response_mask: Optional `(batch, text_length)` mask of response tokens.
        cache: Optional key/value cache of the attention layer.
        cache_update_index: The position of `x[:, 0]`. Defaults to `0`.

    Returns:
        The output sequence, and the updated cache when a cache is given.

    Example:
        >>> from tfkit.hub.models.pali_gemma.pali_gemma_decoder_block import PaliGemmaDecoderBlock
        >>> block = PaliGemmaDecoderBlock(hidden_dim=8, intermediate_dim=16, head_dim=4, num_query_heads=2,
        ...     num_key_value_heads=1)
        >>> x = np.random.rand(1, 5, 8).astype("float32")  # 2 image tokens, 3 text tokens
        >>> block(x, padding_mask=np.ones((1, 3)), response_mask=np.array([[0, 1, 1]])).shape
        TensorShape([1, 5, 8])
    """

    _shape_free_call_arguments = ("padding_mask", "response_mask")

    def _compute_attention_mask(
        self, x: tf.Tensor, padding_mask: Any, cache: Any, cache_update_index: Any, response_mask: Any = None
    ) -> tf.Tensor:
        key_length = cache_length(cache) if cache is not None else tf.shape(x)[1]
        shape = tf.shape(x)
        return prefix_lm_mask(shape[0], shape[1], key_length, padding_mask, response_mask, cache_update_index)

    @tf.autograph.experimental.do_not_convert
    def call(
        self,
        x: tf.Tensor,
        padding_mask: Any = None,
        response_mask: Any = None,
        cache: Any = None,
        cache_update_index: Any = 0,
    ) -> Any:
        return self._masked_call(x, cache, cache_update_index, padding_mask, response_mask)
