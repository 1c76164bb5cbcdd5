"""The code of every guide runs: each ```python block of docs/guides/*.md, in order, as one script.

A guide page is a notebook: its ``python`` fenced blocks run top to bottom in one
namespace, in a temporary working folder, and a block that raises fails the
guide. Blocks fenced as ``py`` (highlighted, not run) show code that needs what
the suite cannot give (a TensorFlow Serving server, a second machine); ``bash``,
``console`` and ``text`` blocks are shown only. Each guide states the sizes it
trains at; they are small enough for the suite.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest
import time_limits

GUIDES = pathlib.Path(__file__).resolve().parents[1] / "docs" / "guides"
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    """The ``python`` fenced blocks of a Markdown page, in order."""
    return BLOCK.findall(text)


def guide_pages() -> list[pathlib.Path]:
    return sorted(p for p in GUIDES.glob("*.md") if p.name != "index.md")


OWN_PROCESS = {"distribution_api"}  # sets logical devices, which must happen before TensorFlow starts


@pytest.mark.parametrize("page", guide_pages(), ids=lambda p: p.stem)
def test_guide_code_runs(page, tmp_path, monkeypatch):
    if page.stem in OWN_PROCESS:
        script = tmp_path / f"{page.stem}.py"
        script.write_text("\n".join(python_blocks(page.read_text())))
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=time_limits.seconds(600),
        )
        assert done.returncode == 0, f"{page.name} failed:\n{done.stderr[-4000:]}"
        return
    import tfkit

    monkeypatch.chdir(tmp_path)
    tfkit.backend.clear_session()
    namespace = {"__name__": f"guide_{page.stem}"}
    blocks = python_blocks(page.read_text())
    assert blocks, f"{page.name} has no python block"
    for number, block in enumerate(blocks, 1):
        source = tmp_path / f"{page.stem}_block_{number}.py"  # a real file: AutoGraph reads the source
        source.write_text(block)
        try:
            exec(compile(block, str(source), "exec"), namespace)
        except Exception as error:
            raise AssertionError(f"{page.name}, block {number} raised {error!r}:\n{block}") from error


def test_blocks_are_read_in_order_and_only_python_runs():
    text = "x\n```python\na = 1\n```\n```py\nnot run\n```\n```python\nb = a + 1\n```\n"
    assert python_blocks(text) == ["a = 1\n", "b = a + 1\n"]
