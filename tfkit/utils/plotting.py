"""``plot_model`` / ``model_to_dot``: a picture of the model graph through pydot and Graphviz.

    tfkit.utils.plot_model(model, to_file="model.png", show_shapes=True)

Both are optional: without ``pydot`` or Graphviz's ``dot`` program the error
says exactly what to install.
"""

from __future__ import annotations

import os
import shutil
from typing import Any


def _pydot() -> Any:
    try:
        import pydot
    except ImportError:
        raise ImportError("plot_model needs pydot and Graphviz: `pip install pydot` and Graphviz's `dot` program "
                          "(for example `apt-get install graphviz`)") from None
    if shutil.which("dot") is None:
        raise ImportError("plot_model needs Graphviz's `dot` program on the PATH (for example "
                          "`apt-get install graphviz`); pydot is installed")
    return pydot


def _label(layer: Any, show_shapes: bool, show_dtype: bool, show_layer_names: bool,
           show_layer_activations: bool, show_trainable: bool) -> str:
    text = f"{layer.name} ({type(layer).__name__})" if show_layer_names else type(layer).__name__
    if show_layer_activations and hasattr(layer, "activation"):
        text += f"\\nactivation: {getattr(layer.activation, '__name__', layer.activation)}"
    if show_shapes:
        shapes = getattr(layer, "_st", None) and layer._st.output_shapes
        text += f"\\noutput: {shapes}"
    if show_dtype:
        text += f"\\ndtype: {layer.dtype}"
    if show_trainable:
        text += f"\\ntrainable: {layer.trainable}"
    return text


def model_to_dot(model: Any, show_shapes: bool = False, show_dtype: bool = False, show_layer_names: bool = True,
                 rankdir: str = "TB", expand_nested: bool = False, dpi: int = 200, subgraph: bool = False,
                 show_layer_activations: bool = False, show_trainable: bool = False, splines: str = "ortho",
                 **kwargs: Any) -> Any:
    """A ``pydot.Dot`` graph (a ``pydot.Cluster`` with ``subgraph=True``, as Keras, to nest in another graph):
    one node per layer, edges along the functional graph (or the layer order); ``splines`` is Graphviz's."""
    pydot = _pydot()
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name, label=model.name)
    else:
        dot = pydot.Dot(graph_type="digraph", rankdir=rankdir, dpi=dpi, splines=splines)
    dot.set_node_defaults(shape="record")
    layers = list(model.layers)
    for layer in layers:
        dot.add_node(pydot.Node(str(id(layer)), label=_label(layer, show_shapes, show_dtype, show_layer_names,
                                                             show_layer_activations, show_trainable)))
    graph = getattr(model, "functional_graph", None)
    if graph is not None:
        for node in graph.nodes:
            for tensor in node.input_tensors:
                dot.add_edge(pydot.Edge(str(id(tensor.node.layer)), str(id(node.layer))))
    else:
        for before, after in zip(layers, layers[1:]):
            dot.add_edge(pydot.Edge(str(id(before)), str(id(after))))
    return dot


def plot_model(model: Any, to_file: str = "model.png", show_shapes: bool = False, show_dtype: bool = False,
               show_layer_names: bool = False, rankdir: str = "TB", expand_nested: bool = False, dpi: int = 200,
               show_layer_activations: bool = False, show_trainable: bool = False, splines: str = "ortho",
               **kwargs: Any) -> Any:
    """Write the model graph to ``to_file`` (format from its extension: png, svg, pdf, dot); Keras 3.15's
    defaults (layer names off here, on in ``model_to_dot``)."""
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype, show_layer_names=show_layer_names,
                       rankdir=rankdir, expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations, show_trainable=show_trainable, splines=splines)
    extension = os.path.splitext(to_file)[1].lstrip(".") or "png"
    dot.write(to_file, format=extension)
    return to_file
