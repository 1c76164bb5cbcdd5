"""tfkit.datasets.reuters: object-array npz read without unpickling; Keras's steps and train/test split."""

import json

import numpy as np
import pytest
from dataset_files import isolated_data_dir, write_sequences_npz

from tfkit.datasets import reuters

ROWS = [[5, 1, 20, 3], [7, 7], [1, 2, 3, 4, 5, 6], [9], [30, 0, 4], [2, 2, 2], [11, 12], [40], [8, 8, 8, 8, 8]]
LABELS = [3, 4, 3, 19, 1, 45, 3, 4, 0]


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    data = isolated_data_dir(tmp_path, monkeypatch)
    write_sequences_npz(data / "reuters.npz", x=ROWS, y=LABELS)
    return data


def _expected(
    num_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113, start_char=1, oov_char=2, index_from=3
):
    order = np.arange(len(ROWS))
    np.random.RandomState(seed).shuffle(order)
    rows = [([start_char] if start_char is not None else []) + [w + index_from for w in ROWS[i]] for i in order]
    labels = [LABELS[i] for i in order]
    if maxlen:
        keep = [i for i, row in enumerate(rows) if len(row) < maxlen]
        rows, labels = [rows[i] for i in keep], [labels[i] for i in keep]
    top = num_words or max(max(row) for row in rows)
    if oov_char is None:
        rows = [[w for w in row if skip_top <= w < top] for row in rows]
    else:
        rows = [[w if skip_top <= w < top else oov_char for w in row] for row in rows]
    cut = int(len(rows) * (1 - test_split))
    return (rows[:cut], labels[:cut]), (rows[cut:], labels[cut:])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"num_words": 10, "skip_top": 5},
        {"num_words": 10, "oov_char": None},
        {"maxlen": 5},
        {"test_split": 0.5, "seed": 1},
        {"test_split": 0.0},
        {"start_char": None, "index_from": 0},
        {"start_char": None},
    ],
)
def test_load_data_matches_numpy_expectation(data_dir, kwargs):
    for (x, y), (rows, labels) in zip(reuters.load_data(**kwargs), _expected(**kwargs)):
        # equal-length rows make np.array(..., dtype=object) two-dimensional, in Keras too
        assert x.dtype == object and x.shape == np.array(rows, dtype=object).shape and x.tolist() == rows
        assert y.dtype == np.int64 and y.tolist() == labels


def test_default_split_sizes(data_dir):
    (x_train, y_train), (x_test, y_test) = reuters.load_data()
    assert len(x_train) == len(y_train) == int(9 * 0.8) == 7 and len(x_test) == len(y_test) == 2


def test_matches_keras_side_by_side(data_dir, monkeypatch):
    keras_reuters = pytest.importorskip("keras.src.datasets.reuters")
    monkeypatch.setattr(keras_reuters, "get_file", lambda *args, **kwargs: str(data_dir / "reuters.npz"))
    for kwargs in (
        {},
        {"num_words": 10, "skip_top": 4, "test_split": 0.3},
        {"maxlen": 5, "oov_char": None},
        {"start_char": None, "index_from": 0},
    ):
        ours, theirs = reuters.load_data(**kwargs), keras_reuters.load_data(**kwargs)
        for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()
    assert reuters.get_label_names() == keras_reuters.get_label_names()


def test_label_names():
    names = reuters.get_label_names()
    assert len(names) == 46 and names[0] == "cocoa" and names[3] == "earn" and names[45] == "lead"


def test_get_word_index(data_dir):
    (data_dir / "reuters_word_index.json").write_text(json.dumps({"said": 4, "mln": 5}))
    assert reuters.get_word_index() == {"said": 4, "mln": 5}
    (data_dir / "reuters_word_index.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"reuters_word_index\.json: it is not JSON"):
        reuters.get_word_index()


def test_numeric_x_array_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TFKIT_DATA_DIR", str(tmp_path))
    np.savez(tmp_path / "reuters.npz", x=np.zeros((3, 4), dtype=np.int64), y=np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match=r"expected a 1-D object array .* got int64 \(3, 4\)"):
        reuters.load_data()
