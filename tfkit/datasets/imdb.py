"""The IMDB movie review sentiment data set, as ``keras.datasets.imdb``.

    from tfkit.datasets import imdb
    (x_train, y_train), (x_test, y_test) = imdb.load_data(num_words=10000)
    words = {i + 3: w for w, i in imdb.get_word_index().items()}   # index_from=3

``imdb.npz`` (and ``imdb_word_index.json``) are looked for in ``$TFKIT_DATA_DIR``, then the tfkit
cache, and otherwise downloaded from Keras's origin and checked against Keras's hash. The
reviews are object arrays of word-index lists stored as pickles: they are read with
``pickle_data`` (never unpickled), then shuffled, shifted, filtered and clipped exactly as
Keras's loader does (``sequences``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tfkit.datasets import download, sequences

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
SHA256 = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
WORD_INDEX_MD5 = "bfafd718b763782e994055a2d397834f"


def load_data(
    path: str = "imdb.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
    **kwargs: Any,
) -> Any:
    """``((x_train, y_train), (x_test, y_test))``; ``x_*`` are 1-D object arrays of int lists.

    Args:
      path: file name looked up in ``$TFKIT_DATA_DIR`` then the cache (or an absolute path).
      num_words: keep word indices below this (others become ``oov_char``); None: all.
      skip_top: indices below this also become ``oov_char`` (the most frequent words).
      maxlen: keep only reviews shorter than this (after ``start_char`` is added).
      seed: shuffling seed (train and test are shuffled by one generator, train first).
      start_char: index put in front of every review; None for none.
      oov_char: index replacing clipped words; None drops them instead.
      index_from: added to every stored word index.
      **kwargs: accepted for Keras compatibility and ignored (with a warning).

    Raises:
      ValueError: the file is not a valid ``imdb.npz``, or ``maxlen`` removed every review of a split.
    """
    if kwargs:
        warnings.warn(f"imdb.load_data ignores the arguments {sorted(kwargs)}", stacklevel=2)
    file = download.get_file(path, origin=f"{ORIGIN_FOLDER}imdb.npz", sha256=SHA256)
    rows = sequences.read_sequence_arrays(file, ["x_train", "x_test"], dataset="imdb.npz")
    labels = sequences.read_labels(file, ["y_train", "y_test"], dataset="imdb.npz")
    for split in ("train", "test"):
        if len(rows[f"x_{split}"]) != len(labels[f"y_{split}"]):
            raise ValueError(f"{file} is not a valid imdb.npz: x_{split} has {len(rows[f'x_{split}'])} rows and "
                             f"y_{split} {len(labels[f'y_{split}'])}; expected as many")
    rng = np.random.RandomState(seed)
    x_train, labels_train = sequences.shuffled(rng, rows["x_train"], labels["y_train"])
    x_test, labels_test = sequences.shuffled(rng, rows["x_test"], labels["y_test"])
    x_train = sequences.index_words(x_train, start_char, index_from)
    x_test = sequences.index_words(x_test, start_char, index_from)
    if maxlen:
        x_train, labels_train = sequences.drop_long(maxlen, x_train, labels_train)
        x_test, labels_test = sequences.drop_long(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After keeping only sequences shorter than maxlen={maxlen}, no sequence was left "
                             f"({len(x_train)} train, {len(x_test)} test). Increase maxlen.")
    xs = sequences.clip_vocabulary(x_train + x_test, num_words, skip_top, oov_char)
    all_labels = np.concatenate([labels_train, labels_test])
    cut = len(x_train)
    return ((np.array(xs[:cut], dtype="object"), all_labels[:cut]),
            (np.array(xs[cut:], dtype="object"), all_labels[cut:]))


def get_word_index(path: str = "imdb_word_index.json") -> dict[str, int]:
    """``{word: index}`` for the stored indices (add ``index_from`` to match ``load_data``'s)."""
    file = download.get_file(path, origin=f"{ORIGIN_FOLDER}imdb_word_index.json", md5=WORD_INDEX_MD5)
    return sequences.read_word_index(file, "imdb_word_index.json")
