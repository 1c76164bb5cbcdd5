"""Find a data file in a local folder, or download it once and verify it.

    from tfkit.datasets import download
    path = download.get_file("mnist.npz", origin=URL, sha256=HASH)
    # -> $TFKIT_DATA_DIR/mnist.npz, else <cache>/mnist.npz (downloaded if absent)

Lookup order for a file name ``fname``:

1. ``$TFKIT_DATA_DIR/<fname>`` when that environment variable is set
   (read-only folders are fine: nothing is ever written there);
2. ``<cache>/<fname>``, where ``<cache>`` is ``$TFKIT_CACHE_DIR`` when set and
   ``~/.tfkit/datasets`` otherwise.

A file found in either folder is used as it is (callers validate its content).
Only when neither has it is ``origin`` downloaded with ``urllib`` into a
temporary file beside the destination, its sha256 (or, for files whose
publishers give only that, its md5) checked against the expected one, and the file renamed into the cache atomically, so an interrupted or
corrupt download never leaves a half-written file under the final name.
Standard library only.
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

DATA_DIR_ENV = "TFKIT_DATA_DIR"
CACHE_DIR_ENV = "TFKIT_CACHE_DIR"
DEFAULT_CACHE_DIR = Path("~/.tfkit/datasets")
_CHUNK_BYTES = 1 << 20
_NETWORK_ERRORS = (urllib.error.URLError, http.client.HTTPException, TimeoutError, ConnectionError)

logger = logging.getLogger(__name__)


class DownloadError(OSError):
    """A data file was not found locally and could not be downloaded.

    Raised by `get_file` (and so by every `tfkit.datasets` loader) when the file is in
    neither `$TFKIT_DATA_DIR` nor the cache and its origin cannot be reached or read. The
    message names the origin and the reason, and says where to put a copy downloaded by
    hand. A subclass of `OSError`, so `except OSError` catches it too.

    Example:
        >>> import pathlib
        >>> missing = pathlib.Path("missing.bin").absolute().as_uri()
        >>> try:
        ...     tfkit.datasets.download.download(missing, "copy.bin", md5="0" * 32)
        ... except tfkit.datasets.DownloadError as error:
        ...     print(str(error).splitlines()[0])
        Could not download copy.bin from file:///.../missing.bin: [Errno 2] No such file or directory: '...'.
        >>> issubclass(tfkit.datasets.DownloadError, OSError)
        True
    """


def _env_dir(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def data_dir() -> Path | None:
    """Returns the user's read-only data folder, `$TFKIT_DATA_DIR`, or `None` if it is unset.

    Data files are looked for there first; tfkit never writes into it. A leading `~` is
    expanded; an empty or blank value counts as unset.

    Returns:
        A `pathlib.Path`, or `None`.

    Example:
        >>> import os
        >>> folder = tfkit.datasets.download.data_dir()
        >>> folder is None or str(folder) == os.environ["TFKIT_DATA_DIR"]
        True
    """
    return _env_dir(DATA_DIR_ENV)


def cache_dir() -> Path:
    """Returns the download cache folder: `$TFKIT_CACHE_DIR` if set, else `~/.tfkit/datasets`.

    Files not found in `$TFKIT_DATA_DIR` are looked for, and downloaded, here. A leading
    `~` is expanded. The folder is created only when something is downloaded into it.

    Returns:
        A `pathlib.Path`.

    Example:
        >>> tfkit.datasets.download.cache_dir().is_absolute()
        True
    """
    return _env_dir(CACHE_DIR_ENV) or DEFAULT_CACHE_DIR.expanduser()


def _checked_name(fname: str | os.PathLike) -> Path:
    """``fname`` as a path that stays inside the folder it is joined to (absolute paths are the caller's own)."""
    path = Path(fname)
    if not path.is_absolute() and (".." in path.parts or not path.parts):
        raise ValueError(
            f"fname must be a file name inside the data or cache folder (or an absolute path), got {str(fname)!r}"
        )
    return path


def candidate_paths(fname: str | os.PathLike) -> list[Path]:
    """Returns the paths where `fname` is looked for, in order.

    First `$TFKIT_DATA_DIR/fname` (when the variable is set), then `<cache>/fname` (see
    `cache_dir`). An absolute `fname` is its own only candidate.

    Args:
        fname: A file name (or relative path such as `"fashion-mnist/x.gz"`) inside the
            data or cache folder, or an absolute path.

    Returns:
        A list of `pathlib.Path`, without duplicates.

    Raises:
        ValueError: If a relative `fname` is empty or holds `..`.

    Example:
        >>> from tfkit.datasets import download
        >>> download.candidate_paths("mnist.npz")[-1] == download.cache_dir() / "mnist.npz"
        True
        >>> download.candidate_paths("../mnist.npz")
        Traceback (most recent call last):
        ...
        ValueError: fname must be a file name inside the data or cache folder (or an absolute path), got '../mnist.npz'
    """
    fname = _checked_name(fname)
    folders = [folder for folder in (data_dir(), cache_dir()) if folder is not None]
    candidates: list[Path] = []
    for folder in folders:
        path = folder / fname
        if path not in candidates:
            candidates.append(path)
    return candidates


def find_local(fname: str | os.PathLike) -> Path | None:
    """Returns the first existing file among `candidate_paths(fname)`, or `None`.

    Nothing is downloaded or hashed.

    Args:
        fname: A file name inside the data or cache folder, or an absolute path.

    Returns:
        A `pathlib.Path`, or `None` when no candidate is a file.

    Raises:
        ValueError: If a relative `fname` is empty or holds `..`.

    Example:
        >>> import pathlib
        >>> _ = pathlib.Path("notes.txt").write_text("hello")
        >>> tfkit.datasets.download.find_local(pathlib.Path("notes.txt").absolute()).name
        'notes.txt'
        >>> print(tfkit.datasets.download.find_local("no-such-file.bin"))
        None
    """
    for path in candidate_paths(fname):
        if path.is_file():
            return path
    return None


def _expected_hash(sha256: str | None, md5: str | None) -> tuple[str, str]:
    """``(algorithm, lower-case hex digest)`` from exactly one of ``sha256`` / ``md5``, checked."""
    if (sha256 is None) == (md5 is None):
        raise ValueError(f"pass exactly one of sha256 and md5, got sha256={sha256!r}, md5={md5!r}")
    algorithm, value, digits = ("sha256", sha256, 64) if sha256 is not None else ("md5", md5, 32)
    expected = str(value).strip().lower()
    if len(expected) != digits or any(c not in "0123456789abcdef" for c in expected):
        raise ValueError(f"{algorithm} must be {digits} hex digits, got {value!r}")
    return algorithm, expected


def sha256_of(path: str | os.PathLike) -> str:
    """Returns the hex sha256 digest of a file's bytes, read in chunks of 1 MiB.

    Args:
        path: The file to hash.

    Returns:
        The digest as 64 lower-case hex digits.

    Example:
        >>> import pathlib
        >>> _ = pathlib.Path("notes.txt").write_text("hello\\n")
        >>> tfkit.datasets.download.sha256_of("notes.txt")
        '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03'
    """
    return hash_of(path, "sha256")


def hash_of(path: str | os.PathLike, algorithm: str = "sha256") -> str:
    """Returns the hex digest of a file's bytes, read in chunks of 1 MiB.

    Args:
        path: The file to hash.
        algorithm: `"sha256"` or `"md5"`. Defaults to `"sha256"`.

    Returns:
        The digest as lower-case hex digits (64 for sha256, 32 for md5).

    Raises:
        ValueError: If `algorithm` is neither `"sha256"` nor `"md5"`.

    Example:
        >>> import pathlib
        >>> _ = pathlib.Path("notes.txt").write_text("hello\\n")
        >>> tfkit.datasets.download.hash_of("notes.txt", "md5")
        'b1946ac92492d2347c6235b4d2611184'
        >>> tfkit.datasets.download.hash_of("notes.txt", "sha1")
        Traceback (most recent call last):
        ...
        ValueError: algorithm must be 'sha256' or 'md5', got 'sha1'
    """
    if algorithm not in ("sha256", "md5"):
        raise ValueError(f"algorithm must be 'sha256' or 'md5', got {algorithm!r}")
    digest = hashlib.new(algorithm)
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK_BYTES), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return str(exc.reason)
    return f"{type(exc).__name__}: {exc}"


def _manual_instructions(fname: str | os.PathLike, origin: str) -> str:
    env = data_dir()
    data_line = (
        f"  - {env / fname}  ($TFKIT_DATA_DIR is set to {env})"
        if env is not None
        else f"  - <folder>/{fname}, then set TFKIT_DATA_DIR=<folder>"
    )
    return (
        f"To use it without network access, download {origin} elsewhere and put it at one of:\n"
        f"{data_line}\n"
        f"  - {cache_dir() / fname}  (the tfkit cache; set TFKIT_CACHE_DIR to move it)"
    )


def download(
    origin: str,
    destination: str | os.PathLike,
    sha256: str | None = None,
    *,
    md5: str | None = None,
    timeout: float = 60.0,
    fname_for_messages: str | None = None,
) -> Path:
    """Downloads `origin` to `destination`, verifying its hash before an atomic rename.

    The bytes are streamed with `urllib` into a temporary file beside `destination`
    (whose folder is created if needed) while being hashed; only when the digest matches
    is the file renamed to `destination`, so an interrupted or corrupt download never
    leaves a half-written file under the final name. Exactly one of `sha256` and `md5` is
    expected (`md5` for files whose publishers give only that, as Keras's `get_file`
    accepts). Unlike `get_file`, this always downloads.

    Args:
        origin: The URL to read (anything `urllib.request.urlopen` opens, `file:` URLs
            included).
        destination: The path to write.
        sha256: The expected sha256 digest, 64 hex digits (case is ignored). Defaults to
            `None`.
        md5: The expected md5 digest, 32 hex digits, keyword-only. Defaults to `None`.
        timeout: The network timeout in seconds. Defaults to `60.0`.
        fname_for_messages: The name used in error messages. Defaults to `None`, the name
            of `destination`.

    Returns:
        `destination` as a `pathlib.Path`.

    Raises:
        ValueError: If both or neither of `sha256` and `md5` are given or one is not hex
            digits of the right length, or if the downloaded bytes do not match it (the
            message names both digests).
        DownloadError: If the origin cannot be reached or read; the message says where to
            put a copy downloaded by hand.

    Example:
        >>> import pathlib
        >>> source = pathlib.Path("notes.txt").absolute()
        >>> _ = source.write_text("hello\\n")
        >>> digest = tfkit.datasets.download.sha256_of(source)
        >>> tfkit.datasets.download.download(source.as_uri(), "copy.txt", sha256=digest).read_text()
        'hello\\n'
        >>> tfkit.datasets.download.download(source.as_uri(), "bad.txt", sha256="0" * 64)
        Traceback (most recent call last):
        ...
        ValueError: Downloaded bad.txt from file:///.../notes.txt has sha256 5891b5b5..., expected 0000...
        >>> pathlib.Path("bad.txt").exists()
        False
    """
    algorithm, expected = _expected_hash(sha256, md5)
    destination = Path(destination)
    label = fname_for_messages or destination.name
    destination.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(
        dir=destination.parent, prefix=f".{destination.name}.", suffix=".part", delete=False
    )
    temp_path = Path(handle.name)
    try:
        digest = hashlib.new(algorithm)
        with handle:
            try:
                with urllib.request.urlopen(origin, timeout=timeout) as response:
                    for chunk in iter(lambda: response.read(_CHUNK_BYTES), b""):
                        digest.update(chunk)
                        handle.write(chunk)
            except _NETWORK_ERRORS as exc:
                reason = _describe(exc)
                raise DownloadError(
                    f"Could not download {label} from {origin}: {reason}.\n" + _manual_instructions(label, origin)
                ) from exc
        actual = digest.hexdigest()
        if actual != expected:
            raise ValueError(
                f"Downloaded {label} from {origin} has {algorithm} {actual}, expected {expected}; "
                "the file was discarded (a corrupt download or a changed origin)."
            )
        os.replace(temp_path, destination)
    except BaseException:
        temp_path.unlink(missing_ok=True)
        raise
    logger.info("Downloaded %s to %s", origin, destination)
    return destination


def get_file(
    fname: str | os.PathLike, origin: str, sha256: str | None = None, *, md5: str | None = None, timeout: float = 60.0
) -> Path:
    """Returns the path of a data file, downloading it into the cache if it is not found locally.

    `fname` is looked for in `$TFKIT_DATA_DIR` (when set; tfkit never writes there), then
    in the cache (`$TFKIT_CACHE_DIR`, default `~/.tfkit/datasets`). A file found in either
    is returned as it is: it is not re-hashed, and the caller validates what it loads.
    Only when neither has it is `origin` downloaded into the cache with `download`, its
    hash checked before the file is renamed into place. Unlike Keras's
    `keras.utils.get_file`, a hash is required and archives are not extracted.

    Args:
        fname: A file name (or relative path such as `"fashion-mnist/x.gz"`) inside the
            data or cache folder, or an absolute path.
        origin: The URL to download from when the file is not found locally.
        sha256: The expected sha256 digest of the downloaded bytes, 64 hex digits.
            Defaults to `None`.
        md5: The expected md5 digest, 32 hex digits, for files whose publishers give only
            that; keyword-only. Exactly one of `sha256` and `md5` must be given. Defaults to
            `None`.
        timeout: The network timeout in seconds. Defaults to `60.0`.

    Returns:
        The file's `pathlib.Path`.

    Raises:
        ValueError: If a relative `fname` is empty or holds `..`, if both or neither of
            `sha256` and `md5` are given or one is malformed (checked even when the file is
            present), or if a download does not match its hash.
        DownloadError: If the file is not found locally and the download fails.

    Example:
        >>> import pathlib
        >>> local = pathlib.Path("notes.txt").absolute()
        >>> _ = local.write_text("hello")
        >>> path = tfkit.datasets.get_file(local, origin="https://example.invalid/notes.txt", sha256="0" * 64)
        >>> path.read_text()
        'hello'
        >>> tfkit.datasets.get_file("notes.txt", origin="https://example.invalid/notes.txt")
        Traceback (most recent call last):
        ...
        ValueError: pass exactly one of sha256 and md5, got sha256=None, md5=None
    """
    fname = _checked_name(fname)
    _expected_hash(sha256, md5)
    found = find_local(fname)
    if found is not None:
        return found
    destination = cache_dir() / fname
    logger.info("%s not found in %s; downloading %s", fname, candidate_paths(fname), origin)
    return download(origin, destination, sha256, md5=md5, timeout=timeout, fname_for_messages=str(fname))
