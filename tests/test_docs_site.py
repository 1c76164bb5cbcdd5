"""The documentation site builds in strict mode, leaves the source tree as it was, and every public name has an entry.

``sphinx-build -W --keep-going`` turns every warning into a failure: a broken
link or cross-reference, a reference to a tfkit name that does not exist, a
tfkit class in a signature that has no page, a docstring napoleon or docutils
cannot parse. The API pages are written into the build folder by
``tools/api_site.py`` from the names ``tools/api_reference.py`` counts, a page
per class or small family of functions (``tools/api_pages.py``); this test then
finds each name in the built HTML: an anchor for a name documented in full, a
linked row on its namespace's index for a name that is the same object as
another entry.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import api_pages  # noqa: E402
import api_reference  # noqa: E402

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

SIGNATURE = re.compile(r'<dt class="sig sig-object py"[^>]*>(.*?)</dt>', re.S)


def source_tree() -> dict[str, str]:
    """Every file of ``docs/`` (its build folder aside) and ``tools/``, with a hash of its bytes."""
    files = {}
    for folder in (ROOT / "docs", ROOT / "tools"):
        for path in folder.rglob("*"):
            relative = path.relative_to(ROOT)
            if path.is_file() and "_build" not in relative.parts and "__pycache__" not in relative.parts:
                files[str(relative)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    before = source_tree()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(out / ".doctrees"),
            str(ROOT / "docs"),
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    warnings = [
        line for line in done.stderr.splitlines() if "WARNING" in line and "absl" not in line or "ERROR" in line
    ]
    assert done.returncode == 0 and not warnings, "\n".join(warnings) or done.stderr[-3000:]
    after = source_tree()
    return {"out": out, "before": before, "after": after}


def test_site_builds_strictly_with_its_pages(site):
    out = site["out"]
    for page in (
        "index.html",
        "guides/getting_started.html",
        "guides/security.html",
        "serving.html",
        "fuzzing.html",
        "api/index.html",
        "api/layers/index.html",
        "api/layers/Dense.html",
        "api/activations/activation_functions.html",
        "api/ops/index.html",
        "api/ops/matmul.html",
        "api/types/XlaDecision.html",
        "search.html",
    ):
        assert (out / page).is_file(), page


def test_the_build_writes_nothing_into_the_source_tree(site):
    before, after = site["before"], site["after"]
    assert sorted(set(after) - set(before)) == [], "the build created files in the source tree"
    assert sorted(set(before) - set(after)) == [], "the build deleted files of the source tree"
    changed = [name for name in before if before[name] != after[name]]
    assert changed == [], "the build changed files of the source tree"


def test_every_public_name_has_an_entry(site):
    out = site["out"]
    primary = api_pages.primary_entries()
    anchors = set()
    for page in (out / "api").rglob("*.html"):
        anchors.update(re.findall(r'id="(tfkit\.[\w.]+)"', page.read_text()))
    missing = []
    for entry in api_reference.public_api():
        documented = primary[id(entry.obj)]
        if documented.path not in anchors:
            missing.append(f"{entry.path}: no entry {documented.path}")
        elif documented is not entry:
            html = (out / "api" / api_pages.folder(entry.namespace) / "index.html").read_text()
            if entry.path not in html or f"#{documented.path}" not in html:
                missing.append(f"{entry.path}: no row linking to {documented.path}")
    assert not missing, "\n".join(missing)


def test_a_namespace_index_lists_each_name_with_its_summary_and_page(site):
    html = (site["out"] / "api" / "layers" / "index.html").read_text()
    assert 'href="Dense.html#tfkit.layers.Dense"' in html
    assert "Just your regular densely-connected NN layer." in html
    assert 'href="Conv2D.html#tfkit.layers.Conv2D"' in html


def test_signatures_show_no_any_and_link_tfkit_types(site):
    out = site["out"]
    with_any = []
    for page in (out / "api").rglob("*.html"):
        for signature in SIGNATURE.findall(page.read_text()):
            if re.search(r'<span class="pre">Any</span>', signature):
                with_any.append(f"{page.relative_to(out)}: {re.sub('<[^>]+>', '', signature)[:120]}")
    assert not with_any, "\n".join(with_any[:20])
    dense = (out / "api" / "layers" / "Dense.html").read_text()
    assert "activation=None" in re.sub("<[^>]+>", "", SIGNATURE.findall(dense)[0])
    model = (out / "api" / "models" / "Model.html").read_text()
    assert re.search(r'href="\.\./types/XlaDecision\.html#[\w.]*XlaDecision"', model), (
        "Model.jit_compile_decision's type does not link to XlaDecision's page"
    )


def test_xla_decision_documents_its_fields(site):
    html = (site["out"] / "api" / "types" / "XlaDecision.html").read_text()
    text = re.sub("<[^>]+>", "", html)
    for field in ("jit_compile", "reason", "seconds_per_step", "compile_seconds"):
        assert field in text, field


def test_reference_pages_stay_small(site):
    """One page per class or family: the largest (Model, with its methods) is far below 1 MB."""
    sizes = {page.relative_to(site["out"]): page.stat().st_size for page in (site["out"] / "api").rglob("*.html")}
    largest = max(sizes, key=sizes.get)
    assert sizes[largest] < 600_000, f"{largest}: {sizes[largest]} bytes"


def sidebar(page: pathlib.Path) -> str:
    html = page.read_text()
    start = html.index('<div class="sidebar-tree">')
    return html[start : html.index("</div>", start)]


def test_each_page_marks_its_own_entry_in_a_sidebar_shared_with_its_siblings(site):
    """Siblings share the first one's sidebar (tools/site_navigation.py) with the mark moved to their own entry."""
    layers = site["out"] / "api" / "layers"
    trees = {name: sidebar(layers / f"{name}.html") for name in ("Activation", "Dense", "Conv2D", "LSTM")}
    for name, tree in trees.items():
        marked = re.findall(r'current-page"><a class="current reference internal" href="#">([^<]+)</a>', tree)
        assert marked == [name], (name, marked)
        assert tree.count("current-page") == 1
        assert re.search(
            r'class="toctree-l2 current has-children"><a class="reference internal" href="index.html">', tree
        )
    unmarked = set()
    for tree in trees.values():
        tree = re.sub(
            r' current current-page"><a class="current reference internal" href="#">(\w+)<', r'"><a>\1<', tree
        )
        unmarked.add(re.sub(r'<a class="reference internal" href="(\w+)\.html">\1<', r"<a>\1<", tree))
    assert len(unmarked) == 1, "siblings' sidebars differ beyond the current mark"
    guide = sidebar(site["out"] / "guides" / "security.html")
    assert guide.count("current-page") == 1 and "Dense.html" not in guide, "a guide lists the reference's classes"


def test_view_this_page_links_to_the_copied_source(site):
    out = site["out"]
    for page in ("api/layers/Dense.html", "api/ops/index.html", "guides/security.html"):
        html = (out / page).read_text()
        link = re.search(r'<a class="muted-link" href="([^"]+)" title="View this page">', html).group(1)
        copied = (out / page).parent.joinpath(link).resolve()
        assert copied == (out / "_sources" / page).with_suffix(".md.txt") and copied.is_file(), f"{page}: {link}"


def test_moving_the_current_mark_needs_both_entries_exactly_once():
    import site_navigation

    tree = (
        '<li class="toctree-l3 current current-page"><a class="current reference internal" href="#">A</a></li>'
        '<li class="toctree-l3"><a class="reference internal" href="B.html">B</a></li>'
    )
    moved = site_navigation.move_current_mark(tree, "api/x/A", "api/x/B")
    assert moved == (
        '<li class="toctree-l3"><a class="reference internal" href="A.html">A</a></li>'
        '<li class="toctree-l3 current current-page"><a class="current reference internal" href="#">B</a></li>'
    )
    assert site_navigation.move_current_mark(tree, "api/x/A", "api/x/C") is None  # C has no entry
    assert site_navigation.move_current_mark(tree + tree, "api/x/A", "api/x/B") is None  # two marks
    assert site_navigation.move_current_mark(tree.replace("current current-page", ""), "api/x/A", "api/x/B") is None
