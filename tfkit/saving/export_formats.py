"""``model.export(path, format=...)``: SavedModel, ONNX or TFLite, checked against ``predict``.

    model.export("export/models/mnist/1")                        # SavedModel for TensorFlow Serving
    model.export("mnist.onnx", format="onnx")                    # tf2onnx + onnxruntime (the 'onnx' extra)
    model.export("mnist.tflite", format="tflite")                # TensorFlow's converter and interpreter

ONNX and TFLite files are traced in inference mode with every random
layer's generator state frozen (``freeze_random_state``): Dropout and
GaussianNoise are the identity, and layers that still draw (the guide VAE's
Sampling) reuse the saved state without variable writes. The file is
written beside the target, run on a seeded batch of two shaped by the input
signature (unknown lengths: the first of 4, 16, 64, 256 the model's graph
builds for, ``export_check.sample_length``; a warning and no comparison when
none does), compared with ``predict`` (rtol 1e-4, atol 1e-5) and only then
renamed into place: a failed export leaves no partial file and keeps an
existing one. The batch dimension stays dynamic in both formats. SavedModel
folders get the same check with ``verify=True`` (``export.export_saved_model``).
"""

from __future__ import annotations

import os
from typing import Any

from tfkit.files import atomic
from tfkit.layers import rnn_loop
from tfkit.saving import export, export_check, export_onnx, export_tflite
from tfkit.saving.export_signature import user_signature

FORMATS = ("tf_saved_model", "onnx", "tflite")
_ALIASES = {"litert": "tflite", "saved_model": "tf_saved_model"}
_OPTIONS = {"onnx": {"opset_version"}, "tflite": {"select_tf_ops", "optimizations"}}


def check_format(format: str) -> str:
    """The canonical format name; ValueError listing the valid ones."""
    name = _ALIASES.get(format, format) if isinstance(format, str) else format
    if name not in FORMATS:
        raise ValueError(
            f"Unrecognized export format={format!r}. Supported formats are: {list(FORMATS)} "
            f"('litert' is accepted for 'tflite')."
        )
    return name


def export_file(
    model: Any,
    filepath: str,
    format: str,
    input_signature: Any = None,
    verify: bool = True,
    overwrite: bool = True,
    **options: Any,
) -> str:
    """Write ``model`` as one .onnx or .tflite file at ``filepath``; returns the path.

    Options: ``opset_version`` (onnx), ``select_tf_ops`` and ``optimizations``
    (tflite). ``verify=False`` skips the comparison with ``predict``.
    """
    format = check_format(format)
    if format not in _OPTIONS:
        raise ValueError(f"export_file writes 'onnx' or 'tflite' files; use export_saved_model for {format!r}")
    unknown = set(options) - _OPTIONS.get(format, set())
    if unknown:
        raise TypeError(
            f"export(format={format!r}) got unexpected keyword argument(s) {sorted(unknown)}; "
            f"it takes {sorted(_OPTIONS[format])}"
        )
    backend = export_onnx if format == "onnx" else export_tflite
    filepath = os.fspath(filepath)
    atomic.check_target(filepath, overwrite)  # before any work: refuse a folder or overwrite=False early
    specs = user_signature(input_signature) if input_signature is not None else model.default_input_signature()
    with rnn_loop.one_step_per_iteration():  # tf2onnx converts a loop of one timestep per iteration only
        module, concrete = export.build_module(model, specs, jit_compile=False, freeze_random_state=True)
    content = backend.convert(model, module, concrete, specs, **options)
    with atomic.atomic_file(filepath, overwrite) as tmp:
        with open(tmp, "wb") as handle:
            handle.write(content)
        if verify:
            export_check.verify_file(model, tmp, format, specs)
    return filepath
