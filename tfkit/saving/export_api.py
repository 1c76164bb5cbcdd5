"""Models for inference: ``export_saved_model`` (TensorFlow Serving) and ``export_model`` (SavedModel, ONNX, TFLite).

    tfkit.saving.export_saved_model(model, "export/models/vae", version=1)   # export/models/vae/1
    tfkit.saving.export_model(model, "vae.onnx", format="onnx")              # checked against predict first

Every export is written atomically; in a multi-worker cluster only the
chief's stays.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from tfkit.files import worker_files
from tfkit.saving import export, export_check, export_formats, one_device


def export_saved_model(
    model: Any,
    filepath: str,
    signatures: dict[str, Any] | None = None,
    input_signature: Any = None,
    jit_compile: bool = False,
    **kwargs: Any,
) -> str:
    """Exports a model as a SavedModel folder for TensorFlow Serving, atomically.

    The SavedModel has a `serving_default` signature (the model called with
    `training=False`) and a `serve` function; it needs no tfkit to run
    (`tf.saved_model.load`). The new folder replaces the old one in one step,
    so TensorFlow Serving never sees a half-written version. In a
    multi-worker cluster every worker calls it and only the chief's export
    stays.

    Args:
        model: The `tfkit.Model` to export.
        filepath: The export folder; with `version`, the model's base
            folder (`version=1` writes `filepath/1`).
        signatures: Optional dict of extra signatures `{name: tf.function
            or ConcreteFunction}` saved beside `serving_default` (a
            `"serving_default"` entry replaces it). Defaults to `None`.
        input_signature: Optional `tf.TensorSpec` (or a list or dict of
            them) for the inputs. Defaults to `None`: the shapes the model
            was built on, with a free batch dimension.
        jit_compile: Whether to trace the serving function with XLA.
            Defaults to `False`.
        **kwargs: `version` (positive int: write a numbered version
            folder), `overwrite` (default `True`), `warmup_inputs` (a batch
            written as TF Serving warmup requests when
            `tensorflow-serving-api` is installed), `freeze_random_state`
            (default `False`: random layers reuse their saved state on every
            call, as converters need) and `verify` (default `False`: load the
            export and compare it with `predict` before publishing it).

    Returns:
        The path of the folder written.

    Raises:
        ValueError: If `version` is not a positive int, the model's inputs
            are unknown, or a verified export disagrees with `predict`.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
        >>> path = tfkit.saving.export_saved_model(model, "export/tiny", version=1)
        >>> path.endswith("1")
        True
        >>> reloaded = tf.saved_model.load(path)
        >>> reloaded.serve(tf.ones((1, 3))).shape
        TensorShape([1, 2])
    """

    strategy = worker_files.strategy_of(model)
    model = one_device.on_one_device(model)  # weights split by a variable_partitioner: a gathered copy
    with worker_files.chief_or_scratch_path(filepath, strategy) as path:
        written = export.export_saved_model(
            model, path, signatures=signatures, input_signature=input_signature, jit_compile=jit_compile, **kwargs
        )
    return os.path.join(os.fspath(filepath), os.path.relpath(written, path)) if written != path else written


def export_model(
    model: Any,
    filepath: str,
    format: str = "tf_saved_model",
    verbose: bool = True,
    input_signature: Any = None,
    **kwargs: Any,
) -> str:
    """Exports a model for inference: a SavedModel folder, or one ONNX or TFLite file.

    `model.export(...)` calls it. Every format is checked against `predict`
    on a seeded batch before it is published (`verify=False` skips the
    check), and written atomically. In a multi-worker cluster every worker
    calls it and only the chief's file stays (the check is off there).

    Args:
        model: The `tfkit.Model` to export.
        filepath: The folder (SavedModel) or file path to write.
        format: `"tf_saved_model"` (takes `export_saved_model`'s
            arguments), `"onnx"` or `"tflite"` (alias `"litert"`).
            Defaults to `"tf_saved_model"`.
        verbose: Whether to print a line saying what was written and whether
            it agrees with `predict`. Defaults to `True`.
        input_signature: Optional `tf.TensorSpec` (or a list of them) for
            the inputs. Defaults to `None` (the model's input shapes).
        **kwargs: Format options: `verify` (default `True`) and `overwrite`
            for every format; `jit_compile`, `signatures`, `version`,
            `warmup_inputs` and `freeze_random_state` for
            `"tf_saved_model"`; `opset_version` for `"onnx"`;
            `select_tf_ops` and `optimizations` for `"tflite"`.

    Returns:
        The path written.

    Raises:
        ValueError: For an unknown format, unknown inputs, or an export that
            disagrees with `predict`.
        TypeError: For an option the format does not take.

    Example:
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)], name="tiny")
        >>> path = tfkit.saving.export_model(model, "exported")
        Exported model 'tiny' as tf_saved_model to exported (agrees with predict)
    """

    format = export_formats.check_format(format)
    # In a multi-worker cluster predict sees each worker's share of a batch, so the check is off there.
    kwargs.setdefault("verify", worker_files.cluster_task(worker_files.strategy_of(model))[0] is None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", export_check.UncheckedExportWarning)
        if format == "tf_saved_model":
            written = export_saved_model(model, filepath, input_signature=input_signature, **kwargs)
        else:
            with worker_files.chief_or_scratch_path(filepath, worker_files.strategy_of(model)) as path:
                export_formats.export_file(model, path, format, input_signature=input_signature, **kwargs)
            written = os.fspath(filepath)
    for record in caught:  # passed on as they came; an unchecked export is not reported as agreeing
        warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)
    checked = kwargs["verify"] and not any(issubclass(r.category, export_check.UncheckedExportWarning) for r in caught)
    if verbose:
        print(f"Exported model '{model.name}' as {format} to {written}" + (" (agrees with predict)" if checked else ""))
    return written
