"""The API reference's pages, as keras.io lays out Keras's: one page per class or small family of functions.

``tools/api_site.py`` calls :func:`write_pages` at the start of every build and writes them into the
build folder (never into ``docs/``), so the reference always lists exactly the names
``tools/api_reference.py`` counts. The pages:

- ``api/index``: every namespace with its summary;
- ``api/<namespace>/index`` (``api/layers/index``, ``api/ops/numpy/index``): the namespace's names
  under headings (``tfkit/layers/convolution.py``: "Convolution layers"), each with its one-line
  summary and a link to its entry;
- ``api/<namespace>/<Class>`` (``api/layers/Dense``): one class;
- ``api/<namespace>/<family>`` (``api/activations/activation_functions``): the functions one module
  defines under one namespace, as keras.io's activations page; ops, which are many and each stand
  alone, get a page each (``api/ops/matmul``), as jax.numpy's;
- ``api/types/<Class>`` (``api/types/XlaDecision``): a tfkit class that a public signature names or
  returns although no namespace exports it.

A name is documented in full once, under its own name (``Conv2D``, not the alias ``Convolution2D``),
in the first namespace that holds it (``tfkit.layers.Dense``; ``tfkit.ops.add`` rather than
``tfkit.ops.numpy.add``; the top level last); every other namespace that holds it lists it in a
table that links to that entry.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import pathlib
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its siblings, also when loaded by path
import api_reference  # noqa: E402
import api_signatures  # noqa: E402

# Index headings for classes by defining file, as keras.io groups its API pages ("Core layers", ...).
GROUPS = {
    "layers": [
        (
            "Core layers",
            (
                "core",
                "einsum_dense",
                "embedding",
                "embedding_reversible",
                "serialization",
                "layer_serialization",
                "tf_op",
                "tfsm_layer",
                "lora",
                "functional_graph",
                "layer",
                "input_layer",
            ),
        ),
        ("Convolution layers", ("convolution", "conv_depthwise", "conv_depthwise1d", "conv_aliases", "conv_base")),
        ("Pooling layers", ("pooling", "pooling_adaptive")),
        ("Recurrent layers", ("recurrent", "rnn_cells", "conv_lstm", "conv_lstm_cell", "stacked_cells", "wrappers")),
        ("Attention layers", ("attention", "attention_dot", "attention_grouped")),
        ("Normalization layers", ("normalization", "normalization_simple", "spectral_normalization", "batch_renorm")),
        ("Regularization layers", ("regularization", "noise")),
        ("Reshaping layers", ("reshaping", "reshaping_nd")),
        ("Merging layers", ("merging", "merging_functions")),
        ("Activation layers", ("activation_layers",)),
        (
            "Image augmentation layers",
            (
                "image",
                "image_affine",
                "image_color",
                "image_filter",
                "image_geometry",
                "image_histogram",
                "image_mixing",
                "image_policies",
                "image_random",
            ),
        ),
        (
            "Preprocessing layers",
            (
                "categorical",
                "feature_normalization",
                "hashed_crossing",
                "index_lookup",
                "mel_spectrogram",
                "pipeline",
                "stft_spectrogram",
                "text_vectorization",
            ),
        ),
    ],
    "metrics": [
        ("Accuracy metrics", ("accuracy",)),
        ("Probabilistic and regression metrics", ("regression", "r2_score", "correlation")),
        (
            "Classification metrics based on true/false positives and negatives",
            ("confusion", "auc", "sensitivity_specificity", "f_score"),
        ),
        ("Image segmentation metrics", ("iou",)),
        ("Base and reduction metrics", ("base", "reduction")),
    ],
}
# ops: the index groups by the sub-namespace that holds the name, as keras.io's ops pages do.
OPS_GROUPS = [
    ("NumPy ops", "numpy"),
    ("NN ops", "nn"),
    ("Linear algebra ops", "linalg"),
    ("Core ops", "core"),
    ("Image ops", "image"),
]
# Namespaces whose functions get a page each instead of one per family.
ONE_PAGE_PER_FUNCTION = ("ops",)
# Titles of function families, by the defining module's last name; a family without one is named after
# its module. A family of one function is named after the function.
FAMILY_TITLES = {
    "activations": "Activation functions",
    "convnext": "ConvNeXt models",
    "densenet": "DenseNet models",
    "efficientnet": "EfficientNet models",
    "efficientnet_v2": "EfficientNetV2 models",
    "mobilenet_v3": "MobileNetV3 models",
    "nasnet": "NASNet models",
    "resnet": "ResNet models",
    "resnet_v2": "ResNetV2 models",
    "backend": "Backend functions",
    "settings": "Global settings",
    "naming": "Layer names",
    "config": "Configuration switches",
    "constraints": "Serialization and lookup",
    "initializers": "Serialization and lookup",
    "regularizers": "Serialization and lookup",
    "losses": "Serialization and lookup",
    "metrics": "Serialization and lookup",
    "identifiers": "Serialization and lookup",
    "quantizers": "Serialization and lookup",
    "dtype_policy": "Serialization and lookup",
    "schedules": "Serialization and lookup",
    "merging_functions": "Merging functions",
    "serialization": "Serialization functions",
    "layer_serialization": "Serialization functions",
    "functions": "Loss functions",
    "extra_functions": "More loss functions",
    "reduction": "Loss reduction",
    "accuracy": "Accuracy functions",
    "correlation": "Correlation functions",
    "devices": "Devices",
    "distributions": "The current distribution",
    "models": "Saving and loading models",
    "model_config": "Model configs",
    "abs_max": "Abs-max quantization",
    "fake_quant": "Fake quantization",
    "int4_packing": "Int4 packing",
    "random": "Random draws",
    "registry": "Registration",
    "saving": "Saving and loading",
    "tree": "Nested structures",
    "arrays": "Array utilities",
    "data_tuples": "Data tuples",
    "plotting": "Model plots",
    "graph_inputs": "Graph inputs",
    "images": "Image files and arrays",
    "directory_datasets": "Datasets from folders",
    "scopes": "Scopes",
}
# Classes whose methods a user calls or overrides: their pages list their public methods, as keras.io's do.
# The value is autodoc's inherited-members option: Model shows the training engine's methods (fit, ...)
# and leaves Layer's to the Layer entry; Model's subclasses show their own methods only (add, pop, ...).
MEMBER_CLASSES = {
    "Model": "Layer,Module",
    "Sequential": None,
    "Functional": None,
    "Distiller": None,
    "Layer": None,
    "Metric": None,
    "Loss": None,
    "Optimizer": None,
    "Callback": None,
    "PyDataset": None,
    "FeatureSpace": None,
    "ExportArchive": None,
    "KerasFileEditor": None,
    "Initializer": None,
    "Regularizer": None,
    "Constraint": None,
    "LearningRateSchedule": None,
    "Distribution": None,
}
PAGE_TITLES = {"": "Top-level names"}
TYPES_FOLDER = "types"


@dataclasses.dataclass
class Page:
    """One page of the reference: its docname under ``api/``, title and the entries it documents."""

    docname: str
    title: str
    entries: list = dataclasses.field(default_factory=list)
    kind: str = "class"  # "class", "functions" (a family or one function) or "type"


def folder(namespace: str) -> str:
    """A namespace's folder under ``api/``: ``layers``, ``ops/numpy``; the top level is ``tfkit``."""
    return namespace.replace(".", "/") if namespace else "tfkit"


def primary_entries() -> dict[int, api_reference.ApiEntry]:
    """Object id -> the entry documented in full: its own ``__name__`` first, then namespace order (top level last)."""
    order = [ns for ns in api_reference.namespaces() if ns] + [""]
    rank = {ns: i for i, ns in enumerate(order)}
    primary: dict[int, api_reference.ApiEntry] = {}
    for entry in sorted(
        api_reference.public_api(), key=lambda e: (e.name != getattr(e.obj, "__name__", e.name), rank[e.namespace])
    ):
        primary.setdefault(id(entry.obj), entry)
    return primary


def _defining_module(obj: object) -> str:
    module = inspect.getmodule(getattr(obj, "__wrapped__", obj)) or inspect.getmodule(obj)
    return module.__name__ if module else ""


def _slug(title: str) -> str:
    return re.sub(r"[^0-9a-zA-Z]+", "_", title).strip("_").lower()


def pages(primary: dict[int, api_reference.ApiEntry] | None = None) -> dict[str, list[Page]]:
    """Namespace -> its pages (classes first, then function families), in index order."""
    primary = primary or primary_entries()
    found: dict[str, list[Page]] = {}
    for namespace in api_reference.namespaces():
        own = [e for e in api_reference.public_api() if e.namespace == namespace and primary[id(e.obj)] is e]
        result = [Page(f"{folder(namespace)}/{e.name}", e.name, [e]) for e in own if isinstance(e.obj, type)]
        functions = [e for e in own if not isinstance(e.obj, type)]
        if namespace.split(".")[0] in ONE_PAGE_PER_FUNCTION:
            result += [Page(f"{folder(namespace)}/{e.name}", e.name, [e], "functions") for e in functions]
        else:
            families: dict[str, list[api_reference.ApiEntry]] = {}
            for entry in functions:
                families.setdefault(_defining_module(entry.obj), []).append(entry)
            for module, members in families.items():
                stem = module.rsplit(".", 1)[-1]
                if len(members) == 1:
                    title = members[0].name
                elif stem in FAMILY_TITLES:
                    title = FAMILY_TITLES[stem]
                elif module == f"tfkit.{namespace}":  # the namespace is the module: datasets.mnist
                    title = "Functions"
                else:
                    title = f"{stem.replace('_', ' ').capitalize()} functions"
                result.append(
                    Page(
                        f"{folder(namespace)}/{_slug(title) if len(members) > 1 else title}",
                        title,
                        members,
                        "functions",
                    )
                )
        found[namespace] = result
    _check_unique(page for group in found.values() for page in group)
    return found


def _check_unique(all_pages) -> None:
    """Two pages whose names differ only in case would overwrite each other on macOS and Windows."""
    seen: dict[str, str] = {}
    for page in all_pages:
        key = page.docname.lower()
        if key in seen:
            raise ValueError(
                f"API pages {seen[key]!r} and {page.docname!r} differ only in case; "
                "rename a family in tools/api_pages.py FAMILY_TITLES"
            )
        seen[key] = page.docname


def signature_types(primary: dict[int, api_reference.ApiEntry] | None = None) -> dict[str, list[str]]:
    """tfkit classes public signatures name but no namespace exports: ``module.qualname`` -> where named.

    Read from the parameters and return annotations of every documented class and function, and of the
    public methods and properties of the classes whose pages list their members (``Model.jit_compile_decision``
    returns an ``XlaDecision``).
    """
    primary = primary or primary_entries()
    public = {id(e.obj) for e in primary.values()}
    found: dict[str, list[str]] = {}
    classes: dict[str, type] = {}

    def look(obj: object, where: str) -> None:
        namespace = api_signatures.module_globals(obj)
        for annotation in _annotations(obj):
            for cls in api_signatures.referenced_classes(annotation, namespace):
                if (
                    id(cls) not in public
                    and (cls.__module__ or "").startswith("tfkit")
                    and not cls.__name__.startswith("_")
                ):
                    path = api_signatures.real_path(cls)
                    classes[path] = cls
                    if where not in found.setdefault(path, []):
                        found[path].append(where)

    for entry in primary.values():
        look(entry.obj, entry.path)
        if isinstance(entry.obj, type) and entry.obj.__name__ in MEMBER_CLASSES:
            for name, member in _public_members(entry.obj):
                look(member, f"{entry.path}.{name}")
    checked: set[str] = set()
    while set(classes) - checked:  # the types' own fields and methods name more
        for path in sorted(set(classes) - checked):
            checked.add(path)
            look(classes[path], path)
            for name, member in _public_members(classes[path]):
                look(member, f"{path}.{name}")
    return {path: found[path] for path in sorted(found)}


def type_object(path: str) -> type:
    module, _, name = path.rpartition(".")
    return getattr(sys.modules[module], name)


def _annotations(obj: object) -> list[str]:
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    if dataclasses.is_dataclass(obj):
        return [str(f.type) for f in dataclasses.fields(obj)]
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    found = [
        str(p.annotation) if not isinstance(p.annotation, str) else p.annotation
        for p in signature.parameters.values()
        if p.annotation is not inspect.Parameter.empty
    ]
    if signature.return_annotation is not inspect.Signature.empty:
        found.append(
            str(signature.return_annotation)
            if not isinstance(signature.return_annotation, str)
            else signature.return_annotation
        )
    return found


def _public_members(cls: type) -> list[tuple[str, object]]:
    """The members autodoc lists on ``cls``'s page: public, documented, and inherited only as MEMBER_CLASSES says."""
    inherited = MEMBER_CLASSES.get(cls.__name__)
    stop = set(inherited.split(",")) if inherited else set()
    classes = [cls]
    if inherited:
        for klass in cls.__mro__[1:]:
            if klass.__name__ in stop or klass is object:
                break
            classes.append(klass)
    members: dict[str, object] = {}
    for klass in classes:
        for name, member in vars(klass).items():
            documented = inspect.getdoc(member.fget if isinstance(member, property) else member)
            if (
                not name.startswith("_")
                and name not in members
                and documented
                and (callable(member) or isinstance(member, (property, classmethod, staticmethod)))
            ):
                members[name] = member
    return list(members.items())


# ------------------------------------------------------------------ page text


def summary(obj: object) -> str:
    """The first sentence of ``obj``'s docstring, as one Markdown table cell."""
    text = (inspect.getdoc(obj) or "").strip().split("\n\n", 1)[0].replace("\n", " ")
    text = re.sub(r":(?:py:)?\w+:`~?([^`]+)`", r"`\1`", text)  # Sphinx roles read as code in a cell
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return text.replace("|", "\\|")


def _role(obj: object) -> str:
    return "class" if isinstance(obj, type) else "func"


def _directive(entry: api_reference.ApiEntry) -> str:
    if not isinstance(entry.obj, type):
        return f"```{{eval-rst}}\n.. autofunction:: {entry.path}\n```\n"
    options = ""
    if entry.obj.__name__ in MEMBER_CLASSES and entry.obj.__module__.startswith("tfkit"):
        options = "   :members:\n"
        inherited = MEMBER_CLASSES[entry.obj.__name__]
        if inherited:
            options += f"   :inherited-members: {inherited}\n"
    return f"```{{eval-rst}}\n.. autoclass:: {entry.path}\n{options}```\n"


def _aliases(entry: api_reference.ApiEntry) -> list[str]:
    return [e.path for e in api_reference.public_api() if e.obj is entry.obj and e is not entry]


def page_text(page: Page) -> str:
    """The Markdown of one class, family or function page."""
    lines = [f"# {page.title}", ""]
    if page.kind == "functions" and len(page.entries) > 1:
        namespace = page.entries[0].namespace
        lines += [
            f"Functions of `{'.'.join(p for p in ('tfkit', namespace) if p)}`: "
            + ", ".join(f"`{e.name}`" for e in page.entries)
            + ".",
            "",
        ]
    for entry in page.entries:
        lines.append(_directive(entry))
        aliases = _aliases(entry)
        if aliases:
            lines += [f"Also available as {', '.join(f'`{a}`' for a in aliases)}.", ""]
    return "\n".join(lines)


def type_page_text(path: str, named_in: list[str]) -> str:
    cls = type_object(path)
    lines = [
        f"# {cls.__name__}",
        "",
        f"`{path}` is no public name: you get one from the tfkit API, which names it in "
        + ", ".join(f"`{where}`" for where in named_in)
        + ".",
        "",
        f"```{{eval-rst}}\n.. autoclass:: {path}\n   :members:\n```",
        "",
    ]
    return "\n".join(lines)


def namespace_title(namespace: str) -> str:
    return PAGE_TITLES.get(namespace, f"`tfkit.{namespace}`")


def module_summary(namespace: str) -> str:
    text = (inspect.getdoc(api_reference._module(namespace)) or "").split("\n\n", 1)[0].replace("\n", " ")
    return re.sub(r"^``[\w.]+``:\s*", "", text).replace("|", "\\|")


def _heading(namespace: str, entry: api_reference.ApiEntry, page: Page) -> str:
    if namespace == "ops":
        import tfkit.ops

        for title, sub in OPS_GROUPS:
            if getattr(getattr(tfkit.ops, sub, None), entry.name, None) is entry.obj:
                return title
        return "Other ops"
    stem = _defining_module(entry.obj).rsplit(".", 1)[-1]
    for title, stems in GROUPS.get(namespace, []):
        if stem in stems:
            return title
    if page.kind == "functions":
        return page.title if len(page.entries) > 1 else "Functions"
    return "Classes" if namespace not in GROUPS else "Other classes"


def index_text(
    namespace: str,
    own: list[Page],
    children: list[str],
    primary: dict[int, api_reference.ApiEntry],
    pages_of: dict[int, str],
) -> str:
    """A namespace's index: every name with its summary, under headings; aliases link to their entry."""
    prefix = ".".join(p for p in ("tfkit", namespace) if p)
    lines = [f"# {namespace_title(namespace)}", "", f"`{prefix}`: {module_summary(namespace)}", ""]
    sections: dict[str, list[tuple[api_reference.ApiEntry, Page]]] = {}
    for page in own:
        for entry in page.entries:
            sections.setdefault(_heading(namespace, entry, page), []).append((entry, page))
    order = [t for t, _ in GROUPS.get(namespace, [])] + [t for t, _ in OPS_GROUPS] + ["Classes"]
    headings = [h for h in order if h in sections] + sorted(h for h in sections if h not in order)
    for heading in headings:
        lines += [f"## {heading}", "", "| name | summary |", "| --- | --- |"]
        for entry, _ in sorted(sections[heading], key=lambda item: item[0].name.lower()):
            lines.append(f"| {{py:{_role(entry.obj)}}}`{entry.name} <{entry.path}>` | {summary(entry.obj)} |")
        lines.append("")
    if children:
        lines += ["## Sub-namespaces", "", "| namespace | summary |", "| --- | --- |"]
        lines += [
            f"| {{doc}}`tfkit.{child} <{_relative(namespace, child)}>` | {module_summary(child)} |"
            for child in children
        ]
        lines.append("")
    elsewhere = [e for e in api_reference.public_api() if e.namespace == namespace and primary[id(e.obj)] is not e]
    if elsewhere:
        lines += [
            "## Also in this namespace",
            "",
            "These names are the same objects as entries documented on another page.",
            "",
            "| name | documented as | summary |",
            "| --- | --- | --- |",
        ]
        for e in elsewhere:
            documented = primary[id(e.obj)]
            lines.append(f"| `{e.path}` | {{py:{_role(e.obj)}}}`{documented.path}` | {summary(e.obj)} |")
        lines.append("")
    entries = [p.docname.rsplit("/", 1)[-1] for p in _toc_order(own, sections, headings)]
    entries += [f"{_relative(namespace, child)}" for child in children]
    if entries:
        lines += ["```{toctree}", ":hidden:", ":titlesonly:", ""] + entries + ["```", ""]
    return "\n".join(lines)


def _toc_order(own: list[Page], sections, headings) -> list[Page]:
    ordered: list[Page] = []
    for heading in headings:
        for _, page in sorted(sections[heading], key=lambda item: item[0].name.lower()):
            if page not in ordered:
                ordered.append(page)
    return ordered


def _relative(namespace: str, child: str) -> str:
    """The docname of ``child``'s index relative to ``namespace``'s index."""
    return f"{child[len(namespace) + 1 :].replace('.', '/')}/index" if namespace else f"{folder(child)}/index"


def _children(namespace: str, all_namespaces: list[str]) -> list[str]:
    """The namespaces one level below ``namespace`` (``ops`` -> ``ops.numpy``, ...)."""
    depth = namespace.count(".") + 1 if namespace else 0
    return (
        [
            ns
            for ns in all_namespaces
            if ns and ns != namespace and ns.startswith(namespace + ".") and ns.count(".") == depth
        ]
        if namespace
        else []
    )


def api_index_text(namespaces: list[str], counts: dict[str, int], has_types: bool) -> str:
    lines = [
        "# API reference",
        "",
        "Every public class and function of tfkit, as keras.io lays out Keras's API: a page per class "
        "or small family of functions, and an index per namespace listing each name with its summary. "
        "Each entry is generated from the docstring in the code; its example runs in the test suite.",
        "",
        "| namespace | what it holds | names |",
        "| --- | --- | ---: |",
    ]
    for ns in namespaces:
        lines.append(
            f"| {{doc}}`{'.'.join(p for p in ('tfkit', ns) if p)} <{folder(ns)}/index>` "
            f"| {module_summary(ns)} | {counts[ns]} |"
        )
    if has_types:
        lines.append(
            f"| {{doc}}`Types in signatures <{TYPES_FOLDER}/index>` | tfkit classes the API returns "
            "or takes that no namespace exports | |"
        )
    # a namespace under no documented parent (tfkit.hub.models: tfkit.hub holds only namespaces) is listed here
    top = [ns for ns in namespaces if "." not in ns or ns.rsplit(".", 1)[0] not in namespaces]
    lines += ["", "```{toctree}", ":hidden:", ":titlesonly:", ""]
    lines += [f"{folder(ns)}/index" for ns in top] + ([f"{TYPES_FOLDER}/index"] if has_types else [])
    lines += ["```", ""]
    return "\n".join(lines)


def types_index_text(types_found: dict[str, list[str]]) -> str:
    lines = [
        "# Types in signatures",
        "",
        "tfkit classes that public signatures take or return but no namespace exports: you get them "
        "from the API (`model.jit_compile_decision` is an `XlaDecision`), and their pages say what "
        "they hold.",
        "",
        "| name | summary |",
        "| --- | --- |",
    ]
    for path in types_found:
        lines.append(f"| {{py:class}}`{path.rsplit('.', 1)[-1]} <{path}>` | {summary(type_object(path))} |")
    lines += ["", "```{toctree}", ":hidden:", ":titlesonly:", ""]
    lines += [path.rsplit(".", 1)[-1] for path in types_found] + ["```", ""]
    return "\n".join(lines)


def documented_paths(primary: dict[int, api_reference.ApiEntry] | None = None) -> dict[int, str]:
    """Object id -> the path its entry is documented under, for linking types in signatures."""
    primary = primary or primary_entries()
    return {key: entry.path for key, entry in primary.items()}


def all_texts() -> dict[str, str]:
    """Docname under ``api/`` -> Markdown, for every page of the reference."""
    primary = primary_entries()
    by_namespace = pages(primary)
    namespaces = api_reference.namespaces()
    texts: dict[str, str] = {}
    pages_of: dict[int, str] = {}
    for namespace, own in by_namespace.items():
        for page in own:
            texts[page.docname] = page_text(page)
            for entry in page.entries:
                pages_of[id(entry.obj)] = page.docname
    for namespace, own in by_namespace.items():
        texts[f"{folder(namespace)}/index"] = index_text(
            namespace, own, _children(namespace, namespaces), primary, pages_of
        )
    types_found = signature_types(primary)
    for path, named_in in types_found.items():
        texts[f"{TYPES_FOLDER}/{path.rsplit('.', 1)[-1]}"] = type_page_text(path, named_in)
    if types_found:
        texts[f"{TYPES_FOLDER}/index"] = types_index_text(types_found)
    counts = {ns: sum(1 for e in api_reference.public_api() if e.namespace == ns) for ns in namespaces}
    texts["index"] = api_index_text(namespaces, counts, bool(types_found))
    return texts


def write_pages(folder_path: pathlib.Path) -> list[str]:
    """Write every page under ``folder_path`` (``<folder_path>/layers/Dense.md``, ...); returns the docnames.

    A page whose text did not change keeps its file (and Sphinx's cache of it); a file no page
    claims any more is deleted.
    """
    texts = all_texts()
    folder_path.mkdir(parents=True, exist_ok=True)
    for docname, text in texts.items():
        path = folder_path / f"{docname}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    wanted = {folder_path / f"{docname}.md" for docname in texts}
    for stale in folder_path.rglob("*.md"):
        if stale not in wanted:
            stale.unlink()
    return sorted(texts)
