"""Target ``sentence_piece``: ``tfkit.hub.tokenizers.sentence_piece_model.check_model``, the check a SentencePiece
model passes before TensorFlow Text's kernel runs it.

Oracle: the kernel itself. Every model the check accepts is loaded by TensorFlow Text and tokenizes a probe of
every character of the Basic Multilingual Plane and beyond, and random bytes, in this process: a crash there
is libFuzzer's crash, the finding. The mutator mostly mutates the model's character maps (where the kernel's
unchecked reads are) inside an otherwise intact model, so inputs reach the trie walk instead of failing to parse.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

from fuzzing.target import Target, read_guarded, write_seeds

NAME = "fuzz-vocabulary.spm"
_PROBE: list = []


def _probe() -> list:
    if not _PROBE:
        rng = random.Random(0)
        _PROBE.extend(
            "".join(chr(c) for c in range(low, low + 1024) if not 0xD800 <= c < 0xE000).encode("utf-8")
            for low in range(1, 0x11000, 1024)
        )
        _PROBE.extend(bytes(rng.randrange(256) for _ in range(256)) for _ in range(8))
    return _PROBE


def mutate(data: bytes, max_size: int, seed: int) -> bytes:
    """libFuzzer's mutation of the whole model (one time in four), else of one of its character maps."""
    import atheris
    from sentencepiece import sentencepiece_model_pb2

    model = sentencepiece_model_pb2.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception:  # noqa: BLE001  not a model: mutate the bytes
        return atheris.Mutate(data, max_size)
    if seed % 4 == 0:
        return atheris.Mutate(data, max_size)
    spec = model.normalizer_spec if seed % 4 != 3 else model.denormalizer_spec
    spec.precompiled_charsmap = atheris.Mutate(spec.precompiled_charsmap, max(64, max_size // 2))
    return model.SerializeToString()[:max_size]


def check(data: bytes) -> None:
    import tensorflow as tf
    import tensorflow_text

    from tfkit.hub.tokenizers.sentence_piece_model import check_model

    accepted, _ = read_guarded(frozenset(), (), NAME, lambda: check_model(data, NAME))
    if not accepted:
        return
    # In a graph of its own, closed after: eager kernels keep each distinct model (50 KB a model, 10 GB a campaign)
    with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
        try:
            session.run(
                tensorflow_text.SentencepieceTokenizer(model=data).tokenize(tf.constant(_probe()))
            )  # a crash: the finding
        except (tf.errors.OpError, UnicodeDecodeError):  # the kernel refused it (its message quoting bytes that are
            return  # not UTF-8 fails to decode): an error, not a crash; tfkit reports either as ValueError


def _trained(**options: object) -> bytes:
    import sentencepiece

    model = io.BytesIO()
    text = ["the quick brown fox jumps over the lazy dog", "ｆｕｌｌ ｗｉｄｔｈ ① ﬁ Å", "héllo wörld, tiny models talk"]
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(text * 8), model_writer=model, minloglevel=2, hard_vocab_limit=False, **options
    )
    return model.getvalue()


def seeds(folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    rules = folder.parent / "rules.tsv"  # a few NFKC-like rules: a small character map (nmt_nfkc's is 240 KB)
    rules.write_text(
        "\n".join(f"{a}\t{b}" for a, b in (("FF41", "61"), ("FB01", "66 69"), ("2460", "31"), ("C5", "41 30A")))
    )
    try:
        named = [
            ("bpe-rules", _trained(model_type="bpe", vocab_size=60, normalization_rule_tsv=str(rules))),
            ("unigram-rules", _trained(model_type="unigram", vocab_size=60, normalization_rule_tsv=str(rules))),
            ("word-identity", _trained(model_type="word", vocab_size=20, normalization_rule_name="identity")),
            (
                "bpe-denormalizer",
                _trained(
                    model_type="bpe",
                    vocab_size=320,  # the 256 byte pieces and a few more
                    normalization_rule_tsv=str(rules),
                    denormalization_rule_tsv=str(rules),
                    byte_fallback=True,
                ),
            ),
        ]
    finally:
        rules.unlink()
    return write_seeds(folder, named)


def setup() -> None:
    import tensorflow_text  # noqa: F401  (imported before the guard is armed)

    import tfkit.hub.tokenizers.sentence_piece_model as checked

    checked._model_proto()  # sentencepiece's schema, imported now
    _probe()


TARGET = Target(
    name="sentence_piece",
    reader="tfkit.hub.tokenizers.sentence_piece_model.check_model (SentencePiece models before TensorFlow Text)",
    modules=("tfkit.hub.tokenizers.sentence_piece_model",),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=65536,
    timeout=60,
    suite_runs=150,
    mutator=mutate,
)
