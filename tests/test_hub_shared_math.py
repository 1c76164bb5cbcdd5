"""The math tfkit.hub's families share, each with one home: RMS norms, attention windows, vocabulary accessors.

Every family's RMS-norm layer computes ``rms_norm`` (checked against numpy,
float32 and bfloat16 inputs); the window masks of ``attention_masks`` against
a numpy rule; the three vocabulary tokenizers answer the accessors from the
base class, with one set of errors.
"""

import numpy as np
import pytest

import tfkit.hub as tk_hub
from tfkit.hub.layers.attention_masks import bidirectional_window_mask, sliding_window_mask, windowed_mask
from tfkit.hub.models.gemma.rms_normalization import RMSNormalization as GemmaRMSNormalization
from tfkit.hub.models.llama.llama_layernorm import LlamaLayerNorm
from tfkit.hub.models.mistral.mistral_layer_norm import MistralLayerNormalization
from tfkit.hub.models.qwen.qwen_layernorm import QwenLayerNorm
from tfkit.hub.models.qwen3.qwen3_layernorm import Qwen3LayerNorm

X = np.random.default_rng(0).normal(size=(2, 3, 8)).astype("float32")
SCALE = np.random.default_rng(1).normal(size=(8,)).astype("float32")


def numpy_rms_norm(x, scale, epsilon):
    x = x.astype("float64")
    return x / np.sqrt((x**2).mean(axis=-1, keepdims=True) + epsilon) * scale


@pytest.mark.parametrize(
    "make, offset",
    [
        (lambda: LlamaLayerNorm(epsilon=1e-5), 0.0),
        (lambda: MistralLayerNormalization(epsilon=1e-5), 0.0),
        (lambda: QwenLayerNorm(epsilon=1e-5), 0.0),
        (lambda: Qwen3LayerNorm(epsilon=1e-5), 0.0),
        (lambda: GemmaRMSNormalization(epsilon=1e-5), 1.0),
    ],
    ids=["llama", "mistral", "qwen", "qwen3", "gemma"],
)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_every_family_rms_norm_is_the_shared_math(make, offset, dtype):
    layer = make()
    layer = type(layer)(**{**layer.get_config(), "dtype": dtype})
    layer.build(X.shape)
    layer.scale.assign(SCALE - offset)  # Gemma's scale is an offset from one
    out = layer(X)
    assert out.dtype.name == dtype
    tolerance = 1e-5 if dtype == "float32" else 2e-2
    np.testing.assert_allclose(
        np.asarray(out, "float32"), numpy_rms_norm(X, SCALE, 1e-5), rtol=tolerance, atol=tolerance
    )


def test_the_public_rms_normalization_keeps_float32_and_its_fixed_epsilon():
    norm = tk_hub.layers.RMSNormalization(input_dim=8)
    norm.scale.assign(SCALE)
    out = norm(X)
    assert out.dtype.name == "float32"
    np.testing.assert_allclose(np.asarray(out), numpy_rms_norm(X, SCALE, 1e-6), rtol=1e-5, atol=1e-5)


def numpy_window(queries, keys, window, start, two_sided):
    position = np.arange(queries)[:, None] + start
    key = np.arange(keys)[None, :]
    mask = position - key < window
    return mask & (key - position < window) if two_sided else mask


@pytest.mark.parametrize("start", [0, 3])
@pytest.mark.parametrize("two_sided", [False, True])
def test_window_masks_follow_the_band_rule(start, two_sided):
    mine = sliding_window_mask(4, 9, window=3, cache_update_index=start, two_sided=two_sided)
    np.testing.assert_array_equal(np.asarray(mine), numpy_window(4, 9, 3, start, two_sided))
    padding = np.random.default_rng(2).random((2, 4, 9)) > 0.3
    narrowed = windowed_mask(padding, 4, 9, window=3, cache_update_index=start)
    np.testing.assert_array_equal(np.asarray(narrowed), padding & numpy_window(4, 9, 3, start, True)[None])


def test_the_centred_window_sees_half_before_and_half_after():
    mask = np.asarray(bidirectional_window_mask(2, 6, window=5))
    i, j = np.arange(6)[:, None], np.arange(6)[None, :]
    np.testing.assert_array_equal(mask, np.broadcast_to((i - j <= 2) & (i - j >= -2), (2, 6, 6)))


def tokenizers():
    word_piece = tk_hub.tokenizers.WordPieceTokenizer(vocabulary=["[PAD]", "[UNK]", "a", "b"], name="wp")
    byte_pair = tk_hub.tokenizers.BytePairTokenizer(vocabulary={"a": 0, "b": 1, "ab": 2}, merges=["a b"], name="bpe")
    return word_piece, byte_pair


def test_vocabulary_accessors_come_from_the_base_class_with_one_set_of_errors():
    word_piece, byte_pair = tokenizers()
    assert word_piece.get_vocabulary() == ["[PAD]", "[UNK]", "a", "b"] and word_piece.vocabulary_size() == 4
    assert byte_pair.get_vocabulary() == ["a", "b", "ab"] and byte_pair.vocabulary_size() == 3
    assert word_piece.id_to_token(2) == "a" and byte_pair.id_to_token(2) == "ab"
    assert word_piece.token_to_id(b"b") == 3 and byte_pair.token_to_id("ab") == 2
    for tokenizer, name in ((word_piece, "WordPieceTokenizer 'wp'"), (byte_pair, "BytePairTokenizer 'bpe'")):
        with pytest.raises(ValueError, match=f"{name}: id 7 is not in the vocabulary"):
            tokenizer.id_to_token(7)
        with pytest.raises(ValueError, match=f"{name}: token 'zz' is not in the vocabulary"):
            tokenizer.token_to_id("zz")
    empty = tk_hub.tokenizers.WordPieceTokenizer(name="empty")
    with pytest.raises(ValueError, match="'empty' has no vocabulary; pass `vocabulary` when creating it"):
        empty.vocabulary_size()
    with pytest.raises(NotImplementedError, match="has no vocabulary accessors"):
        tk_hub.tokenizers.Tokenizer().get_vocabulary()
