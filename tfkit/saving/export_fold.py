"""Fold a traced function into constants with Grappler: random draws from a frozen seed at a fixed batch size.

    module, folded = fold_constants(concrete, specs)   # a tf.Module holding the folded ConcreteFunction
    folded(x)["output_0"]                              # the numbers concrete(x) gives, draws now constants

The guide VAE's Sampling draws at inference. With its generator state
frozen and every input shape static, each draw is a function of constants,
so TensorFlow can compute it once (its own kernel: the numbers ``predict``
draws) and store the result. TFLite's converter does not fold random ops
itself; tf2onnx runs the same Grappler pass on its own.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2, meta_graph_pb2
from tensorflow.python.framework import convert_to_constants
from tensorflow.python.grappler import tf_optimizer


def is_static(specs: Any) -> bool:
    """Whether every input shape is fully known (batch included)."""
    return all(s.shape.is_fully_defined() for s in tf.nest.flatten(specs))


def fold_constants(concrete: Any, specs: Any) -> tuple[tf.Module, Any]:
    """A variable-free ConcreteFunction computing ``concrete`` with constant subgraphs folded, and its holder."""
    frozen = convert_to_constants.convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    inputs = [t.name for t in frozen.inputs]
    keys = sorted(concrete.structured_outputs)  # serve returns a dict; outputs are flattened in key order
    outputs = [t.name for t in frozen.outputs]

    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.optimizers[:] = ["constfold", "function"]
    meta_graph = tf.compat.v1.train.export_meta_graph(graph_def=graph_def, graph=frozen.graph)
    fetch = meta_graph_pb2.CollectionDef()
    fetch.node_list.value.extend(inputs + outputs)
    meta_graph.collection_def["train_op"].CopyFrom(fetch)
    optimized = tf_optimizer.OptimizeGraph(config, meta_graph)

    wrapped = tf.compat.v1.wrap_function(lambda: tf.compat.v1.import_graph_def(optimized, name=""), [])
    pruned = wrapped.prune(
        feeds=[wrapped.graph.get_tensor_by_name(n) for n in inputs],
        fetches=[wrapped.graph.get_tensor_by_name(n) for n in outputs],
    )

    def serve(*flat_inputs: tf.Tensor) -> dict[str, tf.Tensor]:
        return dict(zip(keys, pruned(*flat_inputs)))

    holder = tf.Module()
    holder.serving_fn = tf.function(serve, input_signature=tf.nest.flatten(specs), autograph=False)
    holder.pruned = pruned
    return holder, holder.serving_fn.get_concrete_function()
