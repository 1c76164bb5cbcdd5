"""``AttributeOrderedLayers``: an encoder-decoder backbone's weights in KerasHub's order, the attributes'.

    class BartBackbone(AttributeOrderedLayers, Backbone): ...
    [w.path for w in backbone.weights]        # KerasHub's paths, in KerasHub's order

A Keras backbone tracks the layers its constructor assigns as attributes
before it builds its graph, so its weights and the keys of its weight file
(``position_embedding_1``) follow the order of those assignments; tfkit's
functional model follows the graph. Where the two differ (an encoder-decoder
whose embedding layers sit at the graph's top: BART, Whisper, Moonshine), the
backbone mixes this class in before ``Backbone``.
"""

from __future__ import annotations

from typing import Any

from tfkit.engine import tracking


def layers_in_attribute_order(model: Any) -> list[Any]:
    """`model`'s graph layers in the order its constructor assigned them, the rest after them in graph order.

    A list or tuple attribute counts element by element; layers no attribute
    holds (the inputs) keep their graph order, after the others.

    Args:
        model: A functional model whose constructor assigned its layers as
            attributes before building its graph.

    Returns:
        The layers of `model.functional_graph`, reordered.
    """
    rank: dict[int, int] = {}
    for value in vars(model).values():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            rank.setdefault(id(item), len(rank))
    graph_layers = model.functional_graph.layers
    return sorted(graph_layers, key=lambda layer: (rank.get(id(layer), len(rank)), graph_layers.index(layer)))


class AttributeOrderedLayers:
    """Mixin of a backbone whose weights and weight-file keys follow its attributes (`layers_in_attribute_order`).

    Put it before `Backbone` among the bases, so that
    `[w.path for w in backbone.weights]` and the keys of its weight file are
    KerasHub's.
    """

    def _tracked_items(self) -> Any:
        layers = layers_in_attribute_order(self)
        keys = tracking.structural_layer_keys(layers) if tracking.structural_mode() else [l.name for l in layers]
        yield from zip(keys, layers)
