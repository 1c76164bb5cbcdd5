"""The character tokenizers and the vocabulary trainers of tfkit.hub.tokenizers, beside KerasHub's.

ByteTokenizer and UnicodeCodepointTokenizer give KerasHub's ids and text on Unicode (accents, CJK, emoji,
a character case folding changes the length of), ragged and padded, eagerly and in tf.data;
compute_word_piece_vocabulary gives KerasHub's vocabulary and compute_sentence_piece_proto its bytes.
"""

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import keras_hub

import tfkit.hub as tk_hub

TEXTS = ["Hé Straße", "世界 🙂", "", "ÅBC naïve"]
CORPUS = ["The quick brown fox jumps over the lazy dog.", "Héllo wörld, 世界 says hi!", "Tiny models talk; dogs run."]


def _lists(ids):
    return [np.asarray(row).tolist() for row in ids]


@pytest.mark.parametrize("name", ["ByteTokenizer", "UnicodeCodepointTokenizer"])
@pytest.mark.parametrize(
    "kwargs", [{}, {"lowercase": False}, {"sequence_length": 6}, {"normalization_form": "NFD"}], ids=str
)
def test_character_tokenizers_as_kerashubs(name, kwargs):
    ours, theirs = getattr(tk_hub.tokenizers, name)(**kwargs), getattr(keras_hub.tokenizers, name)(**kwargs)
    assert _lists(ours(TEXTS)) == _lists(theirs(TEXTS))
    assert np.asarray(ours("hi")).tolist() == np.asarray(theirs("hi")).tolist()
    assert ours.detokenize(ours(TEXTS)) == theirs.detokenize(theirs(TEXTS))
    config, reference = ours.get_config(), theirs.get_config()
    assert {k: v for k, v in config.items() if k != "dtype"} == {k: v for k, v in reference.items() if k != "dtype"}
    batches = tf.data.Dataset.from_tensor_slices(TEXTS).batch(2).map(ours)
    first = next(iter(batches))
    assert _lists(first if isinstance(first, tf.Tensor) else first.to_list()) == _lists(ours(TEXTS[:2]))


def test_byte_and_codepoint_ids_by_hand():
    assert np.asarray(tk_hub.tokenizers.ByteTokenizer()("é")).tolist() == [0xC3, 0xA9]
    assert np.asarray(tk_hub.tokenizers.UnicodeCodepointTokenizer()("é")).tolist() == [0xE9]
    clipped = tk_hub.tokenizers.UnicodeCodepointTokenizer(vocabulary_size=300)
    assert np.asarray(clipped("é世")).tolist() == [233, 299]
    assert tk_hub.tokenizers.ByteTokenizer().detokenize([[104, 255, 105, 0]]) == ["h\ufffdi"]
    with pytest.raises(ValueError, match="dtype=float32"):
        tk_hub.tokenizers.ByteTokenizer(dtype="float32")
    with pytest.raises(ValueError, match="normalization_form=NFX"):
        tk_hub.tokenizers.UnicodeCodepointTokenizer(normalization_form="NFX")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"vocabulary_size": 60},
        {"vocabulary_size": 80, "lowercase": True, "strip_accents": True},
        {"vocabulary_size": 50, "split_on_cjk": False, "reserved_tokens": ["[UNK]"]},
    ],
    ids=str,
)
def test_word_piece_vocabulary_as_kerashubs(kwargs):
    data = tf.data.Dataset.from_tensor_slices(CORPUS * 3)
    vocabulary = tk_hub.tokenizers.compute_word_piece_vocabulary(data, **kwargs)
    assert vocabulary == keras_hub.tokenizers.compute_word_piece_vocabulary(data, **kwargs)
    lowercase = kwargs.get("lowercase", False)
    ours = tk_hub.tokenizers.WordPieceTokenizer(vocabulary=vocabulary, lowercase=lowercase)
    theirs = keras_hub.tokenizers.WordPieceTokenizer(vocabulary=vocabulary, lowercase=lowercase)
    assert _lists(ours(CORPUS)) == _lists(theirs(CORPUS))


def test_word_piece_vocabulary_from_files_to_a_file(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(CORPUS * 3))
    out = tmp_path / "vocab.txt"
    assert tk_hub.tokenizers.compute_word_piece_vocabulary([str(corpus)], 40, vocabulary_output_file=str(out)) is None
    assert out.read_text().splitlines() == keras_hub.tokenizers.compute_word_piece_vocabulary([str(corpus)], 40)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "vocab.txt"]  # nothing else written
    with pytest.raises(ValueError, match="`split` must be `True`"):
        tk_hub.tokenizers.compute_word_piece_vocabulary([str(corpus)], 40, split=False)
    with pytest.raises(ValueError, match="must be either"):
        tk_hub.tokenizers.compute_word_piece_vocabulary("corpus.txt", 40)


@pytest.mark.parametrize("model_type, size", [("bpe", 60), ("char", 42), ("word", 20)])
def test_sentence_piece_proto_as_kerashubs(model_type, size, tmp_path):
    data = tf.data.Dataset.from_tensor_slices(CORPUS * 15)
    proto = tk_hub.tokenizers.compute_sentence_piece_proto(data, size, model_type=model_type, lowercase=True)
    assert proto == keras_hub.tokenizers.compute_sentence_piece_proto(data, size, model_type=model_type, lowercase=True)
    ours = tk_hub.tokenizers.SentencePieceTokenizer(proto=proto)
    theirs = keras_hub.tokenizers.SentencePieceTokenizer(proto=proto)
    assert np.asarray(ours("the quick dog")).tolist() == np.asarray(theirs("the quick dog")).tolist()
    written = tmp_path / "model.spm"
    assert tk_hub.tokenizers.compute_sentence_piece_proto(data, size, model_type, str(written), True) is None
    assert written.read_bytes() == proto


def test_sentence_piece_proto_refuses_clearly():
    data = tf.data.Dataset.from_tensor_slices(CORPUS * 15)
    with pytest.raises(ValueError, match="vocabulary_size=10"):
        tk_hub.tokenizers.compute_sentence_piece_proto(data, 10, model_type="bpe")
    with pytest.raises(ValueError, match="model_type=wordpiece"):
        tk_hub.tokenizers.compute_sentence_piece_proto(data, 60, model_type="wordpiece")
