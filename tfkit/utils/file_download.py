"""``get_file``: download a file into the Keras cache once, verify it, optionally extract it (Keras 3's API).

    path = tfkit.utils.get_file(origin="https://example.org/data.csv", file_hash="<sha256>")
    folder = tfkit.utils.get_file("flowers", origin="file:///archives/flowers.tgz", extract=True)
    # ~/.keras/datasets/data.csv and ~/.keras/datasets/flowers/ (Keras's names and places)

Keras's arguments, defaults, cache layout and names. What differs is what
happens when something fails: the file is downloaded into a temporary folder
beside its target, its hash checked there, and only then renamed into place,
so a failed, interrupted or corrupt download never leaves a partial file in
the cache, and a cached file being replaced stays as it was until the new one
is complete. Archives are extracted by :mod:`tfkit.utils.safe_extract`
(nothing lands outside the extraction folder); an extraction folder that exists
is reused unless the archive was downloaded again.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
from typing import Sequence

from tfkit.base import console
from tfkit.callbacks.progbar import Progbar
from tfkit.datasets.download import DownloadError
from tfkit.files import atomic
from tfkit.utils import safe_extract

_CHUNK = 1 << 16
_ALGORITHMS = ("auto", "sha256", "md5")


def keras_home() -> str:
    """Keras's cache folder: ``$KERAS_HOME``, else ``~/.keras``."""
    return os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")


def _writable(folder: str) -> str:
    """``folder``, made if missing; Keras's fallback ``/tmp/.keras`` when it cannot be written."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        pass
    if os.access(folder, os.W_OK):
        return folder
    return os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(), ".keras")


def _hasher(algorithm: str, file_hash: str | None) -> "hashlib._Hash":
    if algorithm not in _ALGORITHMS:
        raise ValueError(f"hash_algorithm must be one of {', '.join(_ALGORITHMS)}; got {algorithm!r}")
    if algorithm == "sha256" or algorithm == "auto" and file_hash is not None and len(file_hash) == 64:
        return hashlib.sha256()
    return hashlib.md5()


def hash_file(fpath: str | os.PathLike, algorithm: str = "sha256", chunk_size: int = 65535) -> str:
    """The hex sha256 (or md5) of a file's bytes."""
    hasher = _hasher(algorithm, None)
    with open(fpath, "rb") as handle:
        for chunk in iter(lambda: handle.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath: str | os.PathLike, file_hash: str, algorithm: str = "auto", chunk_size: int = 65535) -> bool:
    """Whether the file's hash is ``file_hash`` (sha256 for 64 hex digits, else md5, with ``"auto"``)."""
    if algorithm == "auto":
        algorithm = "sha256" if len(file_hash) == 64 else "md5"
    return hash_file(fpath, algorithm, chunk_size) == file_hash.strip().lower()


def _targets(fname: str | None, origin: str, datadir: str, extract: bool) -> tuple[str, str | None]:
    """``(download target, extraction folder)`` named as Keras names them."""
    provided = fname
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(
                f"Can't parse the file name from the origin provided: '{origin}'. Please specify the `fname` argument."
            )
    elif os.sep in fname or (os.altsep and os.altsep in fname):
        raise ValueError(
            "Paths are no longer accepted as the `fname` argument. To specify the file's parent "
            f"directory, use the `cache_dir` argument. Received: fname={fname}"
        )
    if fname in (".", "..") or "\x00" in fname:
        raise ValueError(f"fname must name a file, got fname={fname!r}")
    if not extract:
        return os.path.join(datadir, fname), None
    if provided and "." in fname:
        stem = fname[: fname.find(".")]
        return os.path.join(datadir, fname), os.path.join(datadir, f"{stem}_extracted")
    return os.path.join(datadir, f"{fname}_archive"), os.path.join(datadir, fname)


def _download(origin: str, target: str, file_hash: str | None, algorithm: str) -> None:
    """``origin`` -> ``target`` through a temporary file; the hash is checked before the rename."""
    console.write(f"Downloading data from {origin}\n")
    hasher = _hasher(algorithm, file_hash)
    try:
        with atomic.atomic_file(target) as temporary:
            with urllib.request.urlopen(origin) as response, open(temporary, "wb") as out:
                total = response.headers.get("Content-Length") if hasattr(response, "headers") else None
                bar = Progbar(int(total) if total and total.isdigit() else None)
                done = 0
                for chunk in iter(lambda: response.read(_CHUNK), b""):
                    out.write(chunk)
                    hasher.update(chunk)
                    done += len(chunk)
                    bar.update(done, finalize=False)
                bar.update(done, finalize=True)
                if bar.target is not None and done != bar.target:  # the connection closed early
                    raise DownloadError(
                        f"URL fetch failure on {origin}: the download stopped after {done} of "
                        f"{bar.target} bytes (IncompleteRead)"
                    )
            if file_hash is not None and hasher.hexdigest() != file_hash.strip().lower():
                raise ValueError(
                    f"Incomplete or corrupted file detected. The {hasher.name} file hash of {origin} "
                    f"is {hasher.hexdigest()}, which does not match the provided value of {file_hash}. "
                    f"{target} was left as it was."
                )
    except urllib.error.HTTPError as error:
        raise DownloadError(f"URL fetch failure on {origin}: {error.code} -- {error.reason}") from error
    except urllib.error.URLError as error:
        raise DownloadError(f"URL fetch failure on {origin}: {error.reason}") from error
    except (http.client.HTTPException, ConnectionError, TimeoutError) as error:
        raise DownloadError(f"URL fetch failure on {origin}: {type(error).__name__}: {error}") from error


def get_file(
    fname: str | os.PathLike | None = None,
    origin: str | None = None,
    untar: bool = False,
    md5_hash: str | None = None,
    file_hash: str | None = None,
    cache_subdir: str = "datasets",
    hash_algorithm: str = "auto",
    extract: bool = False,
    archive_format: str | Sequence[str] | None = "auto",
    cache_dir: str | os.PathLike | None = None,
    force_download: bool = False,
) -> str:
    """Downloads a file from a URL into the cache, unless it is already there, and verifies it.

    Keras's arguments, defaults, cache layout and names. The file is
    downloaded into a temporary folder beside its target, its hash checked
    there, and only then renamed into place, so a failed, interrupted or
    corrupt download never leaves a partial file in the cache. Archives are
    extracted safely (nothing lands outside the extraction folder); an
    extraction folder that exists is reused unless the archive was
    downloaded again.

    Args:
        fname: The file's name in the cache. Defaults to `None` (the last
            part of `origin`'s path); with `extract`, a name without a dot
            names the extraction folder.
        origin: The URL (`https://`, `http://`, `ftp://` or `file://`).
            Required.
        untar: Deprecated: `extract=True, archive_format="tar"`. Defaults to
            `False`.
        md5_hash: Deprecated: `file_hash` with `hash_algorithm="md5"`.
            Defaults to `None`.
        file_hash: The expected sha256 (64 hex digits) or md5 hash of the
            file; a cached file that does not match is downloaded again, a
            download that does not match raises `ValueError`. Defaults to
            `None` (not checked).
        cache_subdir: The folder under `cache_dir`; an absolute path is used
            as it is. Defaults to `"datasets"`.
        hash_algorithm: `"auto"` (by the length of `file_hash`), `"sha256"`
            or `"md5"`. Defaults to `"auto"`.
        extract: Whether to extract the archive (tar, tar.gz, tar.bz2, zip)
            and return the extraction folder. Defaults to `False`.
        archive_format: `"auto"` (tar, then zip), `"tar"`, `"zip"`, a list
            of those, or `None`. Defaults to `"auto"`.
        cache_dir: The cache root. Defaults to `None`: `$KERAS_HOME` or
            `~/.keras` (`/tmp/.keras` when not writable).
        force_download: Whether to download even when the file is cached.
            Defaults to `False`.

    Returns:
        The path of the file in the cache (or of the extraction folder).

    Raises:
        ValueError: If `origin` is missing, the hash algorithm is unknown,
            or the download does not match `file_hash`.

    Example:
        >>> import os, pathlib
        >>> _ = pathlib.Path("data.csv").write_text("a,b")
        >>> url = pathlib.Path("data.csv").absolute().as_uri()
        >>> path = tfkit.utils.get_file(origin=url, cache_dir="cache")
        Downloading data from file://...
        ...
        >>> os.path.relpath(path)
        'cache/datasets/data.csv'
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    _hasher(hash_algorithm, file_hash)  # an unknown algorithm fails before any download
    base = _writable(os.path.expanduser(os.fspath(cache_dir) if cache_dir is not None else keras_home()))
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    fname = os.fspath(fname) if isinstance(fname, os.PathLike) else fname
    target, extraction_dir = _targets(fname, origin, datadir, extract or untar)

    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and not validate_file(target, file_hash, hash_algorithm):
        console.write(
            f"A local file was found, but it seems to be incomplete or outdated because the "
            f"{_hasher(hash_algorithm, file_hash).name} file hash does not match the original value of "
            f"{file_hash} so we will re-download the data.\n"
        )
        download = True
    if download:
        _download(origin, target, file_hash, hash_algorithm)
    if extraction_dir is None:
        return target
    if os.path.isdir(extraction_dir) and not download:
        return extraction_dir  # extracted before from this very archive
    if not safe_extract.extract_archive(target, extraction_dir, "tar" if untar else archive_format):
        warnings.warn(f"Could not extract archive: {target} is not a {archive_format} archive.", stacklevel=2)
    return extraction_dir
