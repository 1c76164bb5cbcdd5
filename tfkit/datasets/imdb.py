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
    """Loads the IMDB movie review sentiment data set, as `keras.datasets.imdb.load_data`.

    25,000 training and 25,000 test movie reviews, labeled by sentiment (0 negative,
    1 positive). Each review is a list of word indices; a word's stored index is its rank
    by frequency in the data set (1 the most frequent). `imdb.npz` is looked for in
    `$TFKIT_DATA_DIR`, then in the tfkit cache (`$TFKIT_CACHE_DIR`, default
    `~/.tfkit/datasets`), and otherwise downloaded from Keras's address and checked against
    Keras's sha256. The reviews are object arrays of lists stored as pickles: they are read
    by `tfkit.datasets.pickle_data` (never unpickled), then shuffled, shifted, filtered and
    clipped exactly as Keras's loader does.

    Args:
        path: The file name looked up in `$TFKIT_DATA_DIR`, then in the cache; an absolute
            path is used as it is. Defaults to `"imdb.npz"`.
        num_words: Keep only word indices below this (after `index_from` is added); the
            others become `oov_char`. `None` keeps all words, but, as in Keras, then the
            largest index present also becomes `oov_char`. Defaults to `None`.
        skip_top: Indices below this also become `oov_char` (the most frequent words).
            Defaults to `0`.
        maxlen: Keep only reviews shorter than this (counting `start_char`); `None` keeps
            all. Defaults to `None`.
        seed: The shuffling seed; train and test are shuffled by one
            `np.random.RandomState(seed)`, train first. Defaults to `113`.
        start_char: The index put in front of every review; `None` for none. Defaults to
            `1`.
        oov_char: The index replacing clipped words; `None` drops them instead. Defaults
            to `2`.
        index_from: Added to every stored word index. Defaults to `3`.
        **kwargs: Accepted for Keras compatibility and ignored, with a warning.

    Returns:
        Tuple of NumPy arrays `(x_train, y_train), (x_test, y_test)`: `x_train` and
        `x_test` 1-D object arrays of lists of ints (one list per review), `y_train` and
        `y_test` integer arrays of 0/1 labels.

    Raises:
        ValueError: If the file is not a valid `imdb.npz`, a download did not match its
            hash, or `maxlen` removed every review of a split.
        tfkit.datasets.DownloadError: If the file is not found locally and the download
            failed.

    Example:
        A file in the same layout (three train and two test reviews), given by absolute
        path:

        >>> import pathlib
        >>> x = np.empty(3, dtype=object)
        >>> x[:] = [[1, 2, 3], [4, 5], [6]]
        >>> np.savez("reviews.npz", x_train=x, x_test=x[:2], y_train=np.array([0, 1, 1]),
        ...          y_test=np.array([1, 0]))
        >>> (x_train, y_train), (x_test, y_test) = tfkit.datasets.imdb.load_data(
        ...     path=str(pathlib.Path("reviews.npz").absolute()), num_words=100)
        >>> x_train, y_train
        (array([list([1, 9]), list([1, 4, 5, 6]), list([1, 7, 8])], dtype=object), array([1, 0, 1]))
    """
    if kwargs:
        warnings.warn(f"imdb.load_data ignores the arguments {sorted(kwargs)}", stacklevel=2)
    file = download.get_file(path, origin=f"{ORIGIN_FOLDER}imdb.npz", sha256=SHA256)
    rows = sequences.read_sequence_arrays(file, ["x_train", "x_test"], dataset="imdb.npz")
    labels = sequences.read_labels(file, ["y_train", "y_test"], dataset="imdb.npz")
    for split in ("train", "test"):
        if len(rows[f"x_{split}"]) != len(labels[f"y_{split}"]):
            raise ValueError(
                f"{file} is not a valid imdb.npz: x_{split} has {len(rows[f'x_{split}'])} rows and "
                f"y_{split} {len(labels[f'y_{split}'])}; expected as many"
            )
    rng = np.random.RandomState(seed)
    x_train, labels_train = sequences.shuffled(rng, rows["x_train"], labels["y_train"])
    x_test, labels_test = sequences.shuffled(rng, rows["x_test"], labels["y_test"])
    x_train = sequences.index_words(x_train, start_char, index_from)
    x_test = sequences.index_words(x_test, start_char, index_from)
    if maxlen:
        x_train, labels_train = sequences.drop_long(maxlen, x_train, labels_train)
        x_test, labels_test = sequences.drop_long(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(
                f"After keeping only sequences shorter than maxlen={maxlen}, no sequence was left "
                f"({len(x_train)} train, {len(x_test)} test). Increase maxlen."
            )
    xs = sequences.clip_vocabulary(x_train + x_test, num_words, skip_top, oov_char)
    all_labels = np.concatenate([labels_train, labels_test])
    cut = len(x_train)
    return (
        (np.array(xs[:cut], dtype="object"), all_labels[:cut]),
        (np.array(xs[cut:], dtype="object"), all_labels[cut:]),
    )


def get_word_index(path: str = "imdb_word_index.json") -> dict[str, int]:
    """Loads the dictionary mapping words to their index in the IMDB data set.

    `imdb_word_index.json` is looked up, downloaded and checked (by md5) as `load_data`'s
    file is; it must be a JSON object of word to integer.

    Args:
        path: The file name looked up in `$TFKIT_DATA_DIR`, then in the cache; an absolute
            path is used as it is. Defaults to `"imdb_word_index.json"`.

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
        >>> _ = pathlib.Path("words.json").write_text(json.dumps({"the": 1, "and": 2}))
        >>> tfkit.datasets.imdb.get_word_index(str(pathlib.Path("words.json").absolute()))
        {'the': 1, 'and': 2}
    """
    file = download.get_file(path, origin=f"{ORIGIN_FOLDER}imdb_word_index.json", md5=WORD_INDEX_MD5)
    return sequences.read_word_index(file, "imdb_word_index.json")
