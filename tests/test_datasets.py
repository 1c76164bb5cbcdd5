"""tfkit.datasets: local lookup, validation, and the verified download (against a local server only)."""

import ast
import contextlib
import functools
import hashlib
import http.server
import socket
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from tfkit.datasets import download, mnist

SHARED_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
SHARED_MNIST = SHARED_DATASETS / "mnist.npz"
TRAIN_LABEL_COUNTS = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]

needs_shared_mnist = pytest.mark.skipif(
    not SHARED_MNIST.is_file(), reason=f"shared MNIST copy not found at {SHARED_MNIST}"
)


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """Empty data and cache folders, pointed to by the environment for this test only."""
    data, cache = tmp_path / "data", tmp_path / "cache"
    data.mkdir()
    monkeypatch.setenv("TFKIT_DATA_DIR", str(data))
    monkeypatch.setenv("TFKIT_CACHE_DIR", str(cache))
    return data, cache


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.paths.append(self.path)
        super().do_GET()


@contextlib.contextmanager
def serve_folder(folder: Path):
    """A static file server for ``folder`` on 127.0.0.1 in a background thread."""
    handler = functools.partial(_CountingHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.paths = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.paths
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/mnist.npz"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- loading the shared copy -------------------------------------------------


@needs_shared_mnist
def test_load_data_from_shared_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("TFKIT_DATA_DIR", str(SHARED_DATASETS))
    monkeypatch.setenv("TFKIT_CACHE_DIR", str(tmp_path / "never_written"))
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    assert x_train.shape == (60000, 28, 28) and x_train.dtype == np.uint8
    assert y_train.shape == (60000,) and y_train.dtype == np.uint8
    assert x_test.shape == (10000, 28, 28) and x_test.dtype == np.uint8
    assert y_test.shape == (10000,) and y_test.dtype == np.uint8
    assert np.bincount(y_train, minlength=10).tolist() == TRAIN_LABEL_COUNTS
    assert x_train.max() == 255 and x_train.min() == 0
    assert not (tmp_path / "never_written").exists()


@needs_shared_mnist
def test_local_copy_is_not_rehashed(monkeypatch):
    # The shared copy's zip bytes differ from the canonical file's; it must still load.
    assert download.sha256_of(SHARED_MNIST) != mnist.MNIST_SHA256
    monkeypatch.setenv("TFKIT_DATA_DIR", str(SHARED_DATASETS))
    (x_train, _), _ = mnist.load_data(origin=closed_port_url())
    assert x_train.shape == (60000, 28, 28)


def test_lookup_order_data_dir_then_cache(folders):
    data, cache = folders
    cache.mkdir()
    (cache / "a.bin").write_bytes(b"cache")
    assert download.find_local("a.bin") == cache / "a.bin"
    (data / "a.bin").write_bytes(b"data")
    assert download.find_local("a.bin") == data / "a.bin"
    assert download.candidate_paths("a.bin") == [data / "a.bin", cache / "a.bin"]
    assert download.find_local("missing.bin") is None


def test_cache_dir_defaults_to_home(monkeypatch, tmp_path):
    monkeypatch.delenv("TFKIT_CACHE_DIR", raising=False)
    monkeypatch.delenv("TFKIT_DATA_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert download.cache_dir() == tmp_path / ".tfkit" / "datasets"
    assert download.candidate_paths("mnist.npz") == [tmp_path / ".tfkit" / "datasets" / "mnist.npz"]


# --- validation of what is found locally ---------------------------------------


def _fake_mnist_arrays(**overrides):
    arrays = {name: np.zeros(shape, np.uint8) for name, shape in mnist.EXPECTED_SHAPES.items()}
    arrays.update(overrides)
    return arrays


def test_wrong_dtype_is_rejected(folders):
    data, _ = folders
    np.savez(data / "mnist.npz", **_fake_mnist_arrays(y_train=np.zeros(60000, np.int64)))
    with pytest.raises(ValueError, match=r"y_train uint8 \(60000,\), got int64 \(60000,\)"):
        mnist.load_data(origin=closed_port_url())


def test_wrong_shape_and_missing_array_are_rejected(folders):
    data, _ = folders
    np.savez(data / "small.npz", **_fake_mnist_arrays(x_test=np.zeros((10, 28, 28), np.uint8)))
    with pytest.raises(ValueError, match=r"x_test uint8 \(10000, 28, 28\), got uint8 \(10, 28, 28\)"):
        mnist.load_data("small.npz", origin=closed_port_url())
    arrays = _fake_mnist_arrays()
    del arrays["y_test"]
    np.savez(data / "partial.npz", **arrays)
    with pytest.raises(ValueError, match=r"missing \['y_test'\]"):
        mnist.load_data("partial.npz", origin=closed_port_url())


def test_labels_out_of_range_are_rejected(folders):
    data, _ = folders
    labels = np.zeros(10000, np.uint8)
    labels[3] = 10
    np.savez(data / "mnist.npz", **_fake_mnist_arrays(y_test=labels))
    with pytest.raises(ValueError, match=r"y_test labels must be in 0..9, got a maximum of 10"):
        mnist.load_data()


def test_non_npz_and_pickled_files_are_rejected(folders):
    data, _ = folders
    (data / "garbage.npz").write_bytes(b"not a zip file at all")
    with pytest.raises(ValueError, match="garbage.npz is not a valid mnist.npz"):
        mnist.load_data("garbage.npz")
    np.savez(data / "objects.npz", **_fake_mnist_arrays(x_train=np.array([{"a": 1}], dtype=object)))
    with pytest.raises(ValueError, match="objects.npz is not a valid mnist.npz"):
        mnist.load_data("objects.npz")
    np.save(data / "single.npy", np.zeros(3, np.uint8))
    with pytest.raises(ValueError, match="single array"):
        mnist.load_data("single.npy")


# --- the verified download, served locally -------------------------------------


def test_download_caches_verified_file_atomically(folders, tmp_path):
    _, cache = folders
    served = tmp_path / "served"
    served.mkdir()
    payload = bytes(range(256)) * 50
    (served / "blob.bin").write_bytes(payload)
    with serve_folder(served) as (url, paths):
        first = download.get_file("blob.bin", origin=f"{url}/blob.bin", sha256=sha256_bytes(payload))
        second = download.get_file("blob.bin", origin=f"{url}/blob.bin", sha256=sha256_bytes(payload))
    assert first == second == cache / "blob.bin"
    assert first.read_bytes() == payload
    assert paths == ["/blob.bin"]  # the second call used the cache
    assert sorted(p.name for p in cache.iterdir()) == ["blob.bin"]  # no temporary file left


def test_hash_mismatch_raises_and_leaves_nothing(folders, tmp_path):
    _, cache = folders
    served = tmp_path / "served"
    served.mkdir()
    (served / "blob.bin").write_bytes(b"tampered bytes")
    wrong = sha256_bytes(b"the bytes we expected")
    actual = sha256_bytes(b"tampered bytes")
    with serve_folder(served) as (url, _):
        with pytest.raises(ValueError) as info:
            download.get_file("blob.bin", origin=f"{url}/blob.bin", sha256=wrong)
    assert actual in str(info.value) and wrong in str(info.value)
    assert list(cache.iterdir()) == []


def test_unreachable_origin_says_where_to_put_the_file(folders):
    data, cache = folders
    with pytest.raises(download.DownloadError) as info:
        mnist.load_data(origin=closed_port_url())
    message = str(info.value)
    assert isinstance(info.value, OSError)
    assert "Could not download mnist.npz" in message
    assert str(data / "mnist.npz") in message and str(cache / "mnist.npz") in message
    assert list(cache.iterdir()) == []


def test_http_error_is_a_download_error(folders, tmp_path):
    _, cache = folders
    with serve_folder(tmp_path) as (url, _):
        with pytest.raises(download.DownloadError, match="HTTP 404"):
            download.get_file("nothing.bin", origin=f"{url}/nothing.bin", sha256="0" * 64)
    assert list(cache.iterdir()) == []


def test_file_url_origin_and_bad_hash_argument(folders, tmp_path):
    _, cache = folders
    source = tmp_path / "source.bin"
    source.write_bytes(b"hello")
    path = download.get_file("hello.bin", origin=source.as_uri(), sha256=sha256_bytes(b"hello").upper())
    assert path == cache / "hello.bin" and path.read_bytes() == b"hello"
    with pytest.raises(ValueError, match="64 hex digits"):
        download.download(source.as_uri(), cache / "x.bin", sha256="abc")


@needs_shared_mnist
def test_load_data_downloads_then_uses_cache(folders):
    _, cache = folders
    local_hash = download.sha256_of(SHARED_MNIST)
    with serve_folder(SHARED_DATASETS) as (url, paths):
        (x_train, y_train), (x_test, _) = mnist.load_data(origin=f"{url}/mnist.npz", sha256=local_hash)
        (x_again, _), _ = mnist.load_data(origin=f"{url}/mnist.npz", sha256=local_hash)
    assert paths == ["/mnist.npz"]
    assert (cache / "mnist.npz").is_file()
    assert x_train.shape == (60000, 28, 28) and x_test.shape == (10000, 28, 28)
    assert np.bincount(y_train, minlength=10).tolist() == TRAIN_LABEL_COUNTS
    np.testing.assert_array_equal(x_train, x_again)


# --- the package stays free of TensorFlow ---------------------------------------


def test_datasets_import_only_numpy_and_stdlib():
    package = Path(mnist.__file__).parent
    for source in package.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                roots = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                roots = [f"{node.module or ''}.{alias.name}" for alias in node.names]
            else:
                continue
            for name in roots:
                top = name.split(".")[0]
                allowed = top in sys.stdlib_module_names or top == "numpy"
                allowed = allowed or name.startswith("tfkit.datasets")
                # the image data format setting (cifar's layout) lives in a standard-library-only module
                allowed = allowed or name == "tfkit.base.settings"
                # what reading a damaged zip raises: a standard-library-only module shared with the other readers
                allowed = allowed or name.startswith("tfkit.files.zip_errors.")
                assert allowed, f"{source.name} imports {name}"


# --- hostile files and names ----------------------------------------------------


def _write_npz_members(path: Path, members: dict) -> None:
    """An .npz whose members are raw bytes (a valid .npy header followed by anything)."""
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, payload in members.items():
            archive.writestr(f"{name}.npy", payload)


def _npy_header(dtype: str, shape: tuple) -> bytes:
    import io

    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def _genuine_members() -> dict:
    import io

    members = {}
    for name, array in _fake_mnist_arrays().items():
        buffer = io.BytesIO()
        np.save(buffer, array)
        members[name] = buffer.getvalue()
    return members


def test_decompression_bomb_is_refused_without_expanding(folders):
    data, _ = folders
    members = _genuine_members()
    members["x_test"] += bytes(200 * 2**20)  # 200 MB of zeros after the declared data
    _write_npz_members(data / "bomb.npz", members)
    assert (data / "bomb.npz").stat().st_size < 2 * 2**20
    with pytest.raises(ValueError, match="x_test: the entry holds more bytes than its header declares"):
        mnist.load_data("bomb.npz", verify=False)


@pytest.mark.parametrize("method", ["ZIP_BZIP2", "ZIP_LZMA"])
def test_bzip2_and_lzma_members_are_refused_unread(folders, method):
    # zipfile inflates bzip2/LZMA data without an output limit: 1.5 KB of bzip2 became 2 GB in one read
    import zipfile

    data, _ = folders
    with zipfile.ZipFile(data / "bz.npz", "w", compression=getattr(zipfile, method)) as archive:
        for name, payload in _genuine_members().items():
            archive.writestr(f"{name}.npy", payload)
    with pytest.raises(
        ValueError,
        match=r"x_train is compressed with zip method \d+; .npz files hold stored or "
        r"deflate members",
    ):
        mnist.load_data("bz.npz", verify=False)


def test_terabyte_header_is_a_value_error(folders):
    data, _ = folders
    members = _genuine_members()
    members["x_train"] = _npy_header("uint8", (10**12,)) + b"\0" * 16
    _write_npz_members(data / "huge.npz", members)
    with pytest.raises(ValueError, match=r"expected x_train uint8 \(60000, 28, 28\), got uint8 \(1000000000000,\)"):
        mnist.load_data("huge.npz")


def test_truncated_member_is_a_value_error(folders):
    data, _ = folders
    members = _genuine_members()
    members["y_test"] = members["y_test"][:-10]
    _write_npz_members(data / "short.npz", members)
    with pytest.raises(ValueError, match="y_test: the data stops after"):
        mnist.load_data("short.npz", verify=False)


@needs_shared_mnist
def test_tampered_copy_is_refused_unless_verification_is_off(folders):
    data, _ = folders
    arrays = mnist.read_npz(SHARED_MNIST, verify=True)
    arrays["x_train"] = arrays["x_train"].copy()
    arrays["x_train"][0, 0, 0] ^= 1
    np.savez_compressed(data / "mnist.npz", **arrays)
    with pytest.raises(ValueError, match="x_train array differs from the genuine MNIST data"):
        mnist.load_data()
    (x_train, _), _ = mnist.load_data(verify=False)
    assert x_train[0, 0, 0] == arrays["x_train"][0, 0, 0]


@pytest.mark.parametrize("name", ["../../x.npz", "a/../../x.npz", "..", ""])
def test_file_names_cannot_leave_the_cache(folders, tmp_path, name):
    with pytest.raises(ValueError, match="inside the data or cache folder"):
        download.get_file(name, origin=(tmp_path / "nothing").as_uri(), sha256="0" * 64)
    assert not (tmp_path / "x.npz").exists()
