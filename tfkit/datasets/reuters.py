"""The Reuters newswire topic classification data set, as ``keras.datasets.reuters``.

    from tfkit.datasets import reuters
    (x_train, y_train), (x_test, y_test) = reuters.load_data(num_words=10000, test_split=0.2)
    reuters.get_label_names()[y_train[0]]   # one of 46 topics

``reuters.npz`` (and ``reuters_word_index.json``) are looked for in ``$TFKIT_DATA_DIR``, then the
tfkit cache, and otherwise downloaded from Keras's origin and checked against Keras's hash. The
newswires are an object array of word-index lists stored as a pickle: read with ``pickle_data``
(never unpickled), then shuffled, shifted, filtered, clipped and split as Keras's loader does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfkit.datasets import download, sequences

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
SHA256 = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
WORD_INDEX_MD5 = "4d44cc38712099c9e383dc6e5f11a921"
LABEL_NAMES = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply", "coffee",
    "sugar", "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas", "cpi", "money-fx",
    "interest", "gnp", "meal-feed", "alum", "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail",
    "ipi", "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
    "dlr", "gas", "silver", "wpi", "hog", "lead",
)


def load_data(
    path: str = "reuters.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    test_split: float = 0.2,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
) -> Any:
    """``((x_train, y_train), (x_test, y_test))``; ``x_*`` are 1-D object arrays of int lists.

    Args:
      path: file name looked up in ``$TFKIT_DATA_DIR`` then the cache (or an absolute path).
      num_words: keep word indices below this (others become ``oov_char``); None: all.
      skip_top: indices below this also become ``oov_char`` (the most frequent words).
      maxlen: keep only newswires shorter than this (after ``start_char`` is added).
      test_split: fraction of the shuffled newswires that goes to the test set (the last ones).
      seed: shuffling seed.
      start_char: index put in front of every newswire; None for none.
      oov_char: index replacing clipped words; None drops them instead.
      index_from: added to every stored word index.
    """
    file = download.get_file(path, origin=f"{ORIGIN_FOLDER}reuters.npz", sha256=SHA256)
    xs = sequences.read_sequence_arrays(file, ["x"], dataset="reuters.npz")["x"]
    labels = sequences.read_labels(file, ["y"], dataset="reuters.npz")["y"]
    if len(xs) != len(labels):
        raise ValueError(f"{file} is not a valid reuters.npz: x has {len(xs)} rows and y {len(labels)}; "
                         "expected as many")
    xs, labels = sequences.shuffled(np.random.RandomState(seed), xs, labels)
    xs = sequences.index_words(xs, start_char, index_from)
    if maxlen:
        xs, labels = sequences.drop_long(maxlen, xs, labels)
    xs = sequences.clip_vocabulary(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return ((np.array(xs[:cut], dtype="object"), np.array(labels[:cut])),
            (np.array(xs[cut:], dtype="object"), np.array(labels[cut:])))


def get_word_index(path: str = "reuters_word_index.json") -> dict[str, int]:
    """``{word: index}`` for the stored indices (add ``index_from`` to match ``load_data``'s)."""
    file = download.get_file(path, origin=f"{ORIGIN_FOLDER}reuters_word_index.json", md5=WORD_INDEX_MD5)
    return sequences.read_word_index(file, "reuters_word_index.json")


def get_label_names() -> tuple[str, ...]:
    """The 46 topic names, indexed by label."""
    return LABEL_NAMES
