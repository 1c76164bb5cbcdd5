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
        raise ImportError(
            "plot_model needs pydot and Graphviz: `pip install pydot` and Graphviz's `dot` program "
            "(for example `apt-get install graphviz`)"
        ) from None
    if shutil.which("dot") is None:
        raise ImportError(
            "plot_model needs Graphviz's `dot` program on the PATH (for example "
            "`apt-get install graphviz`); pydot is installed"
        )
    return pydot


def _label(
    layer: Any,
    show_shapes: bool,
    show_dtype: bool,
    show_layer_names: bool,
    show_layer_activations: bool,
    show_trainable: bool,
) -> str:
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


def model_to_dot(
    model: Any,
    show_shapes: bool = False,
    show_dtype: bool = False,
    show_layer_names: bool = True,
    rankdir: str = "TB",
    expand_nested: bool = False,
    dpi: int = 200,
    subgraph: bool = False,
    show_layer_activations: bool = False,
    show_trainable: bool = False,
    splines: str = "ortho",
    **kwargs: Any,
) -> Any:
    """Converts a model to a `pydot.Dot` graph: one node per layer, edges along the layer graph.

    Edges follow a functional model's graph, else the layers' order. Needs
    `pydot` and Graphviz's `dot` program.

    Args:
        model: The model to draw.
        show_shapes: Whether to show each layer's output shapes. Defaults to
            `False`.
        show_dtype: Whether to show each layer's dtype. Defaults to `False`.
        show_layer_names: Whether to show layer names. Defaults to `True`.
        rankdir: Graphviz's layout direction: `"TB"` (top to bottom) or
            `"LR"` (left to right). Defaults to `"TB"`.
        expand_nested: Accepted for Keras compatibility; nested models are
            drawn as one node. Defaults to `False`.
        dpi: Image resolution in dots per inch. Defaults to `200`.
        subgraph: Whether to return a `pydot.Cluster` (to nest in another
            graph) instead of a `pydot.Dot`, as Keras. Defaults to `False`.
        show_layer_activations: Whether to show the activation of layers that
            have one. Defaults to `False`.
        show_trainable: Whether to show whether each layer is trainable.
            Defaults to `False`.
        splines: Graphviz's `splines` attribute (how edges are drawn).
            Defaults to `"ortho"`.
        **kwargs: Accepted for Keras compatibility and unused.

    Returns:
        A `pydot.Dot` (or `pydot.Cluster`).

    Raises:
        ImportError: If `pydot` or Graphviz is missing (the message says
            what to install).

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> try:
        ...     dot = tfkit.utils.model_to_dot(model, show_shapes=True)
        ...     nodes = len(dot.get_nodes()) - 1  # pydot adds a "node" defaults entry
        ... except ImportError:  # pydot or Graphviz is not installed
        ...     nodes = 1
        >>> nodes
        1
    """
    pydot = _pydot()
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name, label=model.name)
    else:
        dot = pydot.Dot(graph_type="digraph", rankdir=rankdir, dpi=dpi, splines=splines)
    dot.set_node_defaults(shape="record")
    layers = list(model.layers)
    for layer in layers:
        dot.add_node(
            pydot.Node(
                str(id(layer)),
                label=_label(layer, show_shapes, show_dtype, show_layer_names, show_layer_activations, show_trainable),
            )
        )
    graph = getattr(model, "functional_graph", None)
    if graph is not None:
        for node in graph.nodes:
            for tensor in node.input_tensors:
                dot.add_edge(pydot.Edge(str(id(tensor.node.layer)), str(id(node.layer))))
    else:
        for before, after in zip(layers, layers[1:]):
            dot.add_edge(pydot.Edge(str(id(before)), str(id(after))))
    return dot


def plot_model(
    model: Any,
    to_file: str = "model.png",
    show_shapes: bool = False,
    show_dtype: bool = False,
    show_layer_names: bool = False,
    rankdir: str = "TB",
    expand_nested: bool = False,
    dpi: int = 200,
    show_layer_activations: bool = False,
    show_trainable: bool = False,
    splines: str = "ortho",
    **kwargs: Any,
) -> Any:
    """Converts a model to a picture of its layer graph and saves it to a file.

    The format comes from `to_file`'s extension (png, svg, pdf, dot). The
    defaults are Keras 3.15's (layer names off here, on in `model_to_dot`).
    Needs `pydot` and Graphviz's `dot` program.

    Args:
        model: The model to draw.
        to_file: The file to write. Defaults to `"model.png"`.
        show_shapes: Whether to show each layer's output shapes. Defaults to
            `False`.
        show_dtype: Whether to show each layer's dtype. Defaults to `False`.
        show_layer_names: Whether to show layer names. Defaults to `False`.
        rankdir: Graphviz's layout direction: `"TB"` (top to bottom) or
            `"LR"` (left to right). Defaults to `"TB"`.
        expand_nested: Accepted for Keras compatibility; nested models are
            drawn as one node. Defaults to `False`.
        dpi: Image resolution in dots per inch. Defaults to `200`.
        show_layer_activations: Whether to show the activation of layers that
            have one. Defaults to `False`.
        show_trainable: Whether to show whether each layer is trainable.
            Defaults to `False`.
        splines: Graphviz's `splines` attribute (how edges are drawn).
            Defaults to `"ortho"`.
        **kwargs: Accepted for Keras compatibility and unused.

    Returns:
        The path written (`to_file`).

    Raises:
        ImportError: If `pydot` or Graphviz is missing (the message says
            what to install).

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> try:
        ...     path = tfkit.utils.plot_model(model, to_file="model.png", show_shapes=True)
        ... except ImportError:  # pydot or Graphviz is not installed
        ...     path = "model.png"
        >>> path
        'model.png'
    """
    dot = model_to_dot(
        model,
        show_shapes=show_shapes,
        show_dtype=show_dtype,
        show_layer_names=show_layer_names,
        rankdir=rankdir,
        expand_nested=expand_nested,
        dpi=dpi,
        show_layer_activations=show_layer_activations,
        show_trainable=show_trainable,
        splines=splines,
    )
    extension = os.path.splitext(to_file)[1].lstrip(".") or "png"
    dot.write(to_file, format=extension)
    return to_file
