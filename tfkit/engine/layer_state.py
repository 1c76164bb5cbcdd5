"""What a layer knows about itself besides its weights, kept off the attributes ``tf.Module`` tracks.

    state = LayerState()                 # Layer.__new__ makes one per layer
    state.build_shapes = (None, 784)     # set when the layer builds
    saved = state.snapshot(); ...; state.restore(saved)   # a failed load puts it back

``Layer`` reads and writes these fields; other modules go through the
``Layer`` properties and methods that expose them (``_build_shapes``,
``_record_node``, ...), never through this object.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf


class LayerState:
    """tfkit's bookkeeping of one layer: name, dtype policy, build state, losses and graph links."""

    __slots__ = (
        "name",
        "policy",
        "trainable",
        "built",
        "weights",
        "losses",
        "regularizers",
        "init_args",
        "autocast",
        "input_spec",
        "auto_spec",
        "build_shapes",
        "supports_masking",
        "output_shapes",
        "declared_batch_shape",
        "nodes",
        "inbound_names",
        "graph_owner",
        "frozen_weights",
        "path",
        "child_paths",
    )

    def __init__(self) -> None:
        self.name = ""
        self.policy: Any = None
        self.trainable = True
        self.built = False
        self.weights: list[tf.Variable] = []
        self.losses: list[Any] = []
        self.regularizers: list[tuple[tf.Variable, Any]] = []
        self.init_args: dict[str, Any] = {}
        self.autocast = True
        self.input_spec: Any = None
        self.auto_spec: Any = None
        self.build_shapes: Any = None
        self.supports_masking = False
        self.output_shapes: Any = None
        self.declared_batch_shape: Any = None  # from input_shape= / input_dim= (a Sequential's first layer)
        self.nodes: list[Any] = []  # the calls on symbolic tensors (functional_graph.Node)
        self.inbound_names: list[str] = []  # the layers feeding it in its functional model
        self.graph_owner: Any = None  # a weakref to the Sequential that can make its graph
        self.frozen_weights: list[int] = []  # ids of own weights set non-trainable one by one (LoRA's kernel)
        self.path: str | None = None  # Keras 3's layer path, fixed when first called or built (layer_paths)
        self.child_paths: dict[str, Any] = {}  # paths of the layers first opened inside this one -> weakrefs

    def forget_weight(self, variable: tf.Variable) -> None:
        """Stop owning ``variable`` (a weight replaced by another, as ``quantize`` does with a kernel)."""
        self.weights = [w for w in self.weights if w is not variable]
        self.regularizers = [(w, r) for w, r in self.regularizers if w is not variable]
        self.frozen_weights = [i for i in self.frozen_weights if i != id(variable)]

    def snapshot(self) -> dict[str, Any]:
        """The fields as they are now (lists copied), for :meth:`restore`."""
        return {
            slot: list(value) if isinstance(value, list) else value
            for slot in self.__slots__
            for value in [getattr(self, slot)]
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        for slot, value in snapshot.items():
            setattr(self, slot, value)
