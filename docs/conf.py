"""Sphinx configuration of tfkit's documentation site.

    python -m pip install -e ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html     # the site, strict
    sphinx-autobuild docs docs/_build/html                          # served on localhost:8000, rebuilt on edits

Guides and reports are Markdown (MyST). The API reference (``api/...``) is generated at the start of
each build by ``tools/api_site.py`` from the public names ``tools/api_reference.py`` counts, one page
per class or small family of functions (``tools/api_pages.py``), written into the build folder and
never into ``docs/``; autodoc with napoleon (Google style) renders the docstrings.
"""

import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import api_reference  # noqa: E402

import tfkit  # noqa: E402

project = "tfkit"
author = "tfkit developers"
copyright = "tfkit developers"
release = tfkit.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "api_site", "site_navigation"]
source_suffix = {".md": "markdown"}
# api/ is generated into the build folder (tools/api_site.py); a docs/api/ left by an older build is not read.
exclude_patterns = ["_build", "api"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# Docstrings: Google style, as Keras and TensorFlow write theirs; single backticks are code.
default_role = "literal"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True
napoleon_custom_sections = api_reference.NAPOLEON_CUSTOM_SECTIONS
autodoc_class_signature = "mixed"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_member_order = "bysource"
autodoc_preserve_defaults = True
python_use_unqualified_type_names = True
add_module_names = True

# Strict: a reference to a tfkit name that does not exist fails the build (-W), and so does a tfkit
# class in a signature that has no page (tools/api_site.py links each to its entry; classes that a
# signature names but no namespace exports get a page under api/types/). TensorFlow, numpy and
# typing names in signatures are left as text.
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"^(?!tfkit\.).*")]
suppress_warnings = ["myst.header"]  # the reports under docs/ start below level 1 in places

html_theme = "furo"
html_title = f"tfkit {release}"
html_static_path = []
