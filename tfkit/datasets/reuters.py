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
    "cocoa",
    "grain",
    "veg-oil",
    "earn",
    "acq",
    "wheat",
    "copper",
    "housing",
    "money-supply",
    "coffee",
    "sugar",
    "trade",
    "reserves",
    "ship",
    "cotton",
    "carcass",
    "crude",
    "nat-gas",
    "cpi",
    "money-fx",
    "interest",
    "gnp",
    "meal-feed",
    "alum",
    "oilseed",
    "gold",
    "tin",
    "strategic-metal",
    "livestock",
    "retail",
    "ipi",
    "iron-steel",
    "rubber",
    "heat",
    "jobs",
    "lei",
    "bop",
    "zinc",
    "orange",
    "pet-chem",
    "dlr",
    "gas",
    "silver",
    "wpi",
    "hog",
    "lead",
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
    """Loads the Reuters newswire classification data set, as `keras.datasets.reuters.load_data`.

    11,228 newswires from Reuters, labeled over 46 topics (see `get_label_names`). Each
    newswire is a list of word indices; a word's stored index is its rank by frequency in
    the data set. `reuters.npz` is looked for in `$TFKIT_DATA_DIR`, then in the tfkit cache
    (`$TFKIT_CACHE_DIR`, default `~/.tfkit/datasets`), and otherwise downloaded from Keras's
    address and checked against Keras's sha256. The newswires are an object array of lists
    stored as a pickle: read by `tfkit.datasets.pickle_data` (never unpickled), then
    shuffled, shifted, filtered, clipped and split exactly as Keras's loader does.

    Args:
        path: The file name looked up in `$TFKIT_DATA_DIR`, then in the cache; an absolute
            path is used as it is. Defaults to `"reuters.npz"`.
        num_words: Keep only word indices below this (after `index_from` is added); the
            others become `oov_char`. `None` keeps all words, but, as in Keras, then the
            largest index present also becomes `oov_char`. Defaults to `None`.
        skip_top: Indices below this also become `oov_char` (the most frequent words).
            Defaults to `0`.
        maxlen: Keep only newswires shorter than this (counting `start_char`); `None` keeps
            all. Defaults to `None`.
        test_split: The fraction of the shuffled newswires that goes to the test set (the
            last ones). Defaults to `0.2`.
        seed: The shuffling seed (`np.random.RandomState(seed)`). Defaults to `113`.
        start_char: The index put in front of every newswire; `None` for none. Defaults to
            `1`.
        oov_char: The index replacing clipped words; `None` drops them instead. Defaults
            to `2`.
        index_from: Added to every stored word index. Defaults to `3`.

    Returns:
        Tuple of NumPy arrays `(x_train, y_train), (x_test, y_test)`: `x_train` and
        `x_test` object arrays of lists of ints (one list per newswire), `y_train` and
        `y_test` integer arrays of topic labels 0 to 45. With the defaults, 8,982 training
        and 2,246 test newswires.

    Raises:
        ValueError: If the file is not a valid `reuters.npz`, or a download did not match
            its hash.
        tfkit.datasets.DownloadError: If the file is not found locally and the download
            failed.

    Example:
        A file in the same layout (four newswires), given by absolute path:

        >>> import pathlib
        >>> x = np.empty(4, dtype=object)
        >>> x[:] = [[1, 2, 3], [4, 5], [6], [7, 8]]
        >>> np.savez("wires.npz", x=x, y=np.array([3, 4, 3, 1]))
        >>> (x_train, y_train), (x_test, y_test) = tfkit.datasets.reuters.load_data(
        ...     path=str(pathlib.Path("wires.npz").absolute()), num_words=100, test_split=0.5)
        >>> x_train, y_train
        (array([list([1, 10, 11]), list([1, 9])], dtype=object), array([1, 3]))
    """
    file = download.get_file(path, origin=f"{ORIGIN_FOLDER}reuters.npz", sha256=SHA256)
    xs = sequences.read_sequence_arrays(file, ["x"], dataset="reuters.npz")["x"]
    labels = sequences.read_labels(file, ["y"], dataset="reuters.npz")["y"]
    if len(xs) != len(labels):
        raise ValueError(
            f"{file} is not a valid reuters.npz: x has {len(xs)} rows and y {len(labels)}; expected as many"
        )
    xs, labels = sequences.shuffled(np.random.RandomState(seed), xs, labels)
    xs = sequences.index_words(xs, start_char, index_from)
    if maxlen:
        xs, labels = sequences.drop_long(maxlen, xs, labels)
    xs = sequences.clip_vocabulary(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return (
        (np.array(xs[:cut], dtype="object"), np.array(labels[:cut])),
        (np.array(xs[cut:], dtype="object"), np.array(labels[cut:])),
    )


def get_word_index(path: str = "reuters_word_index.json") -> dict[str, int]:
    """Loads the dictionary mapping words to their index in the Reuters data set.

    `reuters_word_index.json` is looked up, downloaded and checked (by md5) as
    `load_data`'s file is; it must be a JSON object of word to integer.

    Args:
        path: The file name looked up in `$TFKIT_DATA_DIR`, then in the cache; an absolute
            path is used as it is. Defaults to `"reuters_word_index.json"`.

    Returns:
        A dict `{word: index}` of the stored indices: add `index_from` (3 by default) to
        match the indices `load_data` returns.

    Raises:
        ValueError: If the file is not a valid word index, or a download did not match its
            hash.
        tfkit.datasets.DownloadError: If the file is not found locally and the download
            failed.

    Example:
        >>> import json, pathlib
        >>> _ = pathlib.Path("words.json").write_text(json.dumps({"the": 1, "of": 2}))
        >>> tfkit.datasets.reuters.get_word_index(str(pathlib.Path("words.json").absolute()))
        {'the': 1, 'of': 2}
    """
    file = download.get_file(path, origin=f"{ORIGIN_FOLDER}reuters_word_index.json", md5=WORD_INDEX_MD5)
    return sequences.read_word_index(file, "reuters_word_index.json")


def get_label_names() -> tuple[str, ...]:
    """Returns the names of the 46 Reuters topics, indexed by label.

    Returns:
        A tuple of 46 strings: `get_label_names()[y]` names the topic of label `y`.

    Example:
        >>> names = tfkit.datasets.reuters.get_label_names()
        >>> len(names), names[:4]
        (46, ('cocoa', 'grain', 'veg-oil', 'earn'))
    """
    return LABEL_NAMES
