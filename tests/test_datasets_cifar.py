"""tfkit.datasets.cifar10 / cifar100: small archives in the genuine format, read without unpickling."""

import pickle
import tarfile

import numpy as np
import pytest
from dataset_files import dumps_py2, isolated_data_dir, write_tar

from tfkit.base import settings
from tfkit.datasets import cifar, cifar10, cifar100


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    data = isolated_data_dir(tmp_path, monkeypatch)
    return data


@pytest.fixture
def channels_first():
    settings.set_image_data_format("channels_first")
    yield
    settings.set_image_data_format("channels_last")


def _batch(rng, n, classes=10):
    return rng.integers(0, 256, size=(n, 3072), dtype=np.uint8), [int(v) for v in rng.integers(0, classes, n)]


def _cifar10_members(rng, sizes=(3, 4, 2, 5, 1), test_size=4, dumps=dumps_py2):
    members, train_x, train_y = {}, [], []
    for i, n in enumerate(sizes, start=1):
        x, y = _batch(rng, n)
        members[f"cifar-10-batches-py/data_batch_{i}"] = dumps(
            {b"batch_label": b"training batch", b"labels": y, b"data": x, b"filenames": [b"a.png"] * n}
        )
        train_x.append(x)
        train_y += y
    x, y = _batch(rng, test_size)
    members["cifar-10-batches-py/test_batch"] = dumps({b"labels": y, b"data": x})
    members["cifar-10-batches-py/batches.meta"] = dumps({b"label_names": [b"airplane"]})
    return members, (np.concatenate(train_x), np.array(train_y)), (x, np.array(y))


@pytest.mark.parametrize(
    "dumps",
    [
        dumps_py2,
        lambda obj: pickle.dumps(obj, protocol=2),
        lambda obj: pickle.dumps(obj, protocol=4),
        lambda obj: pickle.dumps(obj, protocol=5),
    ],
    ids=["python2", "protocol2", "protocol4", "protocol5"],
)
def test_cifar10_arrays_layout_and_dtypes(data_dir, dumps):
    members, (tx, ty), (vx, vy) = _cifar10_members(np.random.default_rng(0), dumps=dumps)
    write_tar(data_dir / "cifar-10-python.tar.gz", members)
    (x_train, y_train), (x_test, y_test) = cifar10.load_data()
    assert x_train.shape == (15, 32, 32, 3) and x_test.shape == (4, 32, 32, 3)
    assert x_train.dtype == y_train.dtype == x_test.dtype == y_test.dtype == np.uint8
    assert y_train.shape == (15, 1) and y_test.shape == (4, 1)
    # stored row-major as 1024 red, 1024 green, 1024 blue values: pixel (r, c) of channel k at k*1024 + r*32 + c
    np.testing.assert_array_equal(x_train[7, 5, 9], tx[7, [5 * 32 + 9, 1024 + 5 * 32 + 9, 2048 + 5 * 32 + 9]])
    np.testing.assert_array_equal(x_train, tx.reshape(15, 3, 32, 32).transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(x_test, vx.reshape(4, 3, 32, 32).transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(y_train[:, 0], ty)
    np.testing.assert_array_equal(y_test[:, 0], vy)


def test_cifar10_channels_first(data_dir, channels_first):
    members, (tx, _), _ = _cifar10_members(np.random.default_rng(1))
    write_tar(data_dir / "cifar-10-python.tar.gz", members)
    (x_train, _), (x_test, _) = cifar10.load_data()
    assert x_train.shape == (15, 3, 32, 32) and x_test.shape == (4, 3, 32, 32)
    np.testing.assert_array_equal(x_train, tx.reshape(15, 3, 32, 32))


@pytest.mark.parametrize("label_mode, classes", [("fine", 100), ("coarse", 20)])
def test_cifar100_label_modes(data_dir, label_mode, classes):
    rng = np.random.default_rng(2)
    stored = {}
    for split, n in (("train", 6), ("test", 3)):
        x, fine = _batch(rng, n, 100)
        coarse = [v // 5 for v in fine]
        stored[split] = (x, fine, coarse)
        stored[f"cifar-100-python/{split}"] = dumps_py2({b"data": x, b"fine_labels": fine, b"coarse_labels": coarse})
    write_tar(data_dir / "cifar-100-python.tar.gz", {k: v for k, v in stored.items() if "/" in k})
    (x_train, y_train), (x_test, y_test) = cifar100.load_data(label_mode=label_mode)
    labels = {"fine": 1, "coarse": 2}[label_mode]
    assert x_train.shape == (6, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (6, 1) and y_train.dtype == np.int64 and y_test.shape == (3, 1)
    np.testing.assert_array_equal(y_train[:, 0], stored["train"][labels])
    np.testing.assert_array_equal(y_test[:, 0], stored["test"][labels])
    assert int(y_train.max()) < classes
    np.testing.assert_array_equal(x_test, stored["test"][0].reshape(3, 3, 32, 32).transpose(0, 2, 3, 1))


def test_cifar100_label_mode_is_checked():
    with pytest.raises(ValueError, match=r'label_mode must be one of "fine", "coarse", got \'medium\''):
        cifar100.load_data(label_mode="medium")


def test_cifar100_matches_keras_side_by_side(data_dir, tmp_path, monkeypatch):
    pytest.importorskip("keras")
    keras_cifar100 = pytest.importorskip("keras.src.datasets.cifar100")
    rng = np.random.default_rng(3)
    members = {}
    for split, n in (("train", 5), ("test", 4)):
        x, fine = _batch(rng, n, 100)
        members[f"cifar-100-python/{split}"] = dumps_py2(
            {b"data": x, b"fine_labels": fine, b"coarse_labels": [v // 5 for v in fine]}
        )
    archive = write_tar(data_dir / "cifar-100-python.tar.gz", members)
    extracted = tmp_path / "keras_extracted"
    with tarfile.open(archive) as handle:
        handle.extractall(extracted, filter="data")  # our own test file, for Keras's reader
    monkeypatch.setattr(keras_cifar100, "get_file", lambda *args, **kwargs: str(extracted))
    for mode in ("fine", "coarse"):
        ours, theirs = cifar100.load_data(mode), keras_cifar100.load_data(mode)
        for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)


@pytest.mark.slow
def test_cifar10_full_size_matches_keras_side_by_side(data_dir, tmp_path, monkeypatch):
    # Keras's cifar10 loader insists on 5 batches of 10,000 images: a full-size (compressible) archive
    keras_cifar10 = pytest.importorskip("keras.src.datasets.cifar10")
    rng = np.random.default_rng(4)
    pattern = (np.arange(10000 * 3072, dtype=np.int64) % 251).astype(np.uint8).reshape(10000, 3072)
    members = {}
    for i in range(1, 7):
        name = f"data_batch_{i}" if i < 6 else "test_batch"
        labels = [int(v) for v in rng.integers(0, 10, 10000)]
        members[f"cifar-10-batches-py/{name}"] = dumps_py2({b"data": np.roll(pattern, i, axis=0), b"labels": labels})
    archive = write_tar(data_dir / "cifar-10-python.tar.gz", members)
    del members
    extracted = tmp_path / "keras_extracted"
    with tarfile.open(archive) as handle:
        handle.extractall(extracted, filter="data")
    monkeypatch.setattr(keras_cifar10, "get_file", lambda *args, **kwargs: str(extracted))
    ours, theirs = cifar10.load_data(), keras_cifar10.load_data()
    for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_missing_member_and_hostile_batch_are_refused(data_dir, tmp_path):
    members, _, _ = _cifar10_members(np.random.default_rng(5))
    del members["cifar-10-batches-py/data_batch_3"]
    write_tar(data_dir / "cifar-10-python.tar.gz", members)
    with pytest.raises(ValueError, match=r"data_batch_3'\] are missing"):
        cifar10.load_data()
    marker = tmp_path / "ran"
    members, _, _ = _cifar10_members(np.random.default_rng(5))
    members["cifar-10-batches-py/data_batch_2"] = b"cos\nsystem\n(V" + f"touch {marker}".encode() + b"\ntR."
    write_tar(data_dir / "cifar-10-python.tar.gz", members)
    with pytest.raises(ValueError, match=r"data_batch_2: refusing the global os\.system"):
        cifar10.load_data()
    assert not marker.exists() and not (data_dir / "cifar-10-batches-py").exists()


def test_wrong_contents_are_refused(data_dir):
    members, _, _ = _cifar10_members(np.random.default_rng(6))
    members["cifar-10-batches-py/test_batch"] = dumps_py2({b"data": np.zeros((2, 100), np.uint8), b"labels": [1, 2]})
    write_tar(data_dir / "cifar-10-python.tar.gz", members)
    with pytest.raises(ValueError, match=r"expected data uint8 \(n, 3072\), got uint8 \(2, 100\)"):
        cifar10.load_data()
    members["cifar-10-batches-py/test_batch"] = dumps_py2({b"data": np.zeros((2, 3072), np.uint8), b"labels": [1, 12]})
    write_tar(data_dir / "cifar-10-python.tar.gz", members)
    with pytest.raises(ValueError, match=r"labels must be in 0\.\.9, got 1\.\.12"):
        cifar10.load_data()


def test_oversized_member_is_refused_before_reading(data_dir, monkeypatch):
    members, _, _ = _cifar10_members(np.random.default_rng(7))
    write_tar(data_dir / "cifar-10-python.tar.gz", members)
    monkeypatch.setattr(cifar, "MAX_MEMBER_BYTES", 1000)
    with pytest.raises(ValueError, match=r"declares [\d,]+ bytes, more than 1,000"):
        cifar10.load_data()


def test_not_an_archive(data_dir):
    (data_dir / "cifar-10-python.tar.gz").write_bytes(b"not a tar file")
    with pytest.raises(ValueError, match=r"is not a valid cifar-10-python\.tar\.gz"):
        cifar10.load_data()
