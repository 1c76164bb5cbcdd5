"""The Sphinx extension behind the site's sidebar: the current page's branch, computed once per branch.

``docs/conf.py`` lists it in ``extensions``. Furo writes the navigation tree into every page:

- **Collapsed.** A page lists the top-level sections, its ancestors and their children (on
  ``api/layers/Dense``: the namespaces, and the classes of ``tfkit.layers``), not all ~850 pages of
  the reference: the whole tree made each page about 100 KB and most of the build went to it.
- **Shared by siblings.** Sphinx still walks the whole toctree for every page before collapsing it,
  and furo parses the result again: together half the build's time. Leaf pages with the same parent
  in the same folder have the same sidebar but for which entry is marked current, so the first
  one's sidebar is kept, and each later sibling gets it with the mark moved to its own entry. A page
  whose mark cannot be moved exactly (its entry not found once, say after a furo upgrade changes the
  markup) gets its sidebar computed in full, as every page once did.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

MARKED = re.compile(r'<li class="(toctree-l\d+) current current-page"><a class="current reference internal" href="#">')
SIDEBAR_KEY = "_site_navigation_sidebar"


def unmarked_entry(level: str, href: str) -> str:
    """A sidebar entry's opening markup, as furo writes it for a page that is not the current one."""
    return f'<li class="{level}"><a class="reference internal" href="{href}">'


def marked_entry(level: str) -> str:
    """The current page's entry's opening markup, as furo writes it."""
    return f'<li class="{level} current current-page"><a class="current reference internal" href="#">'


def move_current_mark(sidebar: str, marked_page: str, page: str) -> str | None:
    """``sidebar``, furo's navigation tree of ``marked_page``, with the current mark moved to its sibling ``page``.

    Args:
        sidebar: The HTML of furo's navigation tree written for `marked_page`.
        marked_page: The docname whose entry is marked current in `sidebar`.
        page: A docname in the same folder with the same parent.

    Returns:
        The navigation tree of `page`, or `None` when either entry is not found exactly once.

    Example:
        >>> tree = ('<ul><li class="toctree-l1"><a class="reference internal" href="B.html">B</a></li>'
        ...     '<li class="toctree-l1 current current-page"><a class="current reference internal" href="#">A</a></li></ul>')
        >>> print(move_current_mark(tree, "api/A", "api/B"))
        <ul><li class="toctree-l1 current current-page"><a class="current reference internal" href="#">B</a></li><li class="toctree-l1"><a class="reference internal" href="A.html">A</a></li></ul>
    """
    marks = MARKED.findall(sidebar)
    if len(marks) != 1:
        return None
    level = marks[0]
    target = unmarked_entry(level, posixpath.basename(page) + ".html")
    if sidebar.count(target) != 1:
        return None
    placeholder = "\0"
    moved = sidebar.replace(target, placeholder)
    moved = moved.replace(marked_entry(level), unmarked_entry(level, posixpath.basename(marked_page) + ".html"))
    return moved.replace(placeholder, marked_entry(level))


class SiblingSidebars:
    """Furo's navigation tree per page, computed once for each group of sibling leaf pages."""

    def __init__(self) -> None:
        self.parents: dict[str, list[str]] | None = None
        self.first_of_group: dict[tuple[str, str], tuple[str, str]] = {}

    def group(self, env: Any, page: str) -> tuple[str, str] | None:
        """The (parent, folder) of a leaf page with one parent in the toctree; None for any other page."""
        if self.parents is None:
            self.parents = {}
            for parent, children in env.toctree_includes.items():
                for child in children:
                    self.parents.setdefault(child, []).append(parent)
        parents = self.parents.get(page, [])
        if env.toctree_includes.get(page) or len(parents) != 1:
            return None
        return parents[0], posixpath.dirname(page)

    def before_furo(self, app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
        """Collapses the tree furo will draw; for a sibling of a page already drawn, hands furo none to draw."""
        toctree = context.get("toctree")
        if toctree is None:
            return
        key = self.group(app.env, pagename)
        if key in self.first_of_group:
            first_page, first_sidebar = self.first_of_group[key]
            sidebar = move_current_mark(first_sidebar, first_page, pagename)
            if sidebar is not None:
                context[SIDEBAR_KEY] = sidebar
                context["toctree"] = lambda **options: ""
                return

        def collapsed(**options: Any) -> str:
            return toctree(**{**options, "collapse": True})

        context["toctree"] = collapsed

    def after_furo(self, app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
        """Puts the moved sidebar in furo's place, or keeps the first sidebar drawn for the page's group."""
        if SIDEBAR_KEY in context:
            context["furo_navigation_tree"] = context.pop(SIDEBAR_KEY)
            return
        key = self.group(app.env, pagename)
        sidebar = context.get("furo_navigation_tree")
        if key is not None and key not in self.first_of_group and sidebar and MARKED.search(sidebar):
            self.first_of_group[key] = (pagename, sidebar)


def setup(app: Any) -> dict[str, bool]:
    sidebars = SiblingSidebars()
    app.connect("html-page-context", sidebars.before_furo, priority=400)  # furo's own runs at 500
    app.connect("html-page-context", sidebars.after_furo, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
