"""TFLite (LiteRT) conversion with TensorFlow's own converter, and running the result.

    flatbuffer = convert(model, module, concrete, specs)              # bytes of a .tflite file
    answers = run("model.tflite", {"input_layer": batch})             # {output name: array}
    convert(model, module, concrete, specs, select_tf_ops=True)       # TF kernels for ops TFLite lacks

The batch dimension stays dynamic (-1 in the file's shape signature); the
interpreter is resized to each batch it runs. TFLite has no kernel for
TensorFlow's stateless random ops: a model that draws at inference (the
guide VAE) converts with a fixed batch size in ``input_signature`` (the
draws are folded into constants by ``export_fold``) or with
``select_tf_ops=True`` (needs a runtime with the Flex delegate, which
``tf.lite.Interpreter`` of the tensorflow 2.21 wheel lacks).

The converter's MLIR passes print their diagnostics to file descriptor 2
("loc(...): error: ... is neither a custom op nor a flex op", several KB),
also for a first try that a fixed-batch export then retries with folded
constants and wins. ``convert`` holds what is written to fd 2 while it runs
and replays it only when the conversion fails.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import warnings
from typing import Any, Iterator

import numpy as np
import tensorflow as tf

from tfkit.saving import export_blame, export_fold

OPTION_HINT = (
    "pass select_tf_ops=True (tf.lite.OpsSet.SELECT_TF_OPS: TensorFlow kernels run the ops; the file "
    "then needs a TFLite runtime with the Flex delegate, and verify=False where the local "
    "tf.lite.Interpreter has none)"
)
RANDOM_HINT = (
    "That layer draws random numbers at inference: export with a fixed batch size "
    "(input_signature=[tf.TensorSpec((N, ...), dtype)]) so the draws from the saved generator state are "
    "folded into constants, or "
)


def convert(
    model: Any, module: Any, concrete: Any, specs: Any, select_tf_ops: bool = False, optimizations: Any = None
) -> bytes:
    """The .tflite bytes for ``concrete``; ValueError naming the ops and layers TFLite cannot run.

    The converter's native output (fd 2) is shown only if the conversion fails.
    """
    with _native_stderr_shown_on_failure():
        return _convert_or_refuse(model, module, concrete, specs, select_tf_ops, optimizations)


@contextlib.contextmanager
def _native_stderr_shown_on_failure() -> Iterator[None]:
    """Send file descriptor 2 to a temporary file while the block runs; copy it back there if the block raises.

    fd 2 is the process's: what other threads write there meanwhile is held (and dropped on success) too.
    """
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no fd 2 (an embedding host): nothing to hold
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        except BaseException:
            _restore(saved)
            held.seek(0)
            _replay(held.read())
            raise
        else:
            _restore(saved)
        finally:
            os.close(saved)


def _restore(saved: int) -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    os.dup2(saved, 2)


def _replay(output: bytes) -> None:
    while output:
        output = output[os.write(2, output) :]


def _convert_or_refuse(
    model: Any, module: Any, concrete: Any, specs: Any, select_tf_ops: bool, optimizations: Any
) -> bytes:
    try:
        return _convert(model, module, concrete, select_tf_ops, optimizations)
    except _SelectOps as refused:
        if export_blame.is_random(refused.ops) and export_fold.is_static(specs):
            try:
                return _convert(model, *export_fold.fold_constants(concrete, specs), False, optimizations)
            except _SelectOps:
                pass
        found = export_blame.blame(concrete, refused.ops, model)
        hint = (RANDOM_HINT if export_blame.is_random(refused.ops) else "To export it, ") + OPTION_HINT
        raise ValueError(
            f"format='tflite': model '{model.name}' uses TensorFlow ops that TFLite has no builtin kernel for: "
            f"{export_blame.describe(found)}. {hint}; nothing was written."
        ) from None


class _SelectOps(Exception):
    def __init__(self, ops: list[str]) -> None:
        super().__init__(", ".join(ops))
        self.ops = ops


def _convert(model: Any, module: Any, concrete: Any, select_tf_ops: bool, optimizations: Any) -> bytes:
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], module)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
    if select_tf_ops:
        converter.target_spec.supported_ops.append(tf.lite.OpsSet.SELECT_TF_OPS)
        converter._experimental_lower_tensor_list_ops = False
    if optimizations:
        converter.optimizations = list(optimizations)
    try:
        return converter.convert()
    except Exception as error:  # ConverterError, or anything the MLIR passes raise
        text = str(error)
        match = re.search(r"TF Select ops: ([\w, ]+)", text)
        if match and not select_tf_ops:
            raise _SelectOps([op.strip() for op in match.group(1).split(",") if op.strip()]) from None
        if "TensorListReserve" in text and "static" in text and not select_tf_ops:
            found = export_blame.blame(concrete, ["TensorListReserve"], model)
            raise ValueError(
                f"format='tflite': {export_blame.describe(found)}: a recurrent loop over a dynamic batch needs "
                f"TensorFlow's TensorList ops, which TFLite runs only at a static shape. To export it, pass a fixed "
                f"batch size (input_signature=[tf.TensorSpec((N, ...), dtype)]), build the layer with unroll=True, "
                f"or {OPTION_HINT}; nothing was written."
            ) from None
        tail = "\n".join(line for line in text.splitlines() if "error" in line.lower())[-1500:] or text[-1500:]
        raise ValueError(
            f"format='tflite': the TFLite converter failed for model '{model.name}'; nothing was "
            f"written. Converter said:\n{tail}"
        ) from error


def run(path: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run the .tflite file at ``path`` on ``inputs`` (by input name), resized to their batch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tf.lite.Interpreter's deprecation notice, once per process anyway
        interpreter = tf.lite.Interpreter(model_path=path)
    runner = interpreter.get_signature_runner()
    inputs = {k: v.astype(bytes) if v.dtype.kind == "U" else v for k, v in inputs.items()}
    return {name: np.asarray(value) for name, value in runner(**inputs).items()}
