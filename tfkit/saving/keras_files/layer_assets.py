"""The files layers keep beside their weights (a tokenizer's vocabulary), in a ``.keras`` archive's ``assets/``.

    members = collect_assets(model)          # {"assets/preprocessor/tokenizer/vocabulary.txt": b"..."}
    restore_assets(model, archive.assets)    # each holder's load_assets() on its own files

Keras 3's protocol: an object with ``save_assets(dir)`` writes files into a
folder, which the archive stores under ``assets/<its path>/``, and
``load_assets(dir)`` reads them back. The path is the chain of attribute names
from the model, public names as Keras walks them (a task's ``_preprocessor``
behind its ``preprocessor`` property is ``preprocessor``), a list's layers by
their names: a KerasHub task's tokenizer is ``preprocessor/tokenizer`` in
Keras's archives and in tfkit's. On loading, each holder gets a fresh private
folder holding only its own members (plain file names, already read under the
archive's size limits), so ``load_assets`` never sees another path; members no
holder claims are reported, never written anywhere.
"""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any, Iterator

import tensorflow as tf

# a member of assets/ that a holder may own: assets/<path>/<file>, every part a plain name
_PART = r"(?!\.\.?(?:/|$))[A-Za-z0-9_.-]+"  # a plain name: not "." or ".."
ASSET_MEMBER = re.compile(rf"assets/((?:{_PART}/)*{_PART})/({_PART})")
_MAX_DEPTH = 32


def _plain(part: str) -> bool:
    return part not in ("", ".", "..")


def _public_name(owner: Any, attribute: str) -> str:
    """``preprocessor`` for ``_preprocessor`` where the class has that property, as Keras's walk names it."""
    if attribute.startswith("_") and not attribute.startswith("__"):
        public = attribute.lstrip("_")
        if isinstance(getattr(type(owner), public, None), property):
            return public
    return attribute


def holders(root: Any) -> Iterator[tuple[str, Any]]:
    """``(path, object)`` for every object under ``root`` with ``save_assets`` and ``load_assets``, each once."""
    seen: set[int] = set()

    def visit(obj: Any, path: str, depth: int) -> Iterator[tuple[str, Any]]:
        if id(obj) in seen or depth > _MAX_DEPTH:
            return
        seen.add(id(obj))
        if path and callable(getattr(obj, "save_assets", None)) and callable(getattr(obj, "load_assets", None)):
            yield path, obj
        for attribute, value in sorted(vars(obj).items()):
            name = _public_name(obj, attribute)
            if name.startswith("_"):
                continue
            prefix = f"{path}/{name}" if path else name
            if isinstance(value, tf.Module):
                yield from visit(value, prefix, depth + 1)
            elif isinstance(value, (list, tuple)):
                for item in value:
                    if isinstance(item, tf.Module) and isinstance(getattr(item, "name", None), str):
                        yield from visit(item, f"{prefix}/{item.name}", depth + 1)

    yield from visit(root, "", 0)


def collect_assets(model: Any) -> dict[str, bytes]:
    """``{"assets/<path>/<file>": bytes}`` of every holder's ``save_assets`` under ``model``."""
    members: dict[str, bytes] = {}
    for path, holder in holders(model):
        with tempfile.TemporaryDirectory(prefix="tfkit-assets-") as folder:
            holder.save_assets(folder)
            for name in sorted(os.listdir(folder)):
                file_path = os.path.join(folder, name)
                if not os.path.isfile(file_path) or ASSET_MEMBER.fullmatch(f"assets/{path}/{name}") is None:
                    raise ValueError(
                        f"layer at '{path}' ({type(holder).__name__}): save_assets wrote {name!r}, which is not a "
                        "plain file a .keras archive can hold (letters, digits, '_', '.', '-')"
                    )
                with open(file_path, "rb") as f:
                    members[f"assets/{path}/{name}"] = f.read()
    return members


def restore_assets(model: Any, assets: dict[str, dict[str, bytes]], archive: str) -> list[str]:
    """Hands each holder under ``model`` its files (``{path: {file: bytes}}``); returns the paths none claimed."""
    claimed = set()
    for path, holder in holders(model):
        files = assets.get(path)
        if not files:
            continue
        claimed.add(path)
        with tempfile.TemporaryDirectory(prefix="tfkit-assets-") as folder:
            for name, data in files.items():
                if not _plain(name) or "/" in name:
                    raise ValueError(f"{archive}: asset file name {name!r} under assets/{path} is not a plain name")
                with open(os.path.join(folder, name), "xb") as f:
                    f.write(data)
            try:
                holder.load_assets(folder)
            except ValueError as error:
                raise ValueError(f"{archive}: assets/{path}: {error}") from error
    return sorted(set(assets) - claimed)
