"""``model.export(path, format=...)``: SavedModel, ONNX or TFLite, checked against ``predict``.

    model.export("export/models/mnist/1")                        # SavedModel for TensorFlow Serving
    model.export("mnist.onnx", format="onnx")                    # tf2onnx + onnxruntime (the 'onnx' extra)
    model.export("mnist.tflite", format="tflite")                # TensorFlow's converter and interpreter

ONNX and TFLite files are traced in inference mode with every random
layer's generator state frozen (``freeze_random_state``): Dropout and
GaussianNoise are the identity, and layers that still draw (the guide VAE's
Sampling) reuse the saved state without variable writes. The file is
written beside the target, run on a seeded batch of two shaped by the input
signature, compared with ``predict`` (rtol 1e-4, atol 1e-5) and only then
renamed into place: a failed export leaves no partial file and keeps an
existing one. The batch dimension stays dynamic in both formats. SavedModel
folders get the same check with ``verify=True`` (``export.export_saved_model``).
"""

from __future__ import annotations

import os
from typing import Any

from tfkit.files import atomic
from tfkit.saving import export, export_blame, export_check

FORMATS = ("tf_saved_model", "onnx", "tflite")
_ALIASES = {"litert": "tflite", "saved_model": "tf_saved_model"}
_OPTIONS = {"onnx": {"opset_version"}, "tflite": {"select_tf_ops", "optimizations"}}


def check_format(format: str) -> str:
    """The canonical format name; ValueError listing the valid ones."""
    name = _ALIASES.get(format, format) if isinstance(format, str) else format
    if name not in FORMATS:
        raise ValueError(f"Unrecognized export format={format!r}. Supported formats are: {list(FORMATS)} "
                         f"('litert' is accepted for 'tflite').")
    return name


def export_file(model: Any, filepath: str, format: str, input_signature: Any = None, verify: bool = True,
                overwrite: bool = True, **options: Any) -> str:
    """Write ``model`` as one .onnx or .tflite file at ``filepath``; returns the path.

    Options: ``opset_version`` (onnx), ``select_tf_ops`` and ``optimizations``
    (tflite). ``verify=False`` skips the comparison with ``predict``.
    """
    format = check_format(format)
    if format not in _OPTIONS:
        raise ValueError(f"export_file writes 'onnx' or 'tflite' files; use export_saved_model for {format!r}")
    unknown = set(options) - _OPTIONS.get(format, set())
    if unknown:
        raise TypeError(f"export(format={format!r}) got unexpected keyword argument(s) {sorted(unknown)}; "
                        f"it takes {sorted(_OPTIONS[format])}")
    from tfkit.saving import export_onnx, export_tflite

    backend = export_onnx if format == "onnx" else export_tflite
    filepath = os.fspath(filepath)
    atomic.check_target(filepath, overwrite)   # before any work: refuse a folder or overwrite=False early
    specs = (export._user_signature(input_signature) if input_signature is not None
             else export.default_input_signature(model))
    module, concrete = export._build_module(model, specs, jit_compile=False, freeze_random_state=True)
    content = backend.convert(model, module, concrete, specs, **options)
    with atomic.atomic_file(filepath, overwrite) as tmp:
        with open(tmp, "wb") as handle:
            handle.write(content)
        if verify:
            verify_file(model, tmp, format, specs)
    return filepath


def verify_file(model: Any, path: str, format: str, specs: Any, batch_size: int = 2) -> float:
    """Run the written file on a seeded batch and compare it with ``predict``; the largest difference."""
    from tfkit.saving import export_onnx, export_tflite

    batch = export_check.sample_batch(specs, batch_size)
    expected = export_check.reference_outputs(model, batch)
    run = {"onnx": export_onnx.run, "tflite": export_tflite.run, "tf_saved_model": run_saved_model}[format]
    try:
        got = run(path, export_check.feed(specs, batch))
    except Exception as error:
        if "Flex delegate" in str(error):
            raise ValueError(f"format={format!r}: the file uses TF Select ops (select_tf_ops=True), and this "
                             f"TensorFlow's tf.lite.Interpreter has no Flex delegate to run them, so it cannot be "
                             f"checked here; pass verify=False to keep it unchecked, or a fixed batch size in "
                             f"input_signature if the ops are random draws. The exported file was not kept.") from None
        raise ValueError(f"format={format!r}: the written file does not run{export_blame.failing_layer(error, model)} "
                         f"({type(error).__name__}: {str(error)[-800:]}); the exported file was not kept.") from error
    return export_check.compare(format, expected, got)



def run_saved_model(path: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Load the SavedModel folder at ``path`` and call ``serving_default`` with ``inputs`` by name."""
    import tensorflow as tf

    serve = tf.saved_model.load(path).signatures["serving_default"]
    return {name: value.numpy() for name, value in serve(**{k: tf.constant(v) for k, v in inputs.items()}).items()}
