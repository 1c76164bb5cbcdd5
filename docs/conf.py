"""Sphinx configuration of tfkit's documentation site.

    python -m pip install -e ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html     # the site, strict
    sphinx-autobuild docs docs/_build/html                          # served on localhost:8000, rebuilt on edits

Guides and reports are Markdown (MyST); the API reference under ``api/`` is
written at the start of each build by ``tools/api_pages.py`` from the public
names ``tools/api_reference.py`` counts, and rendered from the docstrings by
autodoc with napoleon (Google style).
"""

import os
import pathlib
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import api_pages  # noqa: E402
import api_reference  # noqa: E402

import tfkit  # noqa: E402

api_pages.write_pages(pathlib.Path(__file__).parent / "api")


def _document_class_aliases_in_full() -> None:
    """``tfkit.KerasTensor`` is tfkit's ``SymbolicTensor`` under Keras's name: render its docstring, not "alias of".

    Autodoc writes "alias of <private path>" for a class documented under a
    name other than its ``__name__``; the reference documents each class once,
    under a public name, so the docstring is what belongs there.
    """
    from sphinx.ext.autodoc import _property_types

    properties = _property_types._ClassDefProperties
    properties.doc_as_attr = property(lambda self: self._obj___name__ is None)


_document_class_aliases_in_full()


def _constructor_signature(app, what, name, obj, options, signature, return_annotation):
    """A class's signature is its ``__init__``'s, as ``inspect.signature`` reads it.

    ``Layer.__new__(cls, *args, **kwargs)`` (which captures the config) would
    otherwise stand for every layer's signature: ``Dense(*args, **kwargs)``.
    """
    if what not in ("class", "exception") or not isinstance(obj, type):
        return None
    import inspect

    from sphinx.util.inspect import stringify_signature

    try:
        init_signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return stringify_signature(init_signature, show_return_annotation=False, unqualified_typehints=True), None


def setup(app):
    app.connect("autodoc-process-signature", _constructor_signature)

project = "tfkit"
author = "tfkit developers"
copyright = "tfkit developers"
release = tfkit.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
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

# Strict: a reference to a tfkit name that does not exist fails the build (-W); references to
# TensorFlow, numpy and typing names in signatures are left as text, and so are the engine's
# classes that appear in return annotations (`Model.jit_compile_decision` -> XlaDecision) but are
# not public names.
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"^(?!tfkit\.).*"),
                        (r"py:class", r"^tfkit\.(training|engine|base|files|saving)\.[\w.]+$")]
suppress_warnings = ["myst.header"]   # the reports under docs/ start below level 1 in places

html_theme = "furo"
html_title = f"tfkit {release}"
html_static_path = []
