"""The library's structure holds: imports go downward only, no hidden cycles, no attribute protocols, small files.

The layers are declared in ``pyproject.toml`` (``[tool.importlinter]``) and
explained in ``docs/ARCHITECTURE.md``; import-linter checks them here, so a new
upward import fails the suite.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import importlinter  # noqa: F401  the test extra installs it: a missing linter fails here, not silently
import time_limits

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tfkit"


def _lint(package_parent: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` with the project's contract, over the tfkit package found in ``package_parent``."""
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run(
        [sys.executable, "-c", code, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=package_parent,
        env={"PYTHONPATH": str(package_parent), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(300),
    )


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_import_goes_down_the_declared_layers():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "1 kept, 0 broken" in result.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    shutil.copytree(PACKAGE, tmp_path / "tfkit", ignore=shutil.ignore_patterns("__pycache__"))
    engine_layer = tmp_path / "tfkit" / "engine" / "layer.py"
    engine_layer.write_text(engine_layer.read_text() + "\nfrom tfkit.saving import h5  # an upward import\n")
    result = _lint(tmp_path)
    assert result.returncode != 0
    assert "tfkit.engine.layer -> tfkit.saving.h5" in result.stdout


def _function_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "tfkit"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} from {node.module}")
            elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "tfkit" for a in node.names):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} import {node.names[0].name}")
    return found


def test_no_tfkit_import_hides_inside_a_function():
    found = [hit for path in _modules() for hit in _function_level_imports(path)]
    assert found == []


def _foreign_private_attributes(path: Path) -> set[str]:
    """Names ``_tfkit_x`` this module reads or sets on an object other than ``self``/``cls``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_tfkit_"):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.add(node.attr)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
            "getattr",
            "setattr",
            "hasattr",
            "delattr",
        ):
            owner, name = (node.args + [None, None])[:2]
            if (
                isinstance(name, ast.Constant)
                and isinstance(name.value, str)
                and name.value.startswith("_tfkit_")
                and not (isinstance(owner, ast.Name) and owner.id in ("self", "cls"))
            ):
                found.add(name.value)
    return found


def test_no_tfkit_attribute_passes_state_between_modules():
    """An object's ``_tfkit_*`` attribute set on it by another module is a hidden protocol: declare it instead."""
    texts = {path: path.read_text() for path in _modules()}
    shared = {}
    for path in texts:
        for name in _foreign_private_attributes(path):
            users = [str(p.relative_to(ROOT)) for p, text in texts.items() if re.search(rf"\b{name}\b", text)]
            if len(users) > 1:
                shared[name] = users
    assert shared == {}


def _docstring_lines(tree: ast.Module) -> set[int]:
    """The line numbers of every module, class and function docstring."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def code_lines(path: Path) -> int:
    """A file's lines outside its docstrings: the API reference lives in docstrings and may make a file long."""
    source = path.read_text()
    documentation = _docstring_lines(ast.parse(source))
    return sum(1 for number, _ in enumerate(source.splitlines(), 1) if number not in documentation)


def test_no_file_is_over_600_lines_of_code():
    long = {str(p.relative_to(ROOT)): n for p in _modules() if (n := code_lines(p)) > 600}
    assert long == {}


def test_code_lines_leave_out_docstrings_only():
    sample = ROOT / "tfkit" / "tree.py"
    tree = ast.parse(sample.read_text())
    documented = _docstring_lines(tree)
    assert documented and code_lines(sample) == len(sample.read_text().splitlines()) - len(documented)


def test_the_top_level_holds_the_public_api_only():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    public = [
        "activations",
        "backend",
        "cli",
        "config",
        "constraints",
        "dtype_policies",  # initializers/: a package
        "export",
        "mixed_precision",
        "random",
        "regularizers",
        "tree",
    ]
    assert modules == public


def _imported_modules(path: Path) -> set[str]:
    """The modules a file imports anywhere in it (top level or inside functions)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_the_command_line_modules_import_in_one_direction():
    # tfkit_launcher -> tfkit_command_line <- tfkit.cli, and the launcher -> tfkit.cli once arguments are good:
    # nothing in tfkit imports the launcher, and the parser beside the package imports the standard library only.
    for module in _modules():
        assert "tfkit_launcher" not in _imported_modules(module), f"{module.relative_to(ROOT)} imports tfkit_launcher"
    parser_imports = _imported_modules(ROOT / "tfkit_command_line.py")
    outside_stdlib = {name for name in parser_imports if name.split(".")[0] not in sys.stdlib_module_names}
    assert not outside_stdlib, f"tfkit_command_line.py imports {sorted(outside_stdlib)}"
