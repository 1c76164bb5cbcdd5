"""Binary sentiment classification of raw text, from scratch (keras.io's "Text classification from scratch", in tfkit).

    python examples/text_classification.py            # the full run: 20,000 reviews (+5,000 to validate,
                                                      # 10,000 to test), 3 epochs
    python examples/text_classification.py --small    # a quick check: 1,200 reviews, 1 epoch, narrow layers

There is no internet here and no IMDB copy, so by default the reviews are
SYNTHETIC: a seeded numpy generator writes "movie reviews" from lists of
positive, negative and neutral words (with negations such as "not great",
filler clauses, made-up noise words, punctuation, capitals and stray
``<br />`` tags, 10 to 120 words long). A review is positive when its opinions
add up to positive; 3% of the labels are flipped, so about 97% is the best a
model can score. With a real copy of the IMDB reviews, pass
``--imdb-dir path/to/aclImdb`` (the folder holding ``train/pos``, ``train/neg``,
``test/pos``, ``test/neg``) to read them with
``tfkit.utils.text_dataset_from_directory`` instead.

A ``TextVectorization`` layer, adapted on the training texts only, turns each
text into a sequence of word indices; an ``Embedding``, two strided
``Conv1D``, ``GlobalMaxPooling1D`` and a sigmoid ``Dense`` classify it. The
model trains on the vectorized datasets (vectorization runs in ``tf.data``),
then an end-to-end model with the vectorization inside scores raw strings.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import string
import time

_SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
if _SHARED.is_dir():  # this workplace keeps MNIST beside the repository
    os.environ.setdefault("TFKIT_DATA_DIR", str(_SHARED))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfkit  # noqa: E402
from tfkit import layers  # noqa: E402

POSITIVE = [
    "great",
    "excellent",
    "wonderful",
    "brilliant",
    "superb",
    "moving",
    "delightful",
    "charming",
    "gripping",
    "fun",
    "beautiful",
    "touching",
    "hilarious",
    "clever",
    "memorable",
    "stunning",
]
NEGATIVE = [
    "awful",
    "boring",
    "terrible",
    "dull",
    "bad",
    "messy",
    "predictable",
    "annoying",
    "bland",
    "clumsy",
    "tedious",
    "disappointing",
    "forgettable",
    "lazy",
    "pointless",
    "weak",
]
NOUNS = [
    "movie",
    "film",
    "plot",
    "acting",
    "script",
    "story",
    "ending",
    "soundtrack",
    "cast",
    "dialogue",
    "direction",
    "pacing",
    "sequel",
    "camera work",
    "lead actress",
    "villain",
]
ADVERBS = ["", "", "", "very ", "really ", "quite ", "truly ", "rather ", "so "]
FILLER = [
    "I saw it on a rainy {day} with {who}.",
    "It runs for about {n} minutes.",
    "The {noun} reminded me of another {noun} from the nineties.",
    "We watched the {noun} at home.",
    "There is a long scene in a {place}.",
    "My {who2} picked the {noun}.",
    "It was shown in the {place} last {day}.",
    "The {noun} has a {n} minute prologue.",
]
FILL = {
    "day": ["monday", "friday", "sunday", "evening"],
    "who": ["friends", "my sister", "the kids", "a colleague"],
    "who2": ["brother", "neighbour", "wife", "uncle"],
    "place": ["theatre", "kitchen", "train", "desert", "castle"],
}
LABEL_NOISE = 0.03


def pick(rng: np.random.Generator, items: list):
    """One of ``items`` (faster than ``rng.choice`` on a Python list)."""
    return items[rng.integers(len(items))]


def noise_words(rng: np.random.Generator, count: int = 400) -> list[str]:
    """Made-up words (names, typos, jargon) that carry no sentiment."""
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    return [
        "".join(pick(rng, consonants if k % 2 == 0 else vowels) for k in range(rng.integers(3, 9)))
        for _ in range(count)
    ]


def opinion(rng: np.random.Generator, polarity: int) -> str:
    """One clause whose sentiment is ``polarity`` (+1 or -1), sometimes written as a negation."""
    noun = pick(rng, NOUNS)
    negated = rng.random() < 0.25
    words = (NEGATIVE if polarity > 0 else POSITIVE) if negated else (POSITIVE if polarity > 0 else NEGATIVE)
    adjective = pick(rng, words)
    adverb = pick(rng, ADVERBS)
    form = rng.integers(3)
    if negated:
        return [
            f"The {noun} was not {adverb}{adjective}.",
            f"I would not call the {noun} {adjective}.",
            f"Not a {adjective} {noun} at all.",
        ][form]
    return [
        f"The {noun} was {adverb}{adjective}.",
        f"What a {adverb}{adjective} {noun}!",
        f"I found the {noun} {adjective}.",
    ][form]


def filler(rng: np.random.Generator, noise: list[str]) -> str:
    template = pick(rng, FILLER)
    fields = {key: pick(rng, values) for key, values in FILL.items()}
    sentence = template.format(noun=pick(rng, NOUNS), n=int(rng.integers(5, 200)), **fields)
    if rng.random() < 0.5:
        words = [noise[i] for i in rng.integers(len(noise), size=rng.integers(1, 6))]
        sentence += " " + " ".join(words).capitalize() + "."
    return sentence


def synthetic_reviews(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` reviews (strings) and labels (1 positive, 0 negative), the same for the same seed."""
    rng = np.random.default_rng(seed)
    noise = noise_words(np.random.default_rng(12345))  # one noise vocabulary for every split
    texts, labels = [], np.zeros(count, dtype="float32")
    for i in range(count):
        label = int(rng.integers(2))
        polarities = [1 if rng.random() < 0.85 else -1 for _ in range(rng.integers(1, 5))]
        polarities = [p if label else -p for p in polarities]
        if sum(polarities) == 0:  # a tie: the last opinion is the verdict
            polarities.append(1 if label else -1)
        clauses = [opinion(rng, p) for p in polarities] + [filler(rng, noise) for _ in range(rng.integers(1, 9))]
        rng.shuffle(clauses)
        text = " ".join(clauses)
        if rng.random() < 0.2:
            text = text.replace(". ", ". <br /><br />", 1)
        texts.append(text)
        labels[i] = label if rng.random() >= LABEL_NOISE else 1 - label
    return np.array(texts), labels


def standardize(text: tf.Tensor) -> tf.Tensor:
    """Lower case, HTML line breaks out, punctuation out (IMDB reviews hold ``<br />``)."""
    text = tf.strings.regex_replace(tf.strings.lower(text), "<br />", " ")
    return tf.strings.regex_replace(text, f"[{re.escape(string.punctuation)}]", "")


def load_datasets(args: argparse.Namespace, batch_size: int) -> tuple:
    """``(train, validation, test)`` datasets of ``(string, label)`` batches."""
    if args.imdb_dir:
        read = dict(batch_size=batch_size, class_names=["neg", "pos"], seed=1337)  # "unsup" is left out
        train, val = tfkit.utils.text_dataset_from_directory(
            os.path.join(args.imdb_dir, "train"), validation_split=0.2, subset="both", **read
        )
        test = tfkit.utils.text_dataset_from_directory(os.path.join(args.imdb_dir, "test"), **read)
        if args.small:
            train, val, test = train.take(40), val.take(10), test.take(20)
        return train, val, test
    sizes = (1200, 300, 500) if args.small else (20000, 5000, 10000)
    splits = [synthetic_reviews(size, seed) for size, seed in zip(sizes, (1, 2, 3))]
    datasets = [tf.data.Dataset.from_tensor_slices(split) for split in splits]
    datasets[0] = datasets[0].shuffle(len(splits[0][0]), seed=0)
    return tuple(dataset.batch(batch_size) for dataset in datasets)


def build_model(max_tokens: int, embedding_dim: int, filters: int) -> tfkit.Model:
    inputs = tfkit.Input(shape=(None,), dtype="int64")
    x = layers.Embedding(max_tokens, embedding_dim)(inputs)
    x = layers.Dropout(0.5)(x)
    x = layers.Conv1D(filters, 7, strides=3, padding="valid", activation="relu")(x)
    x = layers.Conv1D(filters, 7, strides=3, padding="valid", activation="relu")(x)
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dense(filters, activation="relu")(x)
    x = layers.Dropout(0.5)(x)
    outputs = layers.Dense(1, activation="sigmoid", name="predictions")(x)
    return tfkit.Model(inputs, outputs, name="text_cnn")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="1,200 reviews, 1 epoch, narrow layers")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--imdb-dir", default=None, help="an aclImdb folder (train/pos, train/neg, test/...)")
    args = parser.parse_args(argv)
    tfkit.utils.set_random_seed(0)
    epochs = args.epochs or (1 if args.small else 3)
    max_tokens, sequence_length = (5000 if args.small else 20000), (500 if args.imdb_dir else 200)
    embedding_dim, filters = (32, 32) if args.small else (128, 128)
    raw_train, raw_val, raw_test = load_datasets(args, batch_size=32)

    vectorize_layer = layers.TextVectorization(
        max_tokens=max_tokens, standardize=standardize, output_mode="int", output_sequence_length=sequence_length
    )
    vectorize_layer.adapt(raw_train.map(lambda text, label: text))  # the vocabulary of the training texts only
    print(f"vocabulary: {vectorize_layer.vocabulary_size()} tokens, e.g. {vectorize_layer.get_vocabulary()[2:8]}")

    def vectorize(text, label):
        return vectorize_layer(tf.expand_dims(text, -1)), label

    train, val, test = (
        ds.map(vectorize, num_parallel_calls=tf.data.AUTOTUNE).cache().prefetch(tf.data.AUTOTUNE)
        for ds in (raw_train, raw_val, raw_test)
    )
    model = build_model(max_tokens, embedding_dim, filters)
    model.summary()
    model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
    start = time.perf_counter()
    model.fit(train, validation_data=val, epochs=epochs, verbose=2)
    seconds = time.perf_counter() - start
    loss, accuracy = model.evaluate(test, verbose=0)

    # The end-to-end model: raw strings in, probabilities out.
    text_input = tfkit.Input(shape=(1,), dtype="string")
    end_to_end = tfkit.Model(text_input, model(vectorize_layer(text_input)), name="end_to_end")
    end_to_end.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
    _, e2e_accuracy = end_to_end.evaluate(raw_test, verbose=0)
    samples = [
        "What a wonderful film! The acting was truly superb and the ending was moving.",
        "The plot was dull and predictable. I would not call the script clever, a waste of an evening.",
    ]
    scores = end_to_end.predict(tf.constant([[s] for s in samples]), verbose=0)[:, 0]
    for sample, score in zip(samples, scores):
        print(f"  {score:.3f}  {sample}")
    print(
        f"test loss {loss:.4f}, test accuracy {accuracy:.4f}, end-to-end accuracy {e2e_accuracy:.4f}, "
        f"training {seconds:.0f} s"
    )
    return {
        "accuracy": float(accuracy),
        "loss": float(loss),
        "end_to_end_accuracy": float(e2e_accuracy),
        "positive_score": float(scores[0]),
        "negative_score": float(scores[1]),
        "seconds": float(seconds),
    }


if __name__ == "__main__":
    main()
