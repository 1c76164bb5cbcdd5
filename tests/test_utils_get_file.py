"""tfkit.utils.get_file (issue 19): file:// and loopback http downloads (no internet), Keras's names and cache
layout, hash checks, and no partial file in the cache after any failure."""

import hashlib
import http.server
import io
import os
import tarfile
import threading

import pytest

import tfkit
from tfkit.datasets import DownloadError

PAYLOAD = os.urandom(200_000)
SHA256 = hashlib.sha256(PAYLOAD).hexdigest()
MD5 = hashlib.md5(PAYLOAD).hexdigest()


def _tar_bytes(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class _Files(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        self.server.requests.append(self.path)
        entry = self.server.files.get(self.path)
        if entry is None:
            self.send_error(404, "Not Found")
            return
        body, cut = entry
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[:cut] if cut is not None else body)  # a cut body: the connection drops midway

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Files)
    httpd.daemon_threads = True
    httpd.block_on_close = False
    httpd.files, httpd.requests = {}, []
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
        assert not thread.is_alive()


def _listing(folder):
    return sorted(os.listdir(folder))


def test_file_url_lands_in_the_cache_and_is_reused(tmp_path):
    source = tmp_path / "src" / "data.bin"
    source.parent.mkdir()
    source.write_bytes(PAYLOAD)
    cache = tmp_path / "cache"
    path = tfkit.utils.get_file(origin=source.as_uri(), cache_dir=cache)
    assert path == str(cache / "datasets" / "data.bin")
    assert open(path, "rb").read() == PAYLOAD
    source.unlink()  # cached: no download again
    assert tfkit.utils.get_file(origin=source.as_uri(), cache_dir=cache, file_hash=SHA256) == path
    named = tfkit.utils.get_file(
        "renamed.bin",
        origin=(tmp_path / "cache" / "datasets" / "data.bin").as_uri(),
        cache_dir=cache,
        cache_subdir=str(tmp_path / "elsewhere"),
    )
    assert named == str(tmp_path / "elsewhere" / "renamed.bin")  # an absolute cache_subdir is used as it is


def test_http_download_verifies_sha256_and_md5(server, tmp_path):
    server.files["/d/data.bin"] = (PAYLOAD, None)
    path = tfkit.utils.get_file(origin=server.url + "/d/data.bin", file_hash=SHA256, cache_dir=tmp_path)
    assert open(path, "rb").read() == PAYLOAD
    md5_path = tfkit.utils.get_file("m.bin", origin=server.url + "/d/data.bin", md5_hash=MD5, cache_dir=tmp_path)
    assert open(md5_path, "rb").read() == PAYLOAD
    assert tfkit.utils.get_file(origin=server.url + "/d/data.bin", file_hash=SHA256.upper(), cache_dir=tmp_path) == path
    assert server.requests == ["/d/data.bin", "/d/data.bin"]  # the third call found it cached


def test_a_wrong_hash_keeps_nothing_and_a_stale_cached_file_is_replaced(server, tmp_path):
    server.files["/data.bin"] = (PAYLOAD, None)
    with pytest.raises(ValueError, match=rf"file hash of .*/data.bin is {SHA256}, which does not match"):
        tfkit.utils.get_file(origin=server.url + "/data.bin", file_hash="0" * 64, cache_dir=tmp_path)
    assert _listing(tmp_path / "datasets") == []
    stale = tmp_path / "datasets" / "data.bin"
    stale.write_bytes(b"an older version")
    path = tfkit.utils.get_file(origin=server.url + "/data.bin", file_hash=SHA256, cache_dir=tmp_path)
    assert open(path, "rb").read() == PAYLOAD and _listing(tmp_path / "datasets") == ["data.bin"]


@pytest.mark.parametrize("failure", ["missing", "cut", "hash"])
def test_a_failed_download_leaves_the_previous_file_and_no_partial_one(server, tmp_path, failure):
    cached = tmp_path / "datasets" / "data.bin"
    cached.parent.mkdir()
    cached.write_bytes(b"the previous version")
    if failure == "cut":
        server.files["/data.bin"] = (PAYLOAD, 50_000)
    elif failure == "hash":
        server.files["/data.bin"] = (PAYLOAD, None)
    expected = {
        "missing": (DownloadError, "URL fetch failure on .*/data.bin: 404"),
        "cut": (DownloadError, "URL fetch failure on .*/data.bin: the download stopped after 50000 of 200000"),
        "hash": (ValueError, "does not match the provided value"),
    }[failure]
    with pytest.raises(expected[0], match=expected[1]):
        tfkit.utils.get_file(
            origin=server.url + "/data.bin",
            cache_dir=tmp_path,
            force_download=True,
            file_hash="0" * 64 if failure == "hash" else None,
        )
    assert _listing(tmp_path / "datasets") == ["data.bin"]
    assert cached.read_bytes() == b"the previous version"


def test_extract_names_and_places_things_as_keras_does(server, tmp_path):
    server.files["/flowers.tgz"] = (_tar_bytes([("flowers/rose.txt", b"R"), ("flowers/tulip.txt", b"T")]), None)
    origin = server.url + "/flowers.tgz"
    folder = tfkit.utils.get_file("flowers", origin=origin, extract=True, cache_dir=tmp_path / "a")
    assert folder == str(tmp_path / "a" / "datasets" / "flowers")
    assert open(os.path.join(folder, "flowers", "rose.txt"), "rb").read() == b"R"
    assert _listing(tmp_path / "a" / "datasets") == ["flowers", "flowers_archive"]
    dotted = tfkit.utils.get_file("flowers.tgz", origin=origin, extract=True, cache_dir=tmp_path / "b")
    assert dotted == str(tmp_path / "b" / "datasets" / "flowers_extracted")
    assert _listing(tmp_path / "b" / "datasets") == ["flowers.tgz", "flowers_extracted"]
    unnamed = tfkit.utils.get_file(origin=origin, extract=True, cache_dir=tmp_path / "c")
    assert unnamed == str(tmp_path / "c" / "datasets" / "flowers.tgz")
    assert _listing(tmp_path / "c" / "datasets") == ["flowers.tgz", "flowers.tgz_archive"]
    requests = len(server.requests)
    assert tfkit.utils.get_file("flowers", origin=origin, extract=True, cache_dir=tmp_path / "a") == folder
    assert len(server.requests) == requests  # archive and extraction both cached


def test_layout_matches_keras(server, tmp_path):
    keras = pytest.importorskip("keras")
    server.files["/a.tar.gz"] = (_tar_bytes([("x/y.txt", b"Y")]), None)
    server.files["/plain.bin"] = (PAYLOAD, None)
    (tmp_path / "keras").mkdir()  # Keras writes to /tmp/.keras when cache_dir does not exist yet
    for kwargs in [
        {"origin": server.url + "/plain.bin", "file_hash": SHA256},
        {"fname": "a", "origin": server.url + "/a.tar.gz", "extract": True},
        {"fname": "a.tar.gz", "origin": server.url + "/a.tar.gz", "extract": True},
        {"origin": server.url + "/a.tar.gz", "extract": True, "cache_subdir": "other"},
    ]:
        theirs = keras.utils.get_file(cache_dir=str(tmp_path / "keras"), **kwargs)
        ours = tfkit.utils.get_file(cache_dir=str(tmp_path / "tfkit"), **kwargs)
        assert os.path.relpath(ours, tmp_path / "tfkit") == os.path.relpath(theirs, tmp_path / "keras")
    keras_files = {
        os.path.relpath(os.path.join(d, f), tmp_path / "keras") for d, _, fs in os.walk(tmp_path / "keras") for f in fs
    }
    ours_files = {
        os.path.relpath(os.path.join(d, f), tmp_path / "tfkit") for d, _, fs in os.walk(tmp_path / "tfkit") for f in fs
    }
    assert ours_files == keras_files


def test_extraction_is_safe_through_get_file(tmp_path):
    archive = tmp_path / "evil.tar.gz"
    archive.write_bytes(_tar_bytes([("../../evil.txt", b"E"), ("good.txt", b"G")]))
    with pytest.warns(UserWarning, match="'../../evil.txt'"):
        folder = tfkit.utils.get_file("evil", origin=archive.as_uri(), extract=True, cache_dir=tmp_path / "c")
    assert _listing(folder) == ["good.txt"]
    assert _listing(tmp_path) == ["c", "evil.tar.gz"] and _listing(tmp_path / "c") == ["datasets"]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({}, ValueError, 'Please specify the "origin" argument'),
        ({"origin": "http://127.0.0.1:9/", "fname": None}, ValueError, "Can't parse the file name from the origin"),
        ({"origin": "file:///x", "fname": "a/b"}, ValueError, "Paths are no longer accepted as the `fname` argument"),
        ({"origin": "file:///x", "fname": ".."}, ValueError, r"fname must name a file, got fname='\.\.'"),
        (
            {"origin": "file:///x", "file_hash": "0" * 64, "hash_algorithm": "sha1"},
            ValueError,
            "hash_algorithm must be one of auto, sha256, md5; got 'sha1'",
        ),
        ({"origin": "file:///nonexistent/x.bin"}, DownloadError, "URL fetch failure on file:///nonexistent/x.bin"),
    ],
)
def test_errors_say_what_is_wrong(tmp_path, kwargs, error, message):
    with pytest.raises(error, match=message):
        tfkit.utils.get_file(cache_dir=tmp_path, **kwargs)
    assert not os.path.exists(tmp_path / "datasets") or _listing(tmp_path / "datasets") == []
