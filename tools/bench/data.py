"""The arrays every peer trains on, prepared once per run and shared through files.

    data.prepare(directory)               # in a helper subprocess: MNIST via tfkit
    x, y = data.load(directory, "vae")    # in a worker: float32 (60000, 784), twice x
    x, y = data.load(directory, "lstm")   # int32 (8000, 80) tokens, float32 labels

MNIST comes from ``tfkit.datasets.mnist.load_data()`` (Keras's own loader would
try the network); the LSTM sequences come from a fixed seed. Workers read the
same ``.npy`` files, so every peer sees identical numbers.
"""

from __future__ import annotations

import pathlib

import numpy as np

LSTM_SAMPLES = 8000
LSTM_LENGTH = 80
LSTM_VOCAB = 1000
LSTM_SEED = 1234


def make_sequences(samples: int = LSTM_SAMPLES, length: int = LSTM_LENGTH,
                   vocab: int = LSTM_VOCAB, seed: int = LSTM_SEED) -> tuple[np.ndarray, np.ndarray]:
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


def load(directory: str | pathlib.Path, workload: str) -> tuple[np.ndarray, np.ndarray]:
    """The (x, y) a workload trains on, as numpy arrays."""
    directory = pathlib.Path(directory)
    if workload in ("vae", "predict"):
        x = np.load(directory / "mnist_x.npy").reshape(-1, 784).astype("float32")
        x /= 255
        return x, x
    if workload == "cnn":
        x = np.load(directory / "mnist_x.npy").reshape(-1, 28, 28, 1).astype("float32")
        x /= 255
        return x, np.load(directory / "mnist_y.npy").astype("int32")
    if workload == "lstm":
        return np.load(directory / "lstm_x.npy"), np.load(directory / "lstm_y.npy")
    raise ValueError(f"unknown workload {workload!r}; expected vae, cnn, lstm or predict")
