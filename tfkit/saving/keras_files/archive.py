"""A Keras 3 ``.keras`` archive read as data: its config, metadata and weights file, under limits.

    with read_archive("model.keras") as archive:
        archive.config                 # the parsed config.json (a dict)
        archive.weights_path           # model.weights.h5 copied to a private temporary file (TMPDIR)

A ``.keras`` file is a zip of ``config.json``, ``metadata.json`` and
``model.weights.h5`` (and sometimes ``assets/``). Nothing in it is executed,
unpickled or extracted by its own name: the three members are found by exact
name, they must be stored or deflated (zipfile inflates bzip2 and LZMA without
an output limit), their declared sizes and compression ratios are checked
before a byte is inflated (the ratio against the archive's real size, since a
declared compressed size can be forged), reading stops at the declared size,
and the weights go to a
temporary file this process creates, its space reserved first (``scratch``;
read later by the guarded HDF5 reader): a full temporary folder is an
``OSError`` saying so, never "a damaged zip archive".
The lookup layers' vocabularies (``assets/layers/<layer path>/vocabulary.txt``,
one token a line) and the other ``assets/<layer path>/<file>`` members (a
tokenizer's vocabulary: ``layer_assets``) are read into memory as bytes, under
the same limits, 64 MiB in all. Any other member is listed in the import
report, never opened.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any, Iterator

from tfkit.engine.config_safety import loads_json
from tfkit.files.zip_errors import ZIP_READ_ERRORS
from tfkit.saving.keras_files.layer_assets import ASSET_MEMBER
from tfkit.saving.keras_files.scratch import scratch_file

MAX_MEMBERS = 10_000
MAX_CONFIG_BYTES = 16 * 2**20
MAX_WEIGHTS_BYTES = 64 * 2**30
MAX_RATIO = 64  # float weights barely compress; a higher ratio is a zip bomb
MAX_VOCABULARY_BYTES = 64 * 2**20  # all assets/ members together
MAX_ASSET_MEMBERS = 1024
_KNOWN = ("config.json", "metadata.json", "model.weights.h5", "tfkit.json")  # tfkit.json: archive_state reads it
_RESOURCE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EMFILE, errno.ENFILE)
# Keras 3's IndexLookup.save_assets: the vocabulary of the layer at <path>, special tokens first
_VOCABULARY = re.compile(r"assets/(layers(?:/[A-Za-z0-9_.-]+)+)/vocabulary\.txt")


@dataclass
class Archive:
    path: str
    config: dict[str, Any]
    metadata: dict[str, Any]
    weights_path: str | None
    other_members: list[str] = field(default_factory=list)
    vocabularies: dict[str, bytes] = field(default_factory=dict)  # "layers/string_lookup" -> file bytes
    assets: dict[str, dict[str, bytes]] = field(default_factory=dict)  # "preprocessor/tokenizer" -> {file: bytes}


def is_zip(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"PK\x03\x04"


# zipfile inflates deflate data in bounded steps, but hands bzip2 and LZMA data to a decompressor
# without an output limit: a few KB of bzip2 become gigabytes in one read. Keras writes deflate.
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}


def _member(zf: zipfile.ZipFile, name: str, path: str, limit: int) -> zipfile.ZipInfo | None:
    infos = [info for info in zf.infolist() if info.filename == name]
    if not infos:
        return None
    if len(infos) > 1:
        raise ValueError(f"{path}: the archive holds {name!r} {len(infos)} times; a .keras file holds it once")
    info = infos[0]
    if info.compress_type not in _METHODS:
        raise ValueError(
            f"{path}: {name} is compressed with zip method {info.compress_type}; tfkit reads only "
            f"{' or '.join(_METHODS.values())} members (what Keras writes)"
        )
    if info.file_size > limit:
        raise ValueError(f"{path}: {name} declares {info.file_size} bytes; at most {limit} are accepted")
    # The declared compressed size is the archive's word; its real data cannot be larger than the archive.
    compressed = max(min(info.compress_size, os.path.getsize(path)), 1)
    if info.file_size > 2**20 and info.file_size > MAX_RATIO * compressed:
        raise ValueError(
            f"{path}: {name} would inflate {info.file_size // compressed}-fold "
            f"({compressed} -> {info.file_size} bytes); a ratio above {MAX_RATIO} is refused"
        )
    return info


def _read_text(zf: zipfile.ZipFile, info: zipfile.ZipInfo, path: str) -> Any:
    with zf.open(info) as member:
        data = member.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise ValueError(f"{path}: {info.filename} holds more bytes than it declares")
    return loads_json(data, f"{path}: {info.filename}")  # size, value-count and depth limits


@contextlib.contextmanager
def read_archive(path: str) -> Iterator[Archive]:
    """Open a ``.keras`` archive as an :class:`Archive`; ``ValueError`` for anything but a sound one."""
    try:
        zf = zipfile.ZipFile(path)
    except ZIP_READ_ERRORS as error:
        raise ValueError(f"{path} is not a readable zip archive (.keras): {error}") from None
    with zf, contextlib.ExitStack() as scratch:
        try:
            infos = zf.infolist()
            if len(infos) > MAX_MEMBERS:
                raise ValueError(f"{path}: the archive has {len(infos)} members; at most {MAX_MEMBERS} are accepted")
            config_info = _member(zf, "config.json", path, MAX_CONFIG_BYTES)
            if config_info is None:
                raise ValueError(f"{path} is a zip archive without config.json: not a Keras .keras file")
            config = _read_text(zf, config_info, path)
            if not isinstance(config, dict):
                raise ValueError(f"{path}: config.json must hold an object, got {type(config).__name__}")
            metadata_info = _member(zf, "metadata.json", path, 2**20)
            metadata = _read_text(zf, metadata_info, path) if metadata_info is not None else {}
            weights_info = _member(zf, "model.weights.h5", path, MAX_WEIGHTS_BYTES)
            weights_path = None
            if weights_info is not None:  # to a file of our own naming, never the member's
                out, weights_path = scratch.enter_context(
                    scratch_file(weights_info.file_size, f"model.weights.h5 of {path}")
                )
                with zf.open(weights_info) as member:
                    copied = _copy_limited(member, out, weights_info.file_size)
                out.close()
                if copied != weights_info.file_size:
                    raise ValueError(
                        f"{path}: model.weights.h5 holds {copied} bytes but declares {weights_info.file_size}"
                    )
            vocabularies, assets = _assets(zf, infos, path)
            others = sorted(
                info.filename
                for info in infos
                if info.filename not in _KNOWN and not ASSET_MEMBER.fullmatch(info.filename)
            )
        except _WriteFailed as failure:  # our copy, not the archive: reported as what it is
            error = failure.error
            raise OSError(
                error.errno,
                f"{path}: unpacking model.weights.h5 to a temporary file failed "
                f"({error.strerror or error}). The archive itself was not judged: point "
                f"TMPDIR at a folder with room, and load it again",
                path,
            ) from error
        except ZIP_READ_ERRORS as error:
            if isinstance(error, OSError) and error.errno in _RESOURCE_ERRNOS:
                raise  # no room for a scratch file, too many open files: not the archive
            raise ValueError(f"{path}: a damaged zip archive ({type(error).__name__}: {error})") from None
        yield Archive(
            path, config, metadata if isinstance(metadata, dict) else {}, weights_path, others, vocabularies, assets
        )


def require_weights(archive: Archive, weight_count: int) -> None:
    """Refuse an archive without ``model.weights.h5``, as Keras 3 does, once its config is known to rebuild.

    Keras writes ``model.weights.h5`` into every ``.keras`` file, a model without weights
    included, and its loader refuses an archive without one ("Expected a model.weights.h5 or
    model.weights.npz file"); loading it anyway would give freshly initialised weights
    without a word. ``weight_count``: how many weights the rebuilt model has, for the message.
    """
    if archive.weights_path is not None:
        return
    if "model.weights.npz" in archive.other_members:
        why = "it holds model.weights.npz (Keras's weights_format='npz'), which tfkit does not read"
    else:
        why = "Keras writes that file into every .keras archive and refuses one without it"
    raise ValueError(
        f"{archive.path}: the archive holds no model.weights.h5, so the model it describes "
        f"({weight_count} weights) would load with freshly initialised weights; {why}. Save the model again "
        f"(model.save('model.keras')), or build it in code and load the weights with model.load_weights(path)."
    )


def _assets(
    zf: zipfile.ZipFile, infos: list[zipfile.ZipInfo], path: str
) -> tuple[dict[str, bytes], dict[str, dict[str, bytes]]]:
    """Every ``assets/<layer path>/<file>`` member's bytes, at most 64 MiB in all: the lookup layers'
    ``vocabulary.txt`` keyed by layer path, and all of them as ``{layer path: {file: bytes}}``."""
    vocabularies: dict[str, bytes] = {}
    assets: dict[str, dict[str, bytes]] = {}
    total = 0
    members = [info for info in infos if ASSET_MEMBER.fullmatch(info.filename)]
    if len(members) > MAX_ASSET_MEMBERS:
        raise ValueError(f"{path}: {len(members)} assets/ members; at most {MAX_ASSET_MEMBERS} are accepted")
    for info in members:
        match = ASSET_MEMBER.fullmatch(info.filename)
        checked = _member(zf, info.filename, path, MAX_VOCABULARY_BYTES)  # once, within the size and ratio limits
        total += checked.file_size
        if total > MAX_VOCABULARY_BYTES:
            raise ValueError(f"{path}: the assets/ members declare more than {MAX_VOCABULARY_BYTES} bytes in all")
        with zf.open(checked) as member:
            data = member.read(checked.file_size + 1)
        if len(data) != checked.file_size:
            raise ValueError(f"{path}: {info.filename} holds more bytes than it declares")
        assets.setdefault(match.group(1), {})[match.group(2)] = data
        lookup = _VOCABULARY.fullmatch(info.filename)
        if lookup is not None:
            vocabularies[lookup.group(1)] = data
    return vocabularies, assets


class _WriteFailed(Exception):
    """Writing our own copy failed (a full temporary folder), as opposed to reading the archive."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def _copy_limited(source: Any, target: Any, declared: int) -> int:
    """Copy at most ``declared + 1`` bytes (one more shows a member longer than it says)."""
    copied = 0
    while copied <= declared:
        chunk = source.read(min(2**20, declared + 1 - copied))
        if not chunk:
            break
        try:
            target.write(chunk)
        except OSError as error:
            raise _WriteFailed(error) from error
        copied += len(chunk)
    try:
        target.flush()
    except OSError as error:
        raise _WriteFailed(error) from error
    return copied
