"""tfkit.hub's tokenizers against KerasHub 0.32's: the same ids and text, in tf.data and in a SavedModel.

Small vocabularies are made here: a WordPiece list by hand, a GPT-2-style
byte-level BPE trained by Hugging Face ``tokenizers`` and SentencePiece models
trained by ``sentencepiece``, on a few lines. KerasHub's tokenizers are the
reference; their TensorFlow path (what ``tf.data`` runs) is read through
``tf.data.Dataset.map``. A SavedModel exported from tfkit's tokenizers is
loaded in a process that imports TensorFlow and TensorFlow Text only.
"""

import io
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.base import safe_mode

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
pytest.importorskip("tensorflow_text")
keras_hub = pytest.importorskip("keras_hub")
keras = pytest.importorskip("keras")
hf_tokenizers = pytest.importorskip("tokenizers")
sentencepiece = pytest.importorskip("sentencepiece")

import tfkit.hub.tokenizers as hub_tokenizers  # noqa: E402

CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "Héllo wörld, café naïve résumé!",
    "東京は日本の首都です。中文测试",
    "emoji 😀🎉 party 🚀!",
    "tabs\tand\nnewlines  double  spaces   ",
    "x\u00a0y\u3000z\u2009w\u202fv",
    "it's IT'S they'll 12345 3.14 $5",
    "",
    " ",
    "hello<|endoftext|>world <|endoftext|> [CLS] the fox [SEP]<special>",
    "\n\nhello\r\n",
    "Zero\u200bwidth and soft\u00adhyphen",
]
TRAINING_TEXT = CORPUS + [
    "the quick brown fox, the lazy dog and the café",
    "hello world, hello tfkit; numbers 2024 and 3.14159",
]


# ------------------------------------------------------------------ vocabularies


@pytest.fixture(scope="module")
def word_piece_vocabulary():
    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "<special>", "the", "qu", "##ick", "br", "##own"]
    pieces += ["fox", "lazy", "dog", "he", "##llo", "hello", "world", "caf", "##e", "##é", "cafe", "café", "naive"]
    pieces += ["Héllo", "The", "it", "'", "s", "##s", "tab", "and", "new", "##lines", "東", "京", "は", "😀", "!"]
    pieces += [".", ",", "$", "5", "3", "##4", "##1", "x", "y", "z", "w", "v", "zero", "width", "soft", "##hyphen"]
    return pieces


@pytest.fixture(scope="module")
def byte_pair_assets():
    """A GPT-2-style byte-level vocabulary (all 256 byte characters) and merges, trained on the lines above."""
    model = hf_tokenizers.Tokenizer(hf_tokenizers.models.BPE())
    model.pre_tokenizer = hf_tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = hf_tokenizers.trainers.BpeTrainer(
        vocab_size=600,
        initial_alphabet=hf_tokenizers.pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    model.train_from_iterator(TRAINING_TEXT * 3, trainer)
    saved = json.loads(model.to_str())["model"]
    merges = [" ".join(m) if isinstance(m, list) else m for m in saved["merges"]]
    assert len(merges) > 100  # merges across letters, digits, spaces and UTF-8 bytes
    return saved["vocab"], merges


def _train_sentence_piece(model_type, **options):
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(TRAINING_TEXT * 20),
        model_writer=model,
        model_type=model_type,
        vocab_size=90 if model_type == "unigram" else 420,
        hard_vocab_limit=False,
        user_defined_symbols=["<special>"],
        minloglevel=2,
        **options,
    )
    return model.getvalue()


@pytest.fixture(scope="module")
def sentence_piece_protos():
    return {"unigram": _train_sentence_piece("unigram"), "bpe": _train_sentence_piece("bpe", byte_fallback=True)}


# ------------------------------------------------------------------ KerasHub's outputs


def keras_hub_in_tf_data(layer, inputs):
    """KerasHub's TensorFlow path: ``layer`` mapped over one batch of ``inputs`` in ``tf.data``."""
    batch = next(iter(tf.data.Dataset.from_tensors(inputs).map(layer)))
    if isinstance(batch, tf.RaggedTensor):
        batch = batch.to_list()
    else:
        batch = batch.numpy().tolist()
    return _text(batch)


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="ignore")
    if isinstance(value, list):
        return [_text(item) for item in value]
    return value


def both(cls_name, **kwargs):
    """tfkit's tokenizer and KerasHub's, built with the same arguments."""
    return getattr(hub_tokenizers, cls_name)(**kwargs), getattr(keras_hub.tokenizers, cls_name)(**kwargs)


def assert_same_tokenizer(mine, reference, texts=CORPUS):
    """Ids (ragged), detokenized text, and the vocabulary equal KerasHub's TensorFlow path."""
    ids = mine(texts)
    assert ids == keras_hub_in_tf_data(reference, tf.constant(texts))
    text = mine.detokenize(ids)
    assert text == keras_hub_in_tf_data(reference.detokenize, tf.ragged.constant(ids, dtype=tf.int32))
    assert list(mine.get_vocabulary()) == list(reference.get_vocabulary())
    assert mine.vocabulary_size() == reference.vocabulary_size()
    return ids, text


# ------------------------------------------------------------------ WordPiece


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"lowercase": True, "strip_accents": True},
        {"lowercase": True, "special_tokens": ["[CLS]", "[SEP]", "<special>"], "special_tokens_in_strings": True},
        {"split_on_cjk": False, "suffix_indicator": "##", "oov_token": "[MASK]"},
    ],
    ids=["plain", "lowercase-strip-accents", "special-tokens-in-strings", "no-cjk-split"],
)
def test_word_piece_ids_and_text_equal_keras_hub(word_piece_vocabulary, options):
    mine, reference = both("WordPieceTokenizer", vocabulary=word_piece_vocabulary, **options)
    ids, _ = assert_same_tokenizer(mine, reference)
    assert ids == reference(CORPUS)  # KerasHub's eager path agrees here
    assert ids[7] == [] and ids[8] == []  # empty and blank strings have no tokens
    dense = hub_tokenizers.WordPieceTokenizer(vocabulary=word_piece_vocabulary, sequence_length=6, **options)(CORPUS)
    assert isinstance(dense, tf.Tensor) and dense.dtype == tf.int32
    np.testing.assert_array_equal(dense, padded(ids, 6, 0))
    words = hub_tokenizers.WordPieceTokenizer(vocabulary=word_piece_vocabulary, dtype="string", **options)(CORPUS)
    assert words == [[word_piece_vocabulary[i] for i in row] for row in ids]


def padded(rows, length, value):
    """Rows cut or padded with ``value`` to ``length``, by numpy."""
    out = np.full((len(rows), length), value, dtype=object if isinstance(value, str) else np.int32)
    for i, row in enumerate(rows):
        out[i, : min(len(row), length)] = row[:length]
    return out


def test_word_piece_by_hand():
    vocab = ["[UNK]", "the", "qu", "##ick", "br", "##own", "fox", "."]
    tokenizer = hub_tokenizers.WordPieceTokenizer(vocabulary=vocab, lowercase=True)
    assert tokenizer("The quick brown fox.").numpy().tolist() == [1, 2, 3, 4, 5, 6, 7]  # a string: one dense row
    assert tokenizer([["The fox", "quick"], ["brown", "xyz"]]) == [[[1, 6], [2, 3]], [[4, 5], [0]]]
    assert tokenizer.detokenize(tf.constant([[1, 2, 3], [6, 7, 0]])) == ["the quick", "fox . [UNK]"]
    assert tokenizer.detokenize(6) == "fox"
    presplit = hub_tokenizers.WordPieceTokenizer(vocabulary=vocab, split=False, dtype="string")
    assert presplit(tf.strings.split("the$quick$fox", sep="$")) == ["the", "qu", "##ick", "fox"]
    assert tokenizer.id_to_token(3) == "##ick" and tokenizer.token_to_id("fox") == 6


def test_word_piece_special_tokens_of_a_subclass_equal_bert(word_piece_vocabulary):
    class BertLikeTokenizer(hub_tokenizers.WordPieceTokenizer):
        def __init__(self, vocabulary=None, lowercase=False, **kwargs):
            self._add_special_token("[CLS]", "cls_token")
            self._add_special_token("[SEP]", "sep_token")
            self._add_special_token("[PAD]", "pad_token")
            self._add_special_token("[MASK]", "mask_token")
            super().__init__(vocabulary=vocabulary, lowercase=lowercase, **kwargs)

    mine = BertLikeTokenizer(vocabulary=word_piece_vocabulary, lowercase=True, special_tokens_in_strings=True)
    reference = keras_hub.models.BertTokenizer(
        vocabulary=word_piece_vocabulary, lowercase=True, special_tokens_in_strings=True
    )
    assert_same_tokenizer(mine, reference)
    assert (mine.cls_token_id, mine.sep_token_id, mine.pad_token_id) == (2, 3, 0)
    assert sorted(mine.special_tokens) == sorted(reference.special_tokens)
    assert sorted(mine.special_token_ids) == sorted(reference.special_token_ids)
    with pytest.raises(ValueError, match=r"special token '\[CLS\]' \(cls_token\) is not in the vocabulary"):
        BertLikeTokenizer(vocabulary=["[UNK]", "[SEP]", "[PAD]", "[MASK]"])


# ------------------------------------------------------------------ byte-pair


def test_byte_pair_ids_and_text_equal_keras_hub(byte_pair_assets):
    vocab, merges = byte_pair_assets
    options = {"vocabulary": vocab, "merges": merges, "unsplittable_tokens": ["<|endoftext|>"]}
    mine, reference = both("BytePairTokenizer", **options)
    ids, text = assert_same_tokenizer(mine, reference)
    assert text == CORPUS  # byte-level BPE is reversible
    assert ids[9].count(vocab["<|endoftext|>"]) == 2
    assert ids[7] == []
    np.testing.assert_array_equal(
        hub_tokenizers.BytePairTokenizer(sequence_length=10, **options)(CORPUS), padded(ids, 10, 0)
    )
    tokens = hub_tokenizers.BytePairTokenizer(dtype="string", **options)(CORPUS)
    token_of = {index: token for token, index in vocab.items()}
    assert tokens == [[token_of[i] for i in row] for row in ids]
    prefixed_mine, prefixed_reference = both("BytePairTokenizer", add_prefix_space=True, **options)
    assert prefixed_mine(CORPUS) == keras_hub_in_tf_data(prefixed_reference, tf.constant(CORPUS))


def test_byte_pair_by_hand():
    merges = ["b u", "t t", "e r", "bu tt", "butt er", "f l", "fl y"]
    tokens = sorted({t for m in merges for t in (*m.split(" "), m.replace(" ", ""))})
    vocab = {token: i for i, token in enumerate(tokens)}
    tokenizer = hub_tokenizers.BytePairTokenizer(vocab, merges)
    assert tokenizer("butterfly").numpy().tolist() == [vocab["butter"], vocab["fly"]]
    assert tokenizer(["butterfly", "butter", ""]) == [[3, 8], [3], []]
    assert tokenizer.detokenize([[3, 8], [3]]) == ["butterfly", "butter"]
    assert tokenizer.id_to_token(8) == "fly" and tokenizer.token_to_id("butter") == 3


def test_byte_pair_text_like_keras_hub_placeholders_stays_text(byte_pair_assets):
    """KerasHub writes special tokens as "ĴA" while splitting, so its own text "ĴA" became "<|endoftext|>"."""
    vocab, merges = byte_pair_assets
    tokenizer = hub_tokenizers.BytePairTokenizer(vocab, merges, unsplittable_tokens=["<|endoftext|>"])
    plain = hub_tokenizers.BytePairTokenizer(vocab, merges)
    ids = tokenizer("ĴA <|endoftext|>").numpy().tolist()
    assert ids == plain("ĴA ").numpy().tolist() + [vocab["<|endoftext|>"]]
    assert tokenizer.detokenize(ids) == "ĴA <|endoftext|>"


# ------------------------------------------------------------------ SentencePiece


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
def test_sentence_piece_ids_and_text_equal_keras_hub(sentence_piece_protos, model_type):
    proto = sentence_piece_protos[model_type]
    mine, reference = both("SentencePieceTokenizer", proto=proto)
    ids, _ = assert_same_tokenizer(mine, reference)
    assert ids == reference(CORPUS)  # KerasHub's eager path (the sentencepiece package) agrees
    assert mine.token_to_id("<special>") == reference.token_to_id("<special>")
    assert mine.token_to_id("not a piece") == reference.token_to_id("not a piece") == 0  # the unknown piece
    assert [mine.id_to_token(i) for i in range(5)] == [reference.id_to_token(i) for i in range(5)]
    options = {"proto": proto, "sequence_length": 12, "add_bos": True, "add_eos": True}
    dense_mine, dense_reference = both("SentencePieceTokenizer", **options)
    assert dense_mine(CORPUS).numpy().tolist() == keras_hub_in_tf_data(dense_reference, tf.constant(CORPUS))
    pieces = hub_tokenizers.SentencePieceTokenizer(proto=proto, dtype="string")(CORPUS)
    assert pieces == [[reference.id_to_token(i) for i in row] for row in ids]


# ------------------------------------------------------------------ tf.data and SavedModel


@pytest.fixture(scope="module")
def tokenizers(word_piece_vocabulary, byte_pair_assets, sentence_piece_protos):
    vocab, merges = byte_pair_assets
    return {
        "word_piece": hub_tokenizers.WordPieceTokenizer(vocabulary=word_piece_vocabulary, lowercase=True),
        "byte_pair": hub_tokenizers.BytePairTokenizer(vocab, merges, unsplittable_tokens=["<|endoftext|>"]),
        "sentence_piece": hub_tokenizers.SentencePieceTokenizer(proto=sentence_piece_protos["unigram"]),
    }


@pytest.mark.parametrize("name", ["word_piece", "byte_pair", "sentence_piece"])
def test_tokenizers_run_in_tf_data_map(tokenizers, name):
    tokenizer = tokenizers[name]
    expected = tokenizer(CORPUS)
    batched = tf.data.Dataset.from_tensor_slices(CORPUS).batch(5).map(tokenizer)
    assert sum((batch.to_list() for batch in batched), []) == expected
    one_by_one = tf.data.Dataset.from_tensor_slices(CORPUS).map(tokenizer)  # scalar strings: one dense row each
    assert [ids.numpy().tolist() for ids in one_by_one] == expected
    ragged_ids = tf.data.Dataset.from_tensor_slices(tf.ragged.constant(expected, dtype=tf.int32)).batch(4)
    text = [s.decode("utf-8") for batch in ragged_ids.map(tokenizer.detokenize) for s in batch.numpy()]
    assert text == tokenizer.detokenize(expected)


def test_saved_model_serves_without_tfkit(tokenizers, tmp_path):
    """Strings in, ids out, and ids in, strings out, in a process that imports TensorFlow Text and not tfkit."""

    class Serving(tf.Module):
        def __init__(self, tokenizer):
            super().__init__()
            self.tokenizer = tokenizer

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def tokenize(self, text):
            ids = self.tokenizer(text)
            return {"ids": ids.flat_values, "row_lengths": ids.row_lengths()}

        @tf.function(input_signature=[tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.int64)])
        def detokenize(self, ids, row_lengths):
            return {"text": self.tokenizer.detokenize(tf.RaggedTensor.from_row_lengths(ids, row_lengths))}

    expected = {}
    for name, tokenizer in tokenizers.items():
        module = Serving(tokenizer)
        tf.saved_model.save(
            module, str(tmp_path / name), signatures={"tokenize": module.tokenize, "detokenize": module.detokenize}
        )
        ids = tokenizer(CORPUS)
        expected[name] = {"ids": ids, "text": tokenizer.detokenize(ids)}
    script = textwrap.dedent(
        """
        import json, sys
        import tensorflow as tf
        import tensorflow_text  # registers the kernels the SavedModels use
        folder, corpus, out = sys.argv[1], json.loads(sys.argv[2]), {}
        for name in ("word_piece", "byte_pair", "sentence_piece"):
            loaded = tf.saved_model.load(f"{folder}/{name}")
            tokens = loaded.signatures["tokenize"](tf.constant(corpus))
            ids = tf.RaggedTensor.from_row_lengths(tokens["ids"], tokens["row_lengths"])
            text = loaded.signatures["detokenize"](ids=tokens["ids"], row_lengths=tokens["row_lengths"])["text"]
            out[name] = {"ids": ids.to_list(), "text": [t.decode("utf-8", "ignore") for t in text.numpy()]}
        assert "tfkit" not in sys.modules
        print(json.dumps(out))
        """
    )
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path), json.dumps(CORPUS)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == expected


# ------------------------------------------------------------------ files and configs


@pytest.fixture(scope="module")
def pairs(word_piece_vocabulary, byte_pair_assets, sentence_piece_protos):
    """tfkit's and KerasHub's tokenizer of each kind, with the same vocabulary and options."""
    vocab, merges = byte_pair_assets
    return {
        "WordPieceTokenizer": {
            "vocabulary": word_piece_vocabulary,
            "lowercase": True,
            "strip_accents": True,
            "sequence_length": 9,
        },
        "BytePairTokenizer": {"vocabulary": vocab, "merges": merges, "unsplittable_tokens": ["<|endoftext|>"]},
        "SentencePieceTokenizer": {"proto": sentence_piece_protos["bpe"], "add_bos": True},
    }


ASSET_FILES = {
    "WordPieceTokenizer": ["vocabulary.txt"],
    "BytePairTokenizer": ["merges.txt", "vocabulary.json"],
    "SentencePieceTokenizer": ["vocabulary.spm"],
}


def _ids(tokenizer, texts=CORPUS):
    ids = tokenizer(texts)
    return ids.numpy().tolist() if hasattr(ids, "numpy") else ids


@pytest.mark.parametrize("cls_name", list(ASSET_FILES))
def test_assets_round_trip_and_load_in_keras_hub(pairs, cls_name, tmp_path):
    options = pairs[cls_name]
    mine, reference = both(cls_name, **options)
    (tmp_path / "tfkit").mkdir()
    (tmp_path / "keras_hub").mkdir()
    mine.save_assets(str(tmp_path / "tfkit"))
    reference.save_assets(str(tmp_path / "keras_hub"))
    assert sorted(os.listdir(tmp_path / "tfkit")) == sorted(os.listdir(tmp_path / "keras_hub")) == ASSET_FILES[cls_name]
    for name in ASSET_FILES[cls_name]:
        assert (tmp_path / "tfkit" / name).read_bytes() == (tmp_path / "keras_hub" / name).read_bytes()
    config = {key: value for key, value in options.items() if key not in ("vocabulary", "merges", "proto")}
    reloaded = getattr(hub_tokenizers, cls_name)(**config)
    reloaded.load_assets(str(tmp_path / "tfkit"))
    from_keras_hub = getattr(hub_tokenizers, cls_name)(**config)
    from_keras_hub.load_assets(str(tmp_path / "keras_hub"))
    keras_hub_reader = getattr(keras_hub.tokenizers, cls_name)(**config)
    keras_hub_reader.load_assets(str(tmp_path / "tfkit"))
    expected = _ids(mine)
    assert _ids(reloaded) == _ids(from_keras_hub) == expected
    assert keras_hub_in_tf_data(keras_hub_reader, tf.constant(CORPUS)) == expected


@pytest.mark.parametrize("cls_name", list(ASSET_FILES))
def test_config_round_trip(pairs, cls_name, tmp_path):
    options = pairs[cls_name]
    mine, reference = both(cls_name, name="tok", **options)
    config = mine.get_config()
    expected_keys = set(reference.get_config()) | ({"split_on_cjk"} if cls_name == "WordPieceTokenizer" else set())
    assert set(config) == expected_keys  # KerasHub's keys (WordPiece: plus split_on_cjk, which KerasHub drops)
    for key, value in reference.get_config().items():
        if key != "dtype":
            assert config[key] == value, key
    rebuilt = type(mine).from_config(config)
    rebuilt.load_assets(_saved_assets(mine, tmp_path))
    assert rebuilt.get_config() == config and _ids(rebuilt) == _ids(mine)
    serialized = tfkit.saving.serialize(mine)
    assert serialized["registered_name"] == f"keras_hub>{cls_name}"
    assert tfkit.saving.deserialize(json.loads(json.dumps(serialized))).get_config() == config


def _saved_assets(tokenizer, tmp_path):
    folder = tmp_path / "assets"
    folder.mkdir(exist_ok=True)
    tokenizer.save_assets(str(folder))
    return str(folder)


@pytest.mark.parametrize("cls_name", list(ASSET_FILES))
def test_presets_both_ways(pairs, cls_name, tmp_path):
    mine, reference = both(cls_name, **pairs[cls_name])
    mine.save_to_preset(str(tmp_path / "tfkit"))
    entry = json.loads((tmp_path / "tfkit" / "tokenizer.json").read_text())
    assert entry["registered_name"] == f"keras_hub>{cls_name}"
    in_keras_hub = keras.saving.deserialize_keras_object(entry)
    in_keras_hub.load_preset_assets(str(tmp_path / "tfkit"))
    assert type(in_keras_hub) is type(reference)
    assert keras_hub_in_tf_data(in_keras_hub, tf.constant(CORPUS)) == _ids(mine)
    reference.save_to_preset(str(tmp_path / "keras_hub"))
    in_tfkit = hub_tokenizers.Tokenizer.from_preset(str(tmp_path / "keras_hub"))
    assert type(in_tfkit) is type(mine)
    assert _ids(in_tfkit) == _ids(mine)


def test_vocabulary_file_in_a_config_is_refused_in_safe_mode(word_piece_vocabulary, tmp_path):
    path = tmp_path / "vocabulary.txt"
    path.write_text("\n".join(word_piece_vocabulary) + "\n", encoding="utf-8")
    config = hub_tokenizers.WordPieceTokenizer(vocabulary=str(path)).get_config()
    config["vocabulary"] = str(path)
    with pytest.raises(ValueError, match="names a file .* refused in safe mode"):
        hub_tokenizers.WordPieceTokenizer.from_config(config)
    with safe_mode.scope(False):
        loaded = hub_tokenizers.WordPieceTokenizer.from_config(config)
    assert loaded.get_vocabulary() == word_piece_vocabulary


# ------------------------------------------------------------------ errors


def test_errors_name_the_tokenizer_and_the_argument(byte_pair_assets, tmp_path):
    with pytest.raises(ValueError, match=r"dtype must be an integer type or 'string', got dtype='float32'"):
        hub_tokenizers.WordPieceTokenizer(vocabulary=["[UNK]"], dtype="float32")
    with pytest.raises(ValueError, match=r"WordPieceTokenizer 'wp': vocabulary has no oov_token '\[UNK\]'"):
        hub_tokenizers.WordPieceTokenizer(vocabulary=["a", "b"], name="wp")
    vocab, merges = byte_pair_assets
    with pytest.raises(ValueError, match=r"merge rule 'Ġ nowhere' names token 'Ġ' or 'nowhere'"):
        hub_tokenizers.BytePairTokenizer(vocab, merges + ["Ġ nowhere"])
    with pytest.raises(ValueError, match=r"merge rule 'a b c' must be two tokens"):
        hub_tokenizers.BytePairTokenizer(vocab, ["a b c"])
    with pytest.raises(ValueError, match="expected a mapping from token strings to integer ids from 0 to"):
        hub_tokenizers.BytePairTokenizer({"a": "zero"}, [])
    with pytest.raises(ValueError, match="BytePairTokenizer 'bpe' has no vocabulary"):
        hub_tokenizers.BytePairTokenizer(name="bpe")("text")
    with pytest.raises(ValueError, match="expected strings to tokenize, got a tensor of dtype int32"):
        hub_tokenizers.BytePairTokenizer(vocab, merges)([1, 2])
    bad = tmp_path / "bad.spm"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="`proto` is not a SentencePiece model"):
        hub_tokenizers.SentencePieceTokenizer(proto=str(bad))
    with pytest.raises(ValueError, match=r"cannot read file '.*missing.txt'"):
        hub_tokenizers.WordPieceTokenizer(vocabulary=str(tmp_path / "missing.txt"))


def test_missing_tensorflow_text_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow_text", None)  # "import tensorflow_text" now raises ImportError
    with pytest.raises(ImportError, match=r"WordPieceTokenizer needs tensorflow-text.*pip install tfkit\[hub\]"):
        hub_tokenizers.WordPieceTokenizer(vocabulary=["[UNK]"])


# ------------------------------------------------------------------ the tokenizers namespace


def test_every_family_tokenizer_is_also_in_the_tokenizers_namespace_as_in_keras_hub():
    import tfkit.hub as hub

    family = {name for name in dir(keras_hub.tokenizers) if name.endswith("Tokenizer") and hasattr(hub.models, name)}
    assert {"GPT2Tokenizer", "BertTokenizer", "Llama3Tokenizer", "GemmaTokenizer", "Qwen2Tokenizer"} <= family
    for name in family:
        assert getattr(hub.tokenizers, name) is getattr(hub.models, name), name
        assert name in hub.tokenizers.__all__


def test_sentence_piece_keeps_working_after_the_seed_is_set(sentence_piece_protos, tmp_path):
    # setting a seed clears TensorFlow's eager kernel cache, which owned TensorFlow Text's model resource
    tokenizer = hub_tokenizers.SentencePieceTokenizer(proto=sentence_piece_protos["bpe"])
    traced = tf.function(lambda text: tokenizer(text).to_tensor())
    before, before_traced = tokenizer(["the quick fox"]), traced(tf.constant(["the quick fox"])).numpy()
    tfkit.utils.set_random_seed(0)
    tf.random.set_seed(1)
    assert tokenizer(["the quick fox"]) == before
    np.testing.assert_array_equal(traced(tf.constant(["the quick fox"])), before_traced)
    assert tokenizer.detokenize(before) == ["the quick fox"]

    class Exported(tf.Module):
        def __init__(self) -> None:
            self.tokenizer = tokenizer

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def __call__(self, text):
            return self.tokenizer(text).to_tensor()

    tf.saved_model.save(Exported(), str(tmp_path / "exported"))
    loaded = tf.saved_model.load(str(tmp_path / "exported"))
    tfkit.utils.set_random_seed(2)
    np.testing.assert_array_equal(loaded(tf.constant(["the quick fox"])), before_traced)
