"""The Sphinx extension behind the API reference: generated pages read from the build folder, clean signatures.

``docs/conf.py`` lists it in ``extensions``. At the start of each build it:

- writes the reference's pages (``tools/api_pages.py``) into ``<doctrees>/api_source/api/`` (by default
  ``docs/_build/html/.doctrees/api_source/api``) and adds them to the project as the documents
  ``api/...``: the source tree is never written to, so ``git status`` stays clean after a build;
- runs every signature and property type autodoc writes through ``tools/api_signatures.py`` (no ``Any``; aliases written
  out; tfkit classes named by their documented paths, so they link to their pages), and gives a class
  its ``__init__``'s signature;
- resolves a reference to a tfkit class by its defining module (``tfkit.engine.layer.Layer``, as autodoc
  writes evaluated annotations) to the entry that documents it (``tfkit.layers.Layer``).
"""

from __future__ import annotations

import os
import pathlib
import sys

from sphinx.project import Project

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its siblings, also when loaded by path
import api_pages  # noqa: E402
import api_signatures  # noqa: E402

SOURCE_FOLDER = "api_source"  # under the doctree folder: build state, next to Sphinx's pickles


class ProjectWithGeneratedPages(Project):
    """Sphinx's project, plus documents that live outside the source folder (``generated``: docname -> file)."""

    generated: dict[str, pathlib.Path] = {}

    def discover(self, exclude_paths=(), include_paths=("**",)):
        super().discover(exclude_paths, include_paths)
        for docname, path in self.generated.items():
            self.docnames.add(docname)
            self._path_to_docname[path] = docname
            self._docname_to_path[docname] = path
        return self.docnames

    def doc2path(self, docname, absolute):
        """A generated page's file; relative to the source folder, where the page stands in the site.

        The html builder names the page's copied source (``_sources/<docname>.md.txt``, the "View this
        page" link) from the relative form; the file's own path there made names that depend on the build
        folder, such as ``_sources/api/layers/Dense/api_source/api/layers/Dense.md.txt``.
        """
        path = super().doc2path(docname, absolute)
        if docname in self.generated and not absolute:
            return type(path)(docname + self.generated[docname].suffix)
        return path


def source_folder(app) -> pathlib.Path:
    return pathlib.Path(app.doctreedir) / SOURCE_FOLDER


def _write_pages(app) -> None:
    root = source_folder(app)
    docnames = api_pages.write_pages(root / "api")
    app.project.__class__ = ProjectWithGeneratedPages
    app.project.generated = {f"api/{name}": (root / "api" / f"{name}.md").resolve() for name in docnames}


_documented: dict[int, str] = {}


def documented_path(obj: object) -> str | None:
    """The path a public tfkit class is documented under, or None."""
    if not _documented:
        _documented.update(api_pages.documented_paths())
    return _documented.get(id(obj))


def _process_signature(app, what, name, obj, options, signature, return_annotation):
    """A class shows its ``__init__``'s signature; every signature loses ``Any`` and links tfkit's types.

    ``Layer.__new__(cls, *args, **kwargs)`` (which captures the config) would otherwise stand for every
    layer's signature: ``Dense(*args, **kwargs)``.
    """
    if what in ("class", "exception") and isinstance(obj, type):
        import inspect

        from sphinx.util.inspect import stringify_signature

        try:
            signature = stringify_signature(inspect.signature(obj), show_return_annotation=False)
            return_annotation = None
        except (TypeError, ValueError):
            pass
    return api_signatures.clean_signature(
        signature, return_annotation, api_signatures.module_globals(obj), documented_path
    )


def _resolve_by_defining_module(app, env, node, contnode):
    """``tfkit.engine.layer.Layer`` (autodoc's path for an evaluated annotation) -> ``tfkit.layers.Layer``."""
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or not target.startswith("tfkit."):
        return None
    obj = api_signatures._by_path(target)
    if isinstance(obj, type) and obj.__name__.startswith("_"):
        return contnode  # a private class (a property's type): its name as text, no page to link
    path = documented_path(obj) if obj is not None else None
    if path is None or path == target:
        return None
    domain = env.domains["py"]
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], path, node, contnode)


def _drop_nested_documents(app, doctree) -> None:
    """Nodes made by a nested parse (MyST's ``eval-rst``) point at their own document, whose settings hold
    the whole build environment; pickled with each doctree, that copy of the environment made every
    reference page's doctree about 0.5 MB and grew with each page read. Each node takes its page's instead.
    """
    for node in doctree.findall():
        if node is not doctree and node.__dict__.get("_document") not in (None, doctree):
            node._document = None


def _document_class_aliases_in_full() -> None:
    """``tfkit.KerasTensor`` is tfkit's ``SymbolicTensor`` under Keras's name: render its docstring, not "alias of".

    Autodoc writes "alias of <private path>" for a class documented under a name other than its
    ``__name__``; the reference documents each class once, under a public name, so the docstring is
    what belongs there.
    """
    from sphinx.ext.autodoc import _property_types

    properties = _property_types._ClassDefProperties
    properties.doc_as_attr = property(lambda self: self._obj___name__ is None)


def _clean_property_types() -> None:
    """A property's type (``:type: list[Any]``, from its getter's return annotation) is cleaned as signatures are.

    Autodoc writes that line in its directive header, which ``autodoc-process-signature`` does not see;
    the header's lines pass through here instead (an ``Any``-only type loses the line).
    """
    from sphinx.ext.autodoc import _generate

    header_lines = _generate._directive_header_lines
    if getattr(header_lines, "cleans_property_types", False):
        return

    def cleaned(*args, props, **kwargs):
        for line in header_lines(*args, props=props, **kwargs):
            if props.obj_type == "property" and line.startswith("   :type: "):
                namespace = api_signatures.module_globals(props._obj)
                annotation = api_signatures.clean_annotation(line[len("   :type: ") :], namespace, documented_path)
                if annotation is None:
                    continue
                line = f"   :type: {annotation}"
            yield line

    cleaned.cleans_property_types = True
    _generate._directive_header_lines = cleaned


def setup(app):
    _document_class_aliases_in_full()
    _clean_property_types()
    app.connect("builder-inited", _write_pages)
    app.connect("doctree-read", _drop_nested_documents)
    app.connect("autodoc-process-signature", _process_signature)
    app.connect("missing-reference", _resolve_by_defining_module)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
