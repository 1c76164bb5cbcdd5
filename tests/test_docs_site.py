"""The documentation site builds in strict mode, and every public name has an entry.

``sphinx-build -W --keep-going`` turns every warning into a failure: a broken
link or cross-reference, a reference to a tfkit name that does not exist, a
docstring napoleon or docutils cannot parse. The API pages are written by
``tools/api_pages.py`` from the names ``tools/api_reference.py`` counts; this
test then finds each name in the built HTML: an anchor for a name documented in
full, a linked row for a name that is the same object as another entry.
"""

from __future__ import annotations

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


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           "-d", str(out / ".doctrees"), str(ROOT / "docs"), str(out)],
                          capture_output=True, text=True, env=env, timeout=900)
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line and "absl" not in line
                or "ERROR" in line]
    assert done.returncode == 0 and not warnings, "\n".join(warnings) or done.stderr[-3000:]
    return out


def test_site_builds_strictly_with_its_pages(site):
    for page in ("index.html", "guides/getting_started.html", "guides/security.html", "api/index.html",
                 "api/layers.html", "api/ops.html", "search.html"):
        assert (site / page).is_file(), page


def test_every_public_name_has_an_entry(site):
    primary = api_pages.primary_entries()
    anchors = set()
    for page in (site / "api").glob("*.html"):
        anchors.update(re.findall(r'id="(tfkit\.[\w.]+)"', page.read_text()))
    missing = []
    for entry in api_reference.public_api():
        documented = primary[id(entry.obj)]
        if documented.path not in anchors:
            missing.append(f"{entry.path}: no entry {documented.path}")
        elif documented is not entry:
            html = (site / "api" / f"{api_pages.page_name(entry.namespace)}.html").read_text()
            if entry.path not in html or f"#{documented.path}" not in html:
                missing.append(f"{entry.path}: no row linking to {documented.path}")
    assert not missing, "\n".join(missing)
