"""tfkit.datasets.fashion_mnist: gzipped IDX files, headers checked, md5-verified download."""

import contextlib
import functools
import gzip
import hashlib
import http.server
import threading

import numpy as np
import pytest
from dataset_files import write_idx_gz

from tfkit.datasets import download, fashion_mnist


@pytest.fixture
def folders(tmp_path, monkeypatch):
    data, cache = tmp_path / "data", tmp_path / "cache"
    data.mkdir()
    monkeypatch.setenv("TFKIT_DATA_DIR", str(data))
    monkeypatch.setenv("TFKIT_CACHE_DIR", str(cache))
    return data, cache


def _write_set(folder, n_train=6, n_test=4, seed=0):
    rng = np.random.default_rng(seed)
    arrays = {
        "train-images-idx3-ubyte.gz": rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        "train-labels-idx1-ubyte.gz": rng.integers(0, 10, n_train, dtype=np.uint8),
        "t10k-images-idx3-ubyte.gz": rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        "t10k-labels-idx1-ubyte.gz": rng.integers(0, 10, n_test, dtype=np.uint8),
    }
    for name, array in arrays.items():
        write_idx_gz(folder / "fashion-mnist" / name, array)
    return arrays


def test_load_data_reads_the_four_files(folders):
    data, cache = folders
    arrays = _write_set(data)
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data()
    for ours, name in (
        (x_train, "train-images-idx3-ubyte.gz"),
        (y_train, "train-labels-idx1-ubyte.gz"),
        (x_test, "t10k-images-idx3-ubyte.gz"),
        (y_test, "t10k-labels-idx1-ubyte.gz"),
    ):
        assert ours.dtype == np.uint8
        np.testing.assert_array_equal(ours, arrays[name])
    assert x_train.shape == (6, 28, 28) and y_train.shape == (6,) and not cache.exists()


def test_matches_keras_side_by_side(folders, monkeypatch):
    keras_fashion = pytest.importorskip("keras.src.datasets.fashion_mnist")
    data, _ = folders
    _write_set(data, seed=1)
    monkeypatch.setattr(keras_fashion, "get_file", lambda fname, **kwargs: str(data / "fashion-mnist" / fname))
    ours, theirs = fashion_mnist.load_data(), keras_fashion.load_data()
    for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_header_is_checked(folders):
    data, _ = folders
    _write_set(data)
    path = data / "fashion-mnist" / "train-labels-idx1-ubyte.gz"
    raw = gzip.decompress(path.read_bytes())
    path.write_bytes(gzip.compress(b"\x00\x00\x0d\x01" + raw[4:]))  # float magic
    with pytest.raises(ValueError, match=r"magic number is 00000d01, expected 00000801 or 00000803"):
        fashion_mnist.load_data()
    path.write_bytes(gzip.compress(raw + b"\x00"))  # one byte more than declared
    with pytest.raises(ValueError, match=r"more bytes than its header declares"):
        fashion_mnist.load_data()
    path.write_bytes(gzip.compress(raw[:8] + raw[9:]))  # one byte less
    with pytest.raises(ValueError, match=r"the data stops after 5 of 6 bytes"):
        fashion_mnist.load_data()


def test_huge_declared_count_is_refused_without_decompressing(folders):
    data, _ = folders
    _write_set(data)
    path = data / "fashion-mnist" / "train-images-idx3-ubyte.gz"
    path.write_bytes(gzip.compress(b"\x00\x00\x08\x03" + (4_000_000_000).to_bytes(4, "big") + b"\x00\x00\x00\x1c" * 2))
    with pytest.raises(ValueError, match=r"expected at most 1,000,000 items of 28x28"):
        fashion_mnist.load_data()


def test_images_and_labels_of_different_counts_are_refused(folders):
    data, _ = folders
    _write_set(data)
    write_idx_gz(data / "fashion-mnist" / "t10k-labels-idx1-ubyte.gz", np.zeros(3, np.uint8))
    with pytest.raises(ValueError, match=r"t10k files hold images \(4, 28, 28\) and labels \(3,\)"):
        fashion_mnist.load_data()


@contextlib.contextmanager
def _serve(folder):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_download_is_checked_by_md5(folders, tmp_path, monkeypatch):
    data, cache = folders
    served = tmp_path / "served"
    arrays = _write_set(served)
    md5 = {name: hashlib.md5((served / "fashion-mnist" / name).read_bytes()).hexdigest() for name in arrays}
    monkeypatch.setattr(fashion_mnist, "MD5", md5)
    with _serve(served / "fashion-mnist") as url:
        monkeypatch.setattr(fashion_mnist, "ORIGIN_FOLDER", url)
        (x_train, _), _ = fashion_mnist.load_data()
        np.testing.assert_array_equal(x_train, arrays["train-images-idx3-ubyte.gz"])
        assert sorted(p.name for p in (cache / "fashion-mnist").iterdir()) == sorted(arrays)
        for path in (cache / "fashion-mnist").iterdir():
            path.unlink()
        monkeypatch.setitem(md5, "t10k-images-idx3-ubyte.gz", "0" * 32)
        with pytest.raises(ValueError, match=r"has md5 [0-9a-f]{32}, expected 0{32}"):
            fashion_mnist.load_data()
    assert not (cache / "fashion-mnist" / "t10k-images-idx3-ubyte.gz").exists()


def test_download_hash_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match=r"md5 must be 32 hex digits, got 'abc'"):
        download.get_file("x.bin", origin="http://127.0.0.1:9/x", md5="abc")
    with pytest.raises(ValueError, match=r"pass exactly one of sha256 and md5"):
        download.get_file("x.bin", origin="http://127.0.0.1:9/x", sha256="0" * 64, md5="0" * 32)
    with pytest.raises(ValueError, match=r"pass exactly one of sha256 and md5"):
        download.get_file("x.bin", origin="http://127.0.0.1:9/x")
    assert fashion_mnist.MD5["train-images-idx3-ubyte.gz"] == "8d4fb7e6c68d591d4c3dfef9ec88bf0d"
    (tmp_path / "f").write_bytes(b"hello")
    assert download.hash_of(tmp_path / "f", "md5") == hashlib.md5(b"hello").hexdigest()
