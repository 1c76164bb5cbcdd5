"""Summarize with T5: a sequence-to-sequence model fine-tuned on raw text pairs, then `generate` (KerasHub's way, in tfkit).

    python examples/t5_summarization.py            # the full run: downloads KerasHub's T5-small preset
    python examples/t5_summarization.py --preset path/or/handle
    python examples/t5_summarization.py --small    # a quick check: a tiny RANDOM T5 made here, taught three
                                                   # summaries by heart (what the test suite runs)

The code is what a KerasHub user writes, with two imports changed:
``import tfkit as keras`` and ``import tfkit.hub as keras_hub``.
``T5Seq2SeqLM.from_preset`` loads the encoder-decoder backbone, the
SentencePiece tokenizer and the preprocessor, which packs
``{"encoder_text", "decoder_text"}`` string pairs (the decoder's input shifted
right by T5's start token, the labels its next tokens). ``fit`` trains on the
raw pairs; ``generate`` runs the encoder once, then decodes with a
self-attention cache and a cross-attention cache computed once, with the
sampler chosen in ``compile(sampler=...)``.

By default ``--preset`` is KerasHub's T5-small (multi-task) on Kaggle
(``kaggle://keras/t5/keras/t5_small_multi/2``): ``kagglehub`` downloads it
(``pip install kagglehub``). A local preset folder works too. The full run was
not measured here (no internet).

``--small`` downloads nothing. It trains a SentencePiece model on the
example's own texts, makes a tiny RANDOM T5 (2 layers, hidden 32), saves it as
a preset with ``save_to_preset`` and loads it back with ``from_preset``.
Random weights write random words, so the model first learns three
(document, summary) pairs by heart (300 steps of ``fit``: 12 epochs of the
pairs repeated 25 times): greedy
generation from each document must then give its summary, which the script
checks and reports (``memorized``, the fraction of documents whose summary
came out exactly).
"""

from __future__ import annotations

import argparse
import io
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tfkit as keras  # noqa: E402
import tfkit.hub as keras_hub  # noqa: E402

DEFAULT_PRESET = "kaggle://keras/t5/keras/t5_small_multi/2"
DOCUMENTS = [
    "summarize: the quick brown fox jumped over the lazy dog and ran into the green forest.",
    "summarize: a small cat slept all day on the warm mat near the kitchen window.",
    "summarize: once upon a time a tiny model learned to write short summaries of long sentences.",
]
SUMMARIES = ["the fox ran into the forest.", "a cat slept on the mat.", "a tiny model learned summaries."]


def sentence_piece_model(texts: list[str]) -> bytes:
    """A word-level SentencePiece model of ``texts`` with T5's special pieces: ``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2."""
    import sentencepiece  # the hub extra's: tfkit.hub reads SentencePiece models, this trains one

    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(texts),
        model_writer=model,
        vocab_size=len({word for text in texts for word in text.split()}) + 4,
        model_type="word",
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        pad_piece="<pad>",
        eos_piece="</s>",
        unk_piece="<unk>",
        hard_vocab_limit=False,  # every word of the texts, however many
        minloglevel=2,
    )
    return model.getvalue()


def small_preset(folder: str) -> str:
    """A tiny random T5 (2 layers, hidden 32, gated GELU feedforward) and its tokenizer, saved as a preset."""
    tokenizer = keras_hub.models.T5Tokenizer(proto=sentence_piece_model(DOCUMENTS + SUMMARIES))
    backbone = keras_hub.models.T5Backbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=2,
        num_heads=2,
        hidden_dim=32,
        intermediate_dim=64,
        dropout=0.0,
        activation="gelu",
    )
    preprocessor = keras_hub.models.T5Seq2SeqLMPreprocessor(
        tokenizer, encoder_sequence_length=24, decoder_sequence_length=12
    )
    keras_hub.models.T5Seq2SeqLM(backbone=backbone, preprocessor=preprocessor).save_to_preset(folder)
    return folder


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a tiny random T5 made here, no download")
    parser.add_argument("--preset", default=None, help=f"a preset folder or handle (default {DEFAULT_PRESET})")
    parser.add_argument("--epochs", type=int, default=None, help="epochs of fit on the pairs")
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(0)
    preset = args.preset or (small_preset("t5_tiny_preset") if args.small else DEFAULT_PRESET)
    epochs = args.epochs or (12 if args.small else 3)

    seq_2_seq_lm = keras_hub.models.T5Seq2SeqLM.from_preset(preset)
    print(f"loaded {preset}: {seq_2_seq_lm.backbone.count_params():,} parameters")
    copies = 25 if args.small else 1  # an epoch of 25 batches: a few hundred steps cost a dozen epochs' overhead
    pairs = {"encoder_text": DOCUMENTS * copies, "decoder_text": SUMMARIES * copies}
    # a tiny model learns fast; a pretrained one is fine-tuned gently. Greedy decoding: the summary, not a sample
    seq_2_seq_lm.compile(optimizer=keras.optimizers.Adam(3e-3 if args.small else 1e-4), sampler="greedy")
    start = time.perf_counter()
    history = seq_2_seq_lm.fit(pairs, batch_size=3, epochs=epochs, verbose=0)
    losses = history.history["loss"]
    print(f"fit: {epochs} epochs, loss {losses[0]:.3f} -> {losses[-1]:.3f}, {time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    outputs = seq_2_seq_lm.generate(DOCUMENTS, max_length=12)
    seconds = time.perf_counter() - start
    for document, summary in zip(DOCUMENTS, outputs):
        print(f"  {document!r}\n    -> {summary!r}")
    memorized = sum(output.strip() == expected for output, expected in zip(outputs, SUMMARIES)) / len(SUMMARIES)
    print(f"memorized: {memorized:.2f} ({len(DOCUMENTS)} documents summarized in {seconds:.1f} s)")
    if args.small and memorized < 1.0:
        raise SystemExit("the tiny T5 did not learn its three summaries")
    return {"first_loss": float(losses[0]), "last_loss": float(losses[-1]), "memorized": float(memorized)}


if __name__ == "__main__":
    main()
