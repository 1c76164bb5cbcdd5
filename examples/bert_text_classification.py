"""Fine-tune a pretrained BERT classifier on raw strings (KerasHub's "BERT text classification", in tfkit).

    python examples/bert_text_classification.py           # the full run: downloads KerasHub's
                                                          # bert_tiny_en_uncased, 4,000 reviews, 2 epochs
    python examples/bert_text_classification.py --preset path/or/handle
    python examples/bert_text_classification.py --small   # a quick check: a tiny RANDOM BERT made here,
                                                          # 800 reviews, 5 epochs (what the test suite runs)

The code is what a KerasHub user writes, with two imports changed:
``import tfkit as keras`` and ``import tfkit.hub as keras_hub``. A
``BertTextClassifier`` comes from a preset with a new two-class head
(``num_classes=2``); its preprocessor tokenizes and packs the raw strings
inside ``tf.data``, so ``fit``, ``evaluate`` and ``predict`` take strings.

By default ``--preset`` is KerasHub's ``bert_tiny_en_uncased`` on Kaggle
(``kaggle://keras/bert/keras/bert_tiny_en_uncased/3``, 4.4M parameters), which
``kagglehub`` downloads (``pip install kagglehub``); any KerasHub BERT preset
folder or Hugging Face BERT checkpoint works too. ``--small`` downloads
nothing: it makes a tiny RANDOM BERT itself (2 layers, hidden 32, a WordPiece
vocabulary of the training texts' words), saves it as a preset with
``save_to_preset`` in the working folder, and fine-tunes that. With random
weights nothing is "pretrained", but the model still learns the task well
above chance.

The reviews are SYNTHETIC (there is no internet or IMDB copy here): a seeded
generator writes short "movie reviews" from positive and negative words, with
negations ("not great") and neutral filler; 3% of the labels are flipped.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfkit as keras  # noqa: E402
import tfkit.hub as keras_hub  # noqa: E402

DEFAULT_PRESET = "kaggle://keras/bert/keras/bert_tiny_en_uncased/3"
POSITIVE = ["great", "excellent", "wonderful", "brilliant", "superb", "moving", "charming", "clever", "fun"]
NEGATIVE = ["awful", "boring", "terrible", "dull", "bad", "messy", "predictable", "bland", "tedious"]
NOUNS = ["movie", "film", "plot", "acting", "script", "story", "ending", "cast", "dialogue", "pacing"]
FILLER = [
    "I saw it on a rainy {day}.",
    "We watched the {noun} at home with {who}.",
    "It runs for about {n} minutes.",
    "My {who} picked the {noun}.",
    "There is a long scene in a {place}.",
]
FILL = {
    "day": ["monday", "friday", "sunday", "evening"],
    "who": ["friends", "my sister", "the kids", "a colleague"],
    "place": ["theatre", "kitchen", "train", "castle"],
}
SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def pick(rng: np.random.Generator, items: list):
    return items[rng.integers(len(items))]


def opinion(rng: np.random.Generator, polarity: int) -> str:
    """One clause with sentiment ``polarity`` (+1 or -1), a quarter of them written as a negation."""
    noun, negated = pick(rng, NOUNS), rng.random() < 0.25
    if negated:
        return f"The {noun} was not {pick(rng, NEGATIVE if polarity > 0 else POSITIVE)}."
    adjective = pick(rng, POSITIVE if polarity > 0 else NEGATIVE)
    return pick(
        rng, [f"The {noun} was {adjective}.", f"What a {adjective} {noun}!", f"I found the {noun} {adjective}."]
    )


def synthetic_reviews(count: int, seed: int) -> tuple[list[str], np.ndarray]:
    """``count`` short reviews and their labels (1 positive, 0 negative), the same for the same seed."""
    rng = np.random.default_rng(seed)
    texts, labels = [], np.zeros(count, dtype="int32")
    for i in range(count):
        label = int(rng.integers(2))
        clauses = [opinion(rng, 1 if label else -1) for _ in range(rng.integers(1, 3))]
        for _ in range(rng.integers(0, 3)):
            fields = {key: pick(rng, values) for key, values in FILL.items()}
            clauses.append(pick(rng, FILLER).format(noun=pick(rng, NOUNS), n=int(rng.integers(80, 200)), **fields))
        rng.shuffle(clauses)
        texts.append(" ".join(clauses))
        labels[i] = label if rng.random() >= 0.03 else 1 - label
    return texts, labels


def word_piece_vocabulary(texts: list[str]) -> list[str]:
    """BERT's special tokens, every word of ``texts`` (lowercased, punctuation apart), and every letter
    as a word start and as a ``##`` continuation, so that any new word still tokenizes."""
    words = set()
    for text in texts:
        for character in "!?.,":
            text = text.replace(character, f" {character} ")
        words.update(text.lower().split())
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)]
    return SPECIAL_TOKENS + sorted(words | set(letters)) + ["##" + letter for letter in letters]


def tiny_random_preset(folder: str, texts: list[str], sequence_length: int) -> str:
    """A random BertTextClassifier preset (2 layers, hidden 32) saved in ``folder``, as KerasHub would."""
    vocabulary = word_piece_vocabulary(texts)
    tokenizer = keras_hub.models.BertTokenizer(vocabulary=vocabulary, lowercase=True)
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=len(vocabulary),
        num_layers=2,
        num_heads=2,
        hidden_dim=32,
        intermediate_dim=64,
        max_sequence_length=sequence_length,
    )
    preprocessor = keras_hub.models.BertTextClassifierPreprocessor(tokenizer, sequence_length=sequence_length)
    classifier = keras_hub.models.BertTextClassifier(backbone, num_classes=2, preprocessor=preprocessor)
    classifier.save_to_preset(folder)
    print(f"saved a random BERT preset to {folder}: {len(vocabulary)} word pieces, {backbone.count_params()} weights")
    return folder


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="a tiny random BERT made here, 800 reviews")
    parser.add_argument("--preset", default=None, help=f"a preset folder or handle (default {DEFAULT_PRESET})")
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(0)
    sizes = (800, 300) if args.small else (4000, 1000)
    x_train, y_train = synthetic_reviews(sizes[0], seed=1)
    x_test, y_test = synthetic_reviews(sizes[1], seed=2)

    preset = args.preset or (
        tiny_random_preset("tiny_bert_preset", x_train, sequence_length=48) if args.small else DEFAULT_PRESET
    )
    # What a KerasHub user writes: a pretrained classifier with a new two-class head, then fit on strings.
    classifier = keras_hub.models.BertTextClassifier.from_preset(preset, num_classes=2)
    classifier.preprocessor.sequence_length = 48  # the reviews are short: shorter sequences train faster
    learning_rate = 2e-3 if args.small else 5e-5  # random weights need a larger step than pretrained ones
    classifier.compile(
        optimizer=keras.optimizers.Adam(learning_rate),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["sparse_categorical_accuracy"],
    )
    classifier.summary()
    epochs = args.epochs or (5 if args.small else 2)
    start = time.perf_counter()
    history = classifier.fit(x_train, y_train, batch_size=32, epochs=epochs, verbose=2)
    seconds = time.perf_counter() - start
    loss, accuracy = classifier.evaluate(x_test, y_test, batch_size=64, verbose=0)

    samples = ["What a wonderful film! The acting was superb.", "The plot was dull and the acting was terrible."]
    logits = classifier.predict(samples, verbose=0)
    probabilities = tf.nn.softmax(logits).numpy()[:, 1]
    for sample, probability in zip(samples, probabilities):
        print(f"  positive {probability:.3f}  {sample}")
    print(f"test loss {loss:.4f}, test accuracy {accuracy:.4f} (chance 0.5), training {seconds:.1f} s")
    return {
        "accuracy": float(accuracy),
        "loss": float(loss),
        "train_loss": float(history.history["loss"][-1]),
        "positive_score": float(probabilities[0]),
        "negative_score": float(probabilities[1]),
        "seconds": float(seconds),
    }


if __name__ == "__main__":
    main()
