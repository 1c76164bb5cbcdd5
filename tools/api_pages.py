"""The API reference's pages: one Markdown page per namespace, as keras.io lays out its API.

``docs/conf.py`` calls :func:`write_pages` at the start of every build, so the
reference always lists exactly the names ``tools/api_reference.py`` counts. A
name is documented in full once, under its own name (``Conv2D``, not the alias
``Convolution2D``) on the page of the first namespace that holds it
(``tfkit.layers.Dense``; ``tfkit.ops.add`` rather than ``tfkit.ops.numpy.add``;
the top level last); every other namespace that holds it lists it in
a table that links to that entry. Entries are grouped under headings by the
file that defines them (``tfkit/layers/convolution.py``: "Convolution layers").
"""

from __future__ import annotations

import inspect
import os
import pathlib
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # its sibling, also when loaded by path
import api_reference  # noqa: E402

# Headings by defining file, as keras.io groups its API pages ("Core layers", "Pooling layers", ...).
GROUPS = {
    "layers": [
        ("Core layers", ("core", "einsum_dense", "embedding", "embedding_reversible", "serialization",
                         "tf_op", "tfsm_layer", "lora")),
        ("Convolution layers", ("convolution", "conv_depthwise", "conv_depthwise1d", "conv_aliases", "conv_base")),
        ("Pooling layers", ("pooling", "pooling_adaptive")),
        ("Recurrent layers", ("recurrent", "rnn_cells", "conv_lstm", "stacked_cells", "wrappers")),
        ("Attention layers", ("attention", "attention_dot", "attention_grouped")),
        ("Normalization layers", ("normalization", "normalization_simple", "spectral_normalization",
                                  "batch_renorm")),
        ("Regularization layers", ("regularization", "noise")),
        ("Reshaping layers", ("reshaping", "reshaping_nd")),
        ("Merging layers", ("merging", "merging_functions")),
        ("Activation layers", ("activation_layers",)),
        ("Image augmentation layers", ("image", "image_affine", "image_color", "image_filter", "image_geometry",
                                       "image_histogram", "image_mixing", "image_policies", "image_random")),
        ("Preprocessing layers", ("categorical", "feature_normalization", "hashed_crossing", "index_lookup",
                                  "mel_spectrogram", "pipeline", "stft_spectrogram", "text_vectorization")),
    ],
    "ops": [
        ("NumPy ops", ("numpy",)),
        ("NN ops", ("nn",)),
        ("Linear algebra ops", ("linalg",)),
        ("Core ops", ("core",)),
        ("FFT and signal ops", ("signal",)),
    ],
    "metrics": [
        ("Accuracy metrics", ("accuracy",)),
        ("Probabilistic and regression metrics", ("regression", "r2_score", "correlation")),
        ("Classification metrics based on true/false positives and negatives",
         ("confusion", "auc", "sensitivity_specificity", "f_score")),
        ("Image segmentation metrics", ("iou",)),
        ("Base and reduction metrics", ("base", "reduction")),
    ],
    "losses": [
        ("Loss classes", ("builtins", "extra_builtins", "loss", "reduction")),
    ],
}
# Classes whose methods a user calls or overrides: their pages list their public methods, as keras.io's do.
# The value is autodoc's inherited-members option: Model shows the training engine's methods (fit, ...)
# and leaves Layer's to the Layer entry; Model's subclasses show their own methods only (add, pop, ...).
MEMBER_CLASSES = {
    "Model": "Layer,Module", "Sequential": None, "Functional": None, "Distiller": None, "Layer": None,
    "Metric": None, "Loss": None, "Optimizer": None, "Callback": None, "PyDataset": None, "FeatureSpace": None,
    "ExportArchive": None, "KerasFileEditor": None, "Initializer": None, "Regularizer": None, "Constraint": None,
    "LearningRateSchedule": None, "Distribution": None,
}
PAGE_TITLES = {"": "Top-level names", "ops.numpy": "NumPy ops", "ops.nn": "NN ops",
               "ops.linalg": "Linear algebra ops", "ops.image": "Image ops"}


def page_name(namespace: str) -> str:
    return namespace or "tfkit"


def primary_entries() -> dict[int, api_reference.ApiEntry]:
    """Object id -> the entry documented in full: its own ``__name__`` first, then namespace order (top level last)."""
    order = [ns for ns in api_reference.namespaces() if ns] + [""]
    rank = {ns: i for i, ns in enumerate(order)}
    primary: dict[int, api_reference.ApiEntry] = {}
    for entry in sorted(api_reference.public_api(),
                        key=lambda e: (e.name != getattr(e.obj, "__name__", e.name), rank[e.namespace])):
        primary.setdefault(id(entry.obj), entry)
    return primary


def _group(namespace: str, entry: api_reference.ApiEntry) -> str:
    groups = GROUPS.get(namespace)
    if namespace == "ops":      # by the sub-namespace that holds the name, as keras.io's ops pages
        import tfkit.ops

        for title, (sub,) in groups:
            if getattr(getattr(tfkit.ops, sub), entry.name, None) is entry.obj:
                return title
        return "Other ops"
    if not groups:
        return ""
    module = (inspect.getmodule(getattr(entry.obj, "__wrapped__", entry.obj)) or inspect.getmodule(entry.obj))
    stem = (module.__name__ if module else "").rsplit(".", 1)[-1]
    for title, stems in groups:
        if stem in stems:
            return title
    return "Other"


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


def _link(entry: api_reference.ApiEntry, primary: api_reference.ApiEntry) -> str:
    role = "class" if isinstance(entry.obj, type) else "func"
    return f"| `{entry.path}` | {{py:{role}}}`{primary.path}` |"


def page(namespace: str, primary: dict[int, api_reference.ApiEntry]) -> str:
    """One namespace's Markdown page."""
    entries = [e for e in api_reference.public_api() if e.namespace == namespace]
    title = PAGE_TITLES.get(namespace, f"`tfkit.{namespace}`")
    module = api_reference._module(namespace)
    summary = (inspect.getdoc(module) or "").split("\n\n", 1)[0].replace("\n", " ")
    lines = [f"# {title}", "", f"`{'.'.join(p for p in ('tfkit', namespace) if p)}`: {summary}", ""]
    own = [e for e in entries if primary[id(e.obj)] is e]
    elsewhere = [e for e in entries if primary[id(e.obj)] is not e]
    sections: dict[str, list[api_reference.ApiEntry]] = {}
    order = [title for title, _ in GROUPS.get(namespace, [])]
    for entry in own:
        sections.setdefault(_group(namespace, entry), []).append(entry)
    for heading in order + sorted(set(sections) - set(order)):
        if heading not in sections:
            continue
        if heading:
            lines += [f"## {heading}", ""]
        for entry in sections[heading]:
            lines.append(_directive(entry))
    if elsewhere:
        lines += ["## Also in this namespace", "",
                  "These names are the same objects as entries documented on another page.", "",
                  "| name | documented as |", "| --- | --- |"]
        lines += [_link(e, primary[id(e.obj)]) for e in elsewhere]
        lines.append("")
    return "\n".join(lines)


def write_pages(folder: pathlib.Path) -> list[str]:
    """Write ``folder/<namespace>.md`` for every namespace and ``folder/index.md``; returns the page names."""
    folder.mkdir(parents=True, exist_ok=True)
    primary = primary_entries()
    names = []
    for namespace in api_reference.namespaces():
        name = page_name(namespace)
        text = page(namespace, primary)
        path = folder / f"{name}.md"
        if not path.exists() or path.read_text() != text:     # unchanged pages keep Sphinx's cache
            path.write_text(text)
        names.append(name)
    index = ["# API reference", "",
             "Every public class and function of tfkit, one page per namespace, as keras.io lays out "
             "Keras's API. Each entry is generated from the docstring in the code; its example runs in the "
             "test suite.", "", "```{toctree}", ":maxdepth: 1", ""] + names + ["```", ""]
    index_text = "\n".join(index)
    if not (folder / "index.md").exists() or (folder / "index.md").read_text() != index_text:
        (folder / "index.md").write_text(index_text)
    return names
