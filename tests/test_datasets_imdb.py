"""tfkit.datasets.imdb: object-array npz read without unpickling; Keras's index/filter/clip steps."""

import json
import pickle
import zipfile

import numpy as np
import pytest
from dataset_files import isolated_data_dir, object_array, write_sequences_npz

from tfkit.datasets import imdb

TRAIN = [[5, 1, 20, 3], [7, 7], [1, 2, 3, 4, 5, 6], [9], [30, 0, 4]]
TRAIN_Y = [1, 0, 1, 0, 1]
TEST = [[2, 2, 2], [11, 12], [40]]
TEST_Y = [0, 1, 1]


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    data = isolated_data_dir(tmp_path, monkeypatch)
    write_sequences_npz(data / "imdb.npz", x_train=TRAIN, y_train=TRAIN_Y, x_test=TEST, y_test=TEST_Y)
    return data


def _expected(num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2, index_from=3):
    """The loader's result computed independently with numpy and plain loops."""
    rng = np.random.RandomState(seed)
    order_train = np.arange(len(TRAIN))
    rng.shuffle(order_train)
    order_test = np.arange(len(TEST))
    rng.shuffle(order_test)
    splits = []
    for rows, labels, order in ((TRAIN, TRAIN_Y, order_train), (TEST, TEST_Y, order_test)):
        rows = [([start_char] if start_char is not None else []) + [w + index_from for w in rows[i]] for i in order]
        labels = [labels[i] for i in order]
        if maxlen:
            keep = [i for i, row in enumerate(rows) if len(row) < maxlen]
            rows, labels = [rows[i] for i in keep], [labels[i] for i in keep]
        splits.append((rows, labels))
    top = num_words or max(max(row) for rows, _ in splits for row in rows)
    result = []
    for rows, labels in splits:
        if oov_char is None:
            rows = [[w for w in row if skip_top <= w < top] for row in rows]
        else:
            rows = [[w if skip_top <= w < top else oov_char for w in row] for row in rows]
        result.append((rows, labels))
    return result


def _check(result, expected):
    for (x, y), (rows, labels) in zip(result, expected):
        assert x.dtype == object and x.shape == (len(rows),)
        assert x.tolist() == rows
        assert y.dtype == np.int64 and y.tolist() == labels


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"num_words": 10},
        {"num_words": 10, "skip_top": 5},
        {"num_words": 10, "oov_char": None},
        {"maxlen": 5},
        {"start_char": None},
        {"start_char": None, "index_from": 0},
        {"index_from": 0, "seed": 7},
        {"num_words": 0, "skip_top": 4, "oov_char": None, "start_char": 3},
    ],
)
def test_load_data_matches_numpy_expectation(data_dir, kwargs):
    _check(imdb.load_data(**kwargs), _expected(**kwargs))


def test_default_num_words_is_the_largest_index_so_it_becomes_oov(data_dir):
    (x_train, _), (x_test, _) = imdb.load_data()
    # the largest stored index 40 (test row [40]) becomes 43 = num_words, outside [0, 43): oov, as Keras computes
    words = [w for row in x_train.tolist() + x_test.tolist() for w in row]
    assert 43 not in words and max(words) == 33
    assert [1, 2] in x_test.tolist()


def test_maxlen_that_removes_everything_raises(data_dir):
    with pytest.raises(ValueError, match=r"maxlen=2, no sequence was left"):
        imdb.load_data(maxlen=2)


def test_ignored_keyword_warns(data_dir):
    with pytest.warns(UserWarning, match=r"ignores the arguments \['nb_words'\]"):
        imdb.load_data(nb_words=3)


def test_matches_keras_side_by_side(data_dir, monkeypatch):
    keras_imdb = pytest.importorskip("keras.src.datasets.imdb")
    monkeypatch.setattr(keras_imdb, "get_file", lambda *args, **kwargs: str(data_dir / "imdb.npz"))
    for kwargs in ({}, {"num_words": 10, "skip_top": 4}, {"maxlen": 5, "oov_char": None}, {"start_char": None}):
        ours, theirs = imdb.load_data(**kwargs), keras_imdb.load_data(**kwargs)
        for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()


def test_equal_length_rows_are_a_two_dimensional_object_array_as_in_keras(tmp_path, monkeypatch):
    monkeypatch.setenv("TFKIT_DATA_DIR", str(tmp_path))
    write_sequences_npz(tmp_path / "imdb.npz", x_train=[[4, 5], [6, 7]], y_train=[0, 1], x_test=[[8, 9]], y_test=[1])
    (x_train, _), (x_test, _) = imdb.load_data()
    assert x_train.dtype == object and x_train.shape == (2, 3) and x_test.shape == (1, 3)


def test_get_word_index(data_dir):
    (data_dir / "imdb_word_index.json").write_text(json.dumps({"the": 1, "film": 19}))
    assert imdb.get_word_index() == {"the": 1, "film": 19}
    (data_dir / "imdb_word_index.json").write_text(json.dumps(["not", "a", "dict"]))
    with pytest.raises(ValueError, match=r"expected a JSON object of word -> integer index"):
        imdb.get_word_index()


def test_hostile_object_array_is_refused_and_nothing_runs(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    monkeypatch.setenv("TFKIT_DATA_DIR", str(tmp_path))
    path = write_sequences_npz(tmp_path / "imdb.npz", x_train=TRAIN, y_train=TRAIN_Y, x_test=TEST, y_test=TEST_Y)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    # keep x_test.npy's header, replace its pickle by os.system + REDUCE
    header_end = members["x_test.npy"].index(b"\n") + 1
    members["x_test.npy"] = members["x_test.npy"][:header_end] + pickle.dumps(None, protocol=2).replace(
        b"N.", b"cos\nsystem\n(V" + f"touch {marker}".encode() + b"\ntR."
    )
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(ValueError, match=r"x_test\.npy: refusing the global os\.system"):
        imdb.load_data()
    assert not marker.exists()


def test_rows_that_are_not_int_lists_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TFKIT_DATA_DIR", str(tmp_path))
    bad = object_array([[1, 2], ["3"]])
    np.savez(
        tmp_path / "imdb.npz", x_train=bad, y_train=np.array([0, 1]), x_test=object_array([[1]]), y_test=np.array([0])
    )
    with pytest.raises(ValueError, match=r"sequence 1 is a list, not a list of ints"):
        imdb.load_data()


def test_labels_of_another_length_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TFKIT_DATA_DIR", str(tmp_path))
    write_sequences_npz(tmp_path / "imdb.npz", x_train=TRAIN, y_train=TRAIN_Y[:2], x_test=TEST, y_test=TEST_Y)
    with pytest.raises(ValueError, match=r"x_train has 5 rows and y_train 2"):
        imdb.load_data()
