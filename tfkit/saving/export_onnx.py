"""ONNX conversion with tf2onnx, and running the result with onnxruntime (the optional ``onnx`` extra).

    proto_bytes = convert(model, module, concrete, specs)                    # bytes of a .onnx file
    answers = run("model.onnx", {"input_layer": batch})                      # {output name: array}
    convert(model, module, concrete, specs, opset_version=17)

The batch dimension stays dynamic. Random draws left in the graph at
inference (the guide VAE's Sampling) have no ONNX equivalent that matches
TensorFlow's numbers; with a fixed batch size in ``input_signature`` the
converter folds them into constants from the saved generator state.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.saving import export_blame

INSTALL_HINT = "pip install tf2onnx onnxruntime (or tfkit's 'onnx' extra: pip install 'tfkit[onnx]')"


def _require() -> Any:
    try:
        import onnxruntime  # noqa: F401
        import tf2onnx
    except ImportError as error:
        raise ImportError(f"format='onnx' needs tf2onnx and onnxruntime: {INSTALL_HINT}. ({error})") from error
    return tf2onnx


def _unsupported(proto: Any) -> set[str]:
    import onnx

    graphs, bad = [proto.graph], set()
    while graphs:
        graph = graphs.pop()
        for node in graph.node:
            if node.domain in ("", "ai.onnx") and not onnx.defs.has(node.op_type):
                bad.add(node.op_type)
            graphs.extend(a.g for a in node.attribute if a.HasField("g"))
            graphs.extend(a.graphs for a in node.attribute if len(a.graphs))
    return bad


def _hint(ops: set[str]) -> str:
    if export_blame.is_random(ops):
        return (
            "That layer draws random numbers at inference: export with a fixed batch size "
            "(input_signature=[tf.TensorSpec((N, ...), dtype)]) so the draws from the saved generator state "
            "are folded into constants, or use format='tflite' with select_tf_ops=True, or 'tf_saved_model'"
        )
    return (
        "To export it, use format='tflite' with select_tf_ops=True, or format='tf_saved_model', which run "
        "TensorFlow's kernels"
    )


def convert(model: Any, module: Any, concrete: Any, specs: Any, opset_version: int | None = None) -> bytes:
    """The .onnx bytes for ``module.serving_fn``; ValueError naming the ops and layers ONNX cannot express."""
    tf2onnx = _require()

    logger = logging.getLogger("tf2onnx")
    level = logger.level
    logger.setLevel(logging.CRITICAL)  # unsupported ops are reported below, by layer
    try:
        proto, _ = tf2onnx.convert.from_function(
            module.serving_fn, input_signature=tf.nest.flatten(specs), opset=opset_version
        )
    except Exception as error:
        raise ValueError(
            f"format='onnx': tf2onnx could not convert model '{model.name}'; nothing was written. "
            f"({type(error).__name__}: {str(error)[-1500:]})"
        ) from error
    finally:
        logger.setLevel(level)
    bad = _unsupported(proto)
    if bad:
        found = export_blame.blame(concrete, bad, model)
        raise ValueError(
            f"format='onnx': model '{model.name}' uses TensorFlow ops that tf2onnx cannot express in "
            f"ONNX: {export_blame.describe(found)}. {_hint(bad)}; nothing was written."
        )
    return proto.SerializeToString()


def run(path: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run the .onnx file at ``path`` with onnxruntime on ``inputs`` (by input name)."""
    import onnxruntime

    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    feeds = {}
    for item in session.get_inputs():
        value = inputs[item.name.split(":")[0]]
        feeds[item.name] = value.astype(object) if value.dtype.kind in "USO" else value
    names = [o.name for o in session.get_outputs()]
    return {name.split(":")[0]: np.asarray(v) for name, v in zip(names, session.run(names, feeds))}
