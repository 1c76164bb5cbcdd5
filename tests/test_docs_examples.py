"""Every script of the examples gallery runs on its small slice (``--small``), and has its page.

The gallery's pages (``docs/examples/*.md``) include each script whole and
state what a full run gives; here each script's ``main(["--small"])`` runs in
this process, in a temporary folder, and must return its figures.
``examples/vae_mnist.py`` (the README's main job) runs in full in
``tests/test_examples.py``.
"""

from __future__ import annotations

import importlib.util
import math
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
GALLERY = [
    "mnist_convnet",
    "text_classification",
    "timeseries_lstm",
    "transfer_learning",
    "structured_data",
    "transformer_mnist",
    "gan_mnist",
]
# tfkit.hub's examples: their own file (test_docs_examples_hub.py), so that another worker runs them
HUB_GALLERY = ["bert_text_classification", "llama_generation", "t5_summarization", "whisper_transcription"]


def load_example(stem: str):
    spec = importlib.util.spec_from_file_location(f"example_{stem}", ROOT / "examples" / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_small_slice(stem: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``examples/<stem>.py``'s ``main(["--small"])`` runs in ``tmp_path`` and returns finite float figures."""
    import tfkit

    monkeypatch.chdir(tmp_path)
    tfkit.backend.clear_session()
    figures = load_example(stem).main(["--small"])
    assert figures and all(isinstance(v, float) and math.isfinite(v) for v in figures.values()), figures


@pytest.mark.slow
@pytest.mark.parametrize("stem", GALLERY)
def test_example_runs_on_its_small_slice(stem, tmp_path, monkeypatch):
    check_small_slice(stem, tmp_path, monkeypatch)


@pytest.mark.parametrize("stem", GALLERY + HUB_GALLERY + ["vae_mnist"])
def test_every_example_has_a_gallery_page_that_includes_it(stem):
    page = ROOT / "docs" / "examples" / f"{stem}.md"
    assert page.is_file(), f"docs/examples/{stem}.md is missing"
    assert f"examples/{stem}.py" in page.read_text()
    assert stem in (ROOT / "docs" / "examples" / "index.md").read_text()
