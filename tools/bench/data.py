"""The arrays every peer trains on, prepared once per run and shared through files.

    data.prepare(directory)               # in a helper subprocess: MNIST via tfkit
    x, y = data.load(directory, "vae")    # in a worker: float32 (60000, 784), twice x
    x, y = data.load(directory, "lstm")   # int32 (8000, 80) tokens, float32 labels
    x, y = data.load(directory, "vae", rows=600_000)   # MNIST tiled 10 times
    x, y = data.load(directory, "functional_multi_io") # dicts: image/aux in, digit/value out

MNIST comes from ``tfkit.datasets.mnist.load_data()`` (Keras's own loader would
try the network); the LSTM and transformer sequences and the auxiliary inputs of
the two-input model come from fixed seeds. Workers read the same ``.npy`` files,
so every peer sees identical numbers.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np

LSTM_SAMPLES = 8000
LSTM_LENGTH = 80
LSTM_VOCAB = 1000
LSTM_SEED = 1234

TEXT_SAMPLES = 10_000
TEXT_LENGTH = 200
TEXT_VOCAB = 20_000
TEXT_SEED = 4321

AUX_DIM = 10
AUX_SEED = 99

SHUFFLE_BUFFER = 10_000  # the tfdata workload's Dataset.shuffle buffer (elements)


def make_sequences(
    samples: int = LSTM_SAMPLES, length: int = LSTM_LENGTH, vocab: int = LSTM_VOCAB, seed: int = LSTM_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """Left-padded integer sequences (0 is padding) and a deterministic 0/1 label.

    The label is 1 when most of a sequence's tokens are below ``vocab // 2``.
    """
    rng = np.random.default_rng(seed)
    lengths = rng.integers(length // 8, length + 1, size=samples)
    tokens = rng.integers(1, vocab, size=(samples, length))
    positions = np.arange(length)[None, :]
    valid = positions >= (length - lengths)[:, None]
    sequences = np.where(valid, tokens, 0).astype("int32")
    low = np.sum((sequences > 0) & (sequences < vocab // 2), axis=1)
    labels = (2 * low > lengths).astype("float32").reshape(samples, 1)
    return sequences, labels


def make_text(
    samples: int = TEXT_SAMPLES, length: int = TEXT_LENGTH, vocab: int = TEXT_VOCAB, seed: int = TEXT_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """Left-padded "reviews" over a Zipf-like vocabulary and a 0/1 label (int32, shape (samples,)).

    Token ids are drawn with probability proportional to ``1 / (id + 10)``, so
    low ids are frequent words. Odd ids below 100 count as positive words, even
    ids below 100 as negative ones; the label is 1 when a sequence holds more
    positive than negative words (ties: 0). Lengths run from ``length // 4`` to
    ``length``, padded with 0 on the left as ``pad_sequences`` does.
    """
    rng = np.random.default_rng(seed)
    ids = np.arange(1, vocab)
    weights = 1.0 / (ids + 10.0)
    tokens = rng.choice(ids, size=(samples, length), p=weights / weights.sum())
    lengths = rng.integers(length // 4, length + 1, size=samples)
    valid = np.arange(length)[None, :] >= (length - lengths)[:, None]
    sequences = np.where(valid, tokens, 0).astype("int32")
    sentiment = (sequences > 0) & (sequences < 100)
    positive = np.sum(sentiment & (sequences % 2 == 1), axis=1)
    negative = np.sum(sentiment & (sequences % 2 == 0), axis=1)
    return sequences, (positive > negative).astype("int32")


def make_aux(
    images: np.ndarray, labels: np.ndarray, dim: int = AUX_DIM, seed: int = AUX_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """A fixed random ``dim``-vector per image and a regression target (float32, shape (n, 1)).

    The target is a fixed linear function of the auxiliary vector plus the
    image's mean brightness and a small share of its digit, so both inputs help.
    """
    rng = np.random.default_rng(seed)
    aux = rng.normal(size=(len(images), dim)).astype("float32")
    weights = rng.normal(size=(dim,)).astype("float32") / np.sqrt(dim)
    brightness = images.reshape(len(images), -1).mean(axis=1) / 255.0
    target = aux @ weights + 4.0 * brightness + 0.1 * labels.astype("float32")
    return aux, target.astype("float32").reshape(-1, 1)


def prepare(directory: str | pathlib.Path) -> None:
    """Write MNIST (through tfkit's loader) and the LSTM sequences as ``.npy`` files."""
    import tfkit  # imported here: only the preparing subprocess needs it

    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (x_train, y_train), _ = tfkit.datasets.mnist.load_data()
    np.save(directory / "mnist_x.npy", x_train)
    np.save(directory / "mnist_y.npy", y_train)
    sequences, labels = make_sequences()
    np.save(directory / "lstm_x.npy", sequences)
    np.save(directory / "lstm_y.npy", labels)
    sequences, labels = make_text()
    np.save(directory / "text_x.npy", sequences)
    np.save(directory / "text_y.npy", labels)
    aux, target = make_aux(x_train, y_train)
    np.save(directory / "aux_x.npy", aux)
    np.save(directory / "aux_y.npy", target)
    from bench import flops  # imports TensorFlow: only the preparing subprocess needs it

    (directory / MATMUL_RATE_FILE).write_text(json.dumps({"gflops": flops.matmul_rate()}))


MATMUL_RATE_FILE = "matmul_rate.json"


def matmul_rate(directory: str | pathlib.Path) -> float | None:
    """The machine's large-matmul GFLOP/s that ``prepare`` measured, or None."""
    path = pathlib.Path(directory) / MATMUL_RATE_FILE
    return float(json.loads(path.read_text())["gflops"]) if path.is_file() else None


VAE_WORKLOADS = ("vae", "vae_train_step", "tfdata", "predict")


def _images(directory: pathlib.Path, rows: int | None) -> np.ndarray:
    """MNIST as float32 (n, 784) in [0, 1]: its first ``rows`` rows, or tiled up to ``rows``."""
    images = np.load(directory / "mnist_x.npy").reshape(-1, 784)
    if rows is not None and rows != len(images):
        images = np.resize(images, (rows, 784))  # repeats the rows in order when rows > n
    x = images.astype("float32")
    x /= 255
    return x


def load(directory: str | pathlib.Path, workload: str, rows: int | None = None) -> tuple[Any, Any]:
    """The (x, y) a workload trains on: numpy arrays, or dicts of them keyed by input/output name.

    ``rows`` (VAE workloads only) takes the first ``rows`` images or tiles MNIST up to ``rows``.
    """
    directory = pathlib.Path(directory)
    if workload in VAE_WORKLOADS:
        x = _images(directory, rows)
        return x, x
    if rows is not None:
        raise ValueError(f"rows= is for the VAE workloads {', '.join(VAE_WORKLOADS)}, not {workload!r}")
    if workload == "cnn":
        x = np.load(directory / "mnist_x.npy").reshape(-1, 28, 28, 1).astype("float32")
        x /= 255
        return x, np.load(directory / "mnist_y.npy").astype("int32")
    if workload == "lstm":
        return np.load(directory / "lstm_x.npy"), np.load(directory / "lstm_y.npy")
    if workload == "transformer":
        return np.load(directory / "text_x.npy"), np.load(directory / "text_y.npy")
    if workload == "functional_multi_io":
        x = {"image": _images(directory, None), "aux": np.load(directory / "aux_x.npy")}
        y = {"digit": np.load(directory / "mnist_y.npy").astype("int32"), "value": np.load(directory / "aux_y.npy")}
        return x, y
    raise ValueError(f"unknown workload {workload!r}; expected one of {', '.join(WORKLOADS)}")


WORKLOADS = VAE_WORKLOADS + ("cnn", "lstm", "transformer", "functional_multi_io")
