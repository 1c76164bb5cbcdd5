"""tfkit's public API as a user meets it, and how well each name is documented.

    python tools/api_reference.py                 # the table: docstring, arguments, example
    python tools/api_reference.py --namespace layers --failing    # what a namespace still lacks
    python tools/api_reference.py --write-debt    # rewrite tools/docstring_debt.txt from the code

The public names are those of the Keras-named namespaces ``tools/keras_coverage.py``
walks, plus ``distillation``, the ``datasets`` loader modules and KerasHub's namespaces in
``tfkit.hub`` (``models``, ``tokenizers``, ``layers``, ``samplers``): every class and
function defined by tfkit under a public name. A name passes when its docstring
(a class's own plus its ``__init__``'s) has a summary, an ``Args:`` entry for
every parameter of its signature, and an ``Example:`` section with a doctest.
Docstrings are read through Sphinx's napoleon, as the site (``docs/conf.py``)
renders them. ``tests/test_docstrings.py`` holds the code
to these rules; names not yet written up are listed in ``tools/docstring_debt.txt``,
which may only shrink.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import inspect
import os
import pathlib
import re
import sys
import types
from typing import Iterator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its sibling, also when loaded by path
from keras_coverage import NAMESPACES as KERAS_NAMESPACES  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

# Namespaces documented: Keras's, then tfkit's own additions, then KerasHub's (tfkit.hub, imported here:
# ``import tfkit`` does not import it).
HUB_NAMESPACES = ["hub.models", "hub.tokenizers", "hub.layers", "hub.samplers", "hub.metrics", "hub.utils"]
NAMESPACES = [ns for ns in KERAS_NAMESPACES] + ["distillation"] + HUB_NAMESPACES
# Namespaces whose public modules hold public names of their own (tfkit.datasets.mnist.load_data).
MODULE_NAMESPACES = ("datasets",)
DEBT_FILE = pathlib.Path(__file__).with_name("docstring_debt.txt")

RULES = ("docstring", "arguments", "example")
# Keras's extra docstring sections, as the site renders them (docs/conf.py uses this list).
NAPOLEON_CUSTOM_SECTIONS = [
    ("Call arguments", "params_style"),
    "Input shape",
    "Output shape",
    "Config keys",
    "Call returns",
]


@dataclasses.dataclass(frozen=True)
class ApiEntry:
    """One public name: where a user finds it and what it is."""

    namespace: str
    name: str
    obj: object

    @property
    def path(self) -> str:
        return ".".join(p for p in ("tfkit", self.namespace, self.name) if p)


def _module(namespace: str) -> types.ModuleType:
    import importlib

    import tfkit

    if namespace.split(".")[0] == "hub":
        importlib.import_module(f"tfkit.{namespace}")
    obj: object = tfkit
    for part in [p for p in namespace.split(".") if p]:
        obj = getattr(obj, part)
    assert isinstance(obj, types.ModuleType), namespace
    return obj


def _is_tfkit_callable(value: object) -> bool:
    if isinstance(value, types.ModuleType) or not callable(value):
        return False
    return (getattr(value, "__module__", None) or "").startswith("tfkit")


def namespaces() -> list[str]:
    """Every documented namespace, the datasets' loader modules included."""
    found = list(NAMESPACES)
    for parent in MODULE_NAMESPACES:
        module = _module(parent)
        for name in sorted(dir(module)):
            value = getattr(module, name)
            if (
                not name.startswith("_")
                and isinstance(value, types.ModuleType)
                and value.__name__.startswith(f"tfkit.{parent}.")
            ):
                found.append(f"{parent}.{name}")
    return found


@functools.lru_cache(maxsize=1)
def public_api() -> tuple[ApiEntry, ...]:
    """Every (namespace, public name) whose value is a tfkit class or function.

    A namespace's public names are its ``__all__`` where it has one (helpers it
    imports are not API), else every name without a leading underscore.
    """
    entries = []
    for namespace in namespaces():
        module = _module(namespace)
        declared = getattr(module, "__all__", None)  # a module's own list of its public names wins
        for name in sorted(declared if declared is not None else dir(module)):
            if not name.startswith("_") and _is_tfkit_callable(getattr(module, name)):
                entries.append(ApiEntry(namespace, name, getattr(module, name)))
    return tuple(entries)


def unique_objects() -> list[ApiEntry]:
    """The first entry of each distinct object (``tfkit.ops.add`` is ``tfkit.ops.numpy.add``)."""
    seen: set[int] = set()
    first = []
    for entry in public_api():
        if id(entry.obj) not in seen:
            seen.add(id(entry.obj))
            first.append(entry)
    return first


# ------------------------------------------------------------------ the rules


def docstring_of(obj: object) -> str:
    """The text a user reads: a function's docstring, or a class's own plus its ``__init__``'s."""
    own = obj.__dict__.get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)
    parts = [inspect.cleandoc(own)] if own else []
    if isinstance(obj, type):
        init = obj.__dict__.get("__init__")
        init_doc = getattr(init, "__doc__", None)
        if init_doc:
            parts.append(inspect.cleandoc(init_doc))
    return "\n\n".join(parts)


def parameters_of(obj: object) -> list[str]:
    """The parameter names a user can pass, ``*args``/``**kwargs`` written with their stars."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    names = []
    for p in signature.parameters.values():
        if p.name in ("self", "cls"):
            continue
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(prefix + p.name)
    return names


def napoleon_lines(text: str, is_class: bool = False) -> list[str]:
    """The reST napoleon makes of a Google-style docstring, as the site renders it."""
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import GoogleDocstring

    config = Config(
        napoleon_use_param=True,
        napoleon_use_rtype=False,
        napoleon_use_ivar=True,
        napoleon_custom_sections=NAPOLEON_CUSTOM_SECTIONS,
    )
    return GoogleDocstring(text, config, what="class" if is_class else "function").lines()


def documented_parameters(text: str) -> set[str]:
    """The names of ``Args:`` entries (``*args`` and ``**kwargs`` with their stars)."""
    names = set()
    for line in napoleon_lines(text):
        match = re.match(r":param (?:[^:]*? )?([\\*\w]+):", line)
        if match:
            names.add(match.group(1).replace("\\", ""))
    return names


def has_example(text: str) -> bool:
    """An ``Example:``/``Examples:`` section holding a doctest (``>>>``)."""
    lines = napoleon_lines(text)
    for i, line in enumerate(lines):
        if line.strip() in (".. rubric:: Example", ".. rubric:: Examples"):
            return any(later.lstrip().startswith(">>>") for later in lines[i + 1 :])
    return False


def problems(obj: object) -> list[str]:
    """The rules ``obj``'s docstring breaks: a subset of ``RULES``, with the missing arguments."""
    text = docstring_of(obj)
    if not text.strip():
        return ["docstring", "arguments", "example"] if parameters_of(obj) else ["docstring", "example"]
    found = []
    missing = [
        p
        for p in parameters_of(obj)
        if p not in documented_parameters(text) and p.lstrip("*") not in documented_parameters(text)
    ]
    if missing:
        found.append("arguments: " + ", ".join(missing))
    if not has_example(text):
        found.append("example")
    return found


@functools.lru_cache(maxsize=1)
def _register_sphinx_roles() -> None:
    """Sphinx's roles (``:class:``, ...) as plain literals, so bare docutils parses what the site parses."""
    from docutils import nodes
    from docutils.parsers.rst import roles

    for role in (
        "class",
        "func",
        "meth",
        "mod",
        "attr",
        "obj",
        "exc",
        "data",
        "ref",
        "doc",
        "py:class",
        "py:func",
        "py:meth",
        "py:mod",
        "py:attr",
        "py:obj",
        "py:exc",
        "py:data",
        "math",
    ):
        roles.register_generic_role(role, nodes.literal)


def restructured_text_warnings(obj: object) -> list[str]:
    """What docutils says of ``obj``'s docstring once napoleon has turned it into reST, as the site builds it."""
    import io

    import docutils.core

    _register_sphinx_roles()
    text = docstring_of(obj)
    if not text:
        return []
    rst = "\n".join(napoleon_lines(text, isinstance(obj, type)))
    stream = io.StringIO()
    docutils.core.publish_doctree(
        ".. default-role:: literal\n\n" + rst,
        settings_overrides={"report_level": 2, "halt_level": 5, "warning_stream": stream},
    )
    return [line for line in stream.getvalue().splitlines() if line.strip()]


def audit() -> Iterator[tuple[ApiEntry, list[str]]]:
    for entry in public_api():
        yield entry, problems(entry.obj)


# ------------------------------------------------------------------ debt file and report


def read_debt(path: pathlib.Path = DEBT_FILE) -> dict[str, set[str]]:
    """``tools/docstring_debt.txt``: ``tfkit.path  rule,rule`` per line, ``#`` comments."""
    debt: dict[str, set[str]] = {}
    if not path.exists():
        return debt
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, rules = line.partition(" ")
            debt[name] = {r.strip() for r in rules.split(",") if r.strip()}
    return debt


def rule_names(found: list[str]) -> set[str]:
    return {p.split(":", 1)[0] for p in found}


def write_debt(path: pathlib.Path = DEBT_FILE) -> int:
    lines = [
        "# Public names whose docstrings do not yet meet tools/api_reference.py's rules.",
        "# tests/test_docstrings.py fails on a name missing from here that breaks a rule, and on a",
        "# line here that is no longer true: the list only shrinks. Rewrite it with",
        "#   python tools/api_reference.py --write-debt",
        "",
    ]
    count = 0
    for entry, found in audit():
        if found:
            lines.append(f"{entry.path} {','.join(sorted(rule_names(found)))}")
            count += 1
    path.write_text("\n".join(lines) + "\n")
    return count


def table(results: list[tuple[ApiEntry, list[str]]]) -> list[dict]:
    rows: dict[str, dict] = {}
    for entry, found in results:
        row = rows.setdefault(
            entry.namespace.split(".")[0] or "(top level)", {"names": 0, "docstring": 0, "arguments": 0, "example": 0}
        )
        rules = rule_names(found)
        row["names"] += 1
        for rule in RULES:
            row[rule] += rule not in rules
    return [{"namespace": k, **v} for k, v in rows.items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--namespace", help="only this namespace (and its sub-namespaces)")
    parser.add_argument("--failing", action="store_true", help="list each failing name and what it lacks")
    parser.add_argument("--write-debt", action="store_true", help=f"rewrite {DEBT_FILE.name} from the code")
    args = parser.parse_args(argv)
    if args.write_debt:
        print(f"{write_debt()} names written to {DEBT_FILE}")
        return 0
    results = [
        (e, p)
        for e, p in audit()
        if args.namespace is None or e.namespace == args.namespace or e.namespace.startswith(args.namespace + ".")
    ]
    if args.failing:
        for entry, found in results:
            if found:
                print(f"{entry.path}: {'; '.join(found)}")
        return 0
    rows = table(results)
    total = {rule: sum(r[rule] for r in rows) for rule in ("names",) + RULES}
    width = max(len(r["namespace"]) for r in rows + [{"namespace": "total"}])
    print(f"{'namespace':<{width}}  {'names':>5}  {'docstring':>9}  {'arguments':>9}  {'example':>7}")
    for r in rows + [{"namespace": "total", **total}]:
        n = max(r["names"], 1)
        print(
            f"{r['namespace']:<{width}}  {r['names']:5d}  {100 * r['docstring'] / n:8.0f}%  "
            f"{100 * r['arguments'] / n:8.0f}%  {100 * r['example'] / n:6.0f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
