"""SavedModel export for TensorFlow Serving: plain TensorFlow, no tfkit needed to load it.

    model.export("export/models/vae/1")
    tfkit.saving.export_saved_model(model, "export/models/vae", version=2)   # -> export/models/vae/2
    tf.saved_model.load("export/models/vae/1").signatures["serving_default"](inputs=x)

What is saved is a bare ``tf.Module`` holding the variables that the model's
inference call reads and ``tf.function``s traced with ``training=False``:
``serve`` (Keras 3's endpoint: the model's input and output structures) and the
function behind the signature; tfkit's classes are not part of the SavedModel. The
``serving_default`` signature takes the model's inputs by name (functional
models: their ``Input`` names; subclassed models: ``inputs``), with batch
dimension ``None`` and the inputs' dtypes, and returns a dict of named
outputs (output layer names or dict keys; ``output_0``, ``output_1``, ...
otherwise). The folder is written beside the target and renamed into place,
so TensorFlow Serving never sees a half-written version.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from typing import Any, Iterator, Sequence

import numpy as np
import tensorflow as tf

from tfkit.engine import autograph
from tfkit.files import atomic
from tfkit.random import SeedGenerator, default_seed_generator
from tfkit.saving import export_check
from tfkit.saving.export_signature import output_names, user_signature

WARMUP_FILE = os.path.join("assets.extra", "tf_serving_warmup_requests")


def default_input_signature(model: Any) -> Any:
    """The model's input structure as named ``tf.TensorSpec``s (batch dimension None)."""
    return model.default_input_signature()


class _Serving(tf.Module):
    """What the SavedModel holds: the variables the inference call reads, and ``serve``."""


@contextlib.contextmanager
def _frozen_generators(model: Any) -> Iterator[None]:
    """While tracing, every SeedGenerator reads its state without advancing it."""
    generators = [m for m in model.submodules if isinstance(m, SeedGenerator)] + [default_seed_generator()]
    for generator in generators:
        object.__setattr__(generator, "next", generator.state.read_value)
    try:
        yield
    finally:
        for generator in generators:
            object.__delattr__(generator, "next")


def _resources(model: Any) -> list[Any]:
    """TensorFlow resources (hash tables) held by the model's layers: the export must carry them."""
    found, seen = [], set()
    for module in [model, *model.submodules]:
        for value in vars(module).values():
            if isinstance(value, tf.saved_model.experimental.TrackableResource) and id(value) not in seen:
                seen.add(id(value))
                found.append(value)
    return found


def build_module(model: Any, specs: Any, jit_compile: bool, freeze_random_state: bool) -> tuple[_Serving, Any]:
    flat_specs = tf.nest.flatten(specs)
    names: dict[str, list[str]] = {}

    def serve(*flat_inputs: tf.Tensor) -> dict[str, tf.Tensor]:
        inputs = tf.nest.pack_sequence_as(specs, list(flat_inputs))
        outputs = model(inputs, training=False)
        if "out" not in names:
            names["out"] = output_names(model, outputs)
        return dict(zip(names["out"], tf.nest.flatten(outputs)))

    # traced as written, AutoGraph on for the user's layers (a Python `if` on a tensor in a call exports)
    function = tf.function(
        autograph.written_in_tensorflow(serve), input_signature=flat_specs, jit_compile=bool(jit_compile)
    )
    with _frozen_generators(model) if freeze_random_state else contextlib.nullcontext():
        concrete = function.get_concrete_function()
    model._clear_losses()  # add_loss values from tracing belong to the traced graph only
    module = _Serving()
    module.model_variables = list(concrete.variables)
    module.model_resources = _resources(model)  # lookup tables of preprocessing layers
    module.serving_fn = function  # flat named inputs -> dict of named outputs: the serving_default signature
    return module, concrete


def add_serve_endpoint(module: _Serving, model: Any, specs: Any, jit_compile: bool, freeze_random_state: bool) -> None:
    """``module.serve``: Keras 3's endpoint, taking the model's input structure and returning its output structure.

    ``tf.saved_model.load(path).serve(x)`` gives what ``model(x, training=False)`` gives (a tensor for one
    output), as a Keras 3 export does; the ``serving_default`` signature keeps named inputs and outputs.
    """
    function = tf.function(
        autograph.written_in_tensorflow(lambda inputs: model(inputs, training=False)),
        input_signature=[specs],
        jit_compile=bool(jit_compile),
    )
    with _frozen_generators(model) if freeze_random_state else contextlib.nullcontext():
        function.get_concrete_function()
    model._clear_losses()
    module.serve = function


def export_saved_model(
    model: Any,
    filepath: str,
    signatures: dict[str, Any] | None = None,
    input_signature: Any = None,
    jit_compile: bool = False,
    version: int | None = None,
    overwrite: bool = True,
    warmup_inputs: Any = None,
    freeze_random_state: bool = False,
    verify: bool = False,
) -> str:
    """Write ``model`` as a SavedModel for TensorFlow Serving; returns the folder written.

    Args:
        filepath: the export folder, or with ``version`` the model's base folder
            (``export/models/vae`` + ``version=1`` writes ``export/models/vae/1``).
        signatures: extra signatures ``{name: tf.function or ConcreteFunction}``
            saved beside ``serving_default`` (a ``"serving_default"`` entry replaces it).
        input_signature: ``tf.TensorSpec``s for the model's input (a spec, a
            list/dict of specs, or a one-element list holding either); the
            default comes from the model's inputs.
        jit_compile: trace ``serve`` with XLA.
        warmup_inputs: a batch of example inputs; written as TF Serving warmup
            requests (``assets.extra/tf_serving_warmup_requests``) when the
            optional ``tensorflow-serving-api`` package is installed.
        freeze_random_state: by default random layers (the VAE's sampling) draw
            new numbers on every call, advancing their generator state in the
            SavedModel as ``predict`` does. With True every call reuses the
            saved state: deterministic answers and no variable writes, which
            converters that freeze variables (tf2onnx) need; with a fixed batch
            size in ``input_signature`` they fold the draws into constants.
        verify: load the written folder before it is published and compare
            ``serving_default`` with ``predict`` on a seeded batch of 2
            (``tfkit.saving.export_formats``); a mismatch is a ValueError and
            the previous folder stays.
    """
    filepath = os.fspath(filepath)
    if version is not None:
        if isinstance(version, bool) or not isinstance(version, (int, np.integer)) or version < 1:
            raise ValueError(f"version must be a positive int (TensorFlow Serving's version folder), got {version!r}")
        filepath = os.path.join(filepath, str(int(version)))
    _check_replaceable(filepath)
    specs = user_signature(input_signature) if input_signature is not None else default_input_signature(model)
    module, concrete = build_module(model, specs, jit_compile, freeze_random_state)
    add_serve_endpoint(module, model, specs, jit_compile, freeze_random_state)
    saved_signatures: dict[str, Any] = {"serving_default": concrete}
    for name, function in (signatures or {}).items():
        if isinstance(function, tf.types.experimental.GenericFunction):
            function = function.get_concrete_function()
        saved_signatures[name] = function
        module.signature_variables = [*getattr(module, "signature_variables", []), *function.variables]
    with atomic.atomic_directory(filepath, overwrite) as tmp:
        tf.saved_model.save(module, tmp, signatures=saved_signatures)
        if warmup_inputs is not None:
            write_warmup_requests(
                tmp,
                specs,
                warmup_inputs,
                model_name=os.path.basename(os.path.dirname(filepath)),
                other_signatures=[name for name in saved_signatures if name != "serving_default"],
            )
        if verify:
            export_check.verify_file(model, tmp, "tf_saved_model", specs)
    return filepath


def write_warmup_requests(
    export_dir: str,
    specs: Any,
    inputs: Any,
    model_name: str = "model",
    signature_name: str = "serving_default",
    other_signatures: Sequence[str] = (),
) -> str | None:
    """Write TF Serving warmup records: ``inputs`` for ``signature_name``, zeros for each other signature.

    One ``PredictRequest`` per signature, so TensorFlow Serving runs every
    signature once when it loads the version. ``other_signatures`` get a batch
    of zeros of the same batch size, shaped by their own input specs. Returns
    None (with a warning) when the optional ``tensorflow-serving-api`` is missing.
    """
    try:
        from tensorflow_serving.apis import model_pb2, predict_pb2, prediction_log_pb2
    except ImportError:
        warnings.warn(
            "No TF Serving warmup requests were written: the optional package tensorflow-serving-api is not "
            "installed (pip install tensorflow-serving-api, or tfkit's 'serving' extra).",
            stacklevel=3,
        )
        return None
    flat_specs = tf.nest.flatten(specs)
    try:
        flat_inputs = tf.nest.flatten(tf.nest.map_structure(lambda _s, x: x, specs, inputs))
    except (ValueError, TypeError) as error:
        raise ValueError(f"warmup_inputs must match the input signature {specs}: {error}") from None
    batch = int(np.asarray(flat_inputs[0]).shape[0]) if flat_inputs and np.ndim(flat_inputs[0]) else 1
    requests = [
        (signature_name, {spec.name: (np.asarray(value), spec.dtype) for spec, value in zip(flat_specs, flat_inputs)})
    ]
    if other_signatures:
        loaded = tf.saved_model.load(export_dir)  # the signatures' input names, as serving sees them
        for name in other_signatures:
            named = loaded.signatures[name].structured_input_signature[1]
            requests.append(
                (
                    name,
                    {
                        key: (
                            np.zeros(
                                [
                                    batch if d is None and i == 0 else (d or 1)
                                    for i, d in enumerate(spec.shape.as_list())
                                ],
                                spec.dtype.as_numpy_dtype,
                            ),
                            spec.dtype,
                        )
                        for key, spec in named.items()
                    },
                )
            )
    path = os.path.join(export_dir, WARMUP_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tf.io.TFRecordWriter(path) as writer:
        for name, values in requests:
            request = predict_pb2.PredictRequest(
                model_spec=model_pb2.ModelSpec(name=model_name or "model", signature_name=name)
            )
            for key, (value, dtype) in values.items():
                request.inputs[key].CopyFrom(tf.make_tensor_proto(value, dtype=dtype))
            log = prediction_log_pb2.PredictionLog(predict_log=prediction_log_pb2.PredictLog(request=request))
            writer.write(log.SerializeToString())
    return path


# What a SavedModel folder holds: an export may replace a folder with these entries only.
_SAVED_MODEL_ENTRIES = {"saved_model.pb", "saved_model.pbtxt", "variables", "assets", "assets.extra", "fingerprint.pb"}


def _check_replaceable(folder: str) -> None:
    """Refuse to replace a folder that holds anything but an earlier export (version folders, user files)."""
    atomic.recover(folder)
    if not os.path.isdir(folder):
        return
    others = sorted(name for name in os.listdir(folder) if name not in _SAVED_MODEL_ENTRIES)
    if others:
        versions = [name for name in others if name.isdigit()]
        hint = (
            f"it is a TensorFlow Serving model folder (versions {versions}): pass version=N to add a version"
            if versions
            else "export to an empty or new folder, or pass version=N to write a version folder in it"
        )
        listing = ", ".join(others[:8]) + (f", ... ({len(others)} entries)" if len(others) > 8 else "")
        raise ValueError(
            f"{folder} already holds {listing}, which an export would replace; nothing was written. "
            f"{hint[0].upper() + hint[1:]}."
        )
