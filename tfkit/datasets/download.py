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
    """A data file was not found locally and could not be downloaded."""


def _env_dir(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def data_dir() -> Path | None:
    """The user's read-only data folder (``$TFKIT_DATA_DIR``), or None if unset."""
    return _env_dir(DATA_DIR_ENV)


def cache_dir() -> Path:
    """The download cache: ``$TFKIT_CACHE_DIR`` if set, else ``~/.tfkit/datasets``."""
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
    """Where ``fname`` is looked for, in order (an absolute ``fname`` is its own only candidate)."""
    fname = _checked_name(fname)
    folders = [folder for folder in (data_dir(), cache_dir()) if folder is not None]
    candidates: list[Path] = []
    for folder in folders:
        path = folder / fname
        if path not in candidates:
            candidates.append(path)
    return candidates


def find_local(fname: str | os.PathLike) -> Path | None:
    """The first existing file among ``candidate_paths(fname)``, or None."""
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
    """Hex sha256 of a file's bytes, read in chunks."""
    return hash_of(path, "sha256")


def hash_of(path: str | os.PathLike, algorithm: str = "sha256") -> str:
    """Hex ``algorithm`` (``"sha256"`` or ``"md5"``) digest of a file's bytes, read in chunks."""
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
    """Download ``origin`` to ``destination``, verifying its hash before the atomic rename.

    Exactly one of ``sha256`` (64 hex digits) and ``md5`` (32 hex digits, for
    files whose publishers give only an md5, as Keras's ``get_file`` accepts) is
    expected.

    Raises ``ValueError`` (naming both hashes) when the bytes do not match and
    ``DownloadError`` when the origin cannot be reached or read; in both cases
    no file is left behind.
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
                    f"Could not download {label} from {origin}: {reason}.\n"
                    + _manual_instructions(label, origin)
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
    fname: str | os.PathLike,
    origin: str,
    sha256: str | None = None,
    *,
    md5: str | None = None,
    timeout: float = 60.0,
) -> Path:
    """Path of ``fname`` from the data folder or the cache, downloading it into the cache if absent.

    Files already present are not re-hashed; the caller validates what it loads.
    """
    fname = _checked_name(fname)
    _expected_hash(sha256, md5)
    found = find_local(fname)
    if found is not None:
        return found
    destination = cache_dir() / fname
    logger.info("%s not found in %s; downloading %s", fname, candidate_paths(fname), origin)
    return download(origin, destination, sha256, md5=md5, timeout=timeout, fname_for_messages=str(fname))
