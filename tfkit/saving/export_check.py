"""Check a converted model against ``predict`` on a seeded batch shaped by the input signature.

    batch = sample_batch(specs, batch_size=2)                # numpy arrays in the signature's structure
    expected = reference_outputs(model, batch)               # {output name: array}, generator states untouched
    compare("onnx", expected, {"dense_1": onnx_answer})      # ValueError naming the format on a mismatch
    verify_file(model, "m.onnx", "onnx", specs)              # all three on a written file

Random layers whose inference call still draws (the guide VAE's Sampling)
are compared from the same generator state: ``predict`` runs, then every
``SeedGenerator`` is put back, so the check neither advances the model's
random state nor depends on it. Tolerances: ``rtol=1e-4``, ``atol=1e-5``.

Unknown non-batch dimensions (a variable sequence length, free image sizes)
get a length the model accepts: the first of ``SAMPLE_LENGTHS`` (4, 16, 64,
256) at which the model's inference graph can be built for that static
shape (``sample_length``). A stack of strided convolutions refuses 4 ("Negative
dimension size") but takes 64. When no length builds, the check warns naming
the inputs and the written file is kept unchecked: the export's own trace,
with the dimensions unknown, has already succeeded.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.engine import autograph
from tfkit.random import SeedGenerator, default_seed_generator
from tfkit.saving import export_blame, export_onnx, export_tflite
from tfkit.saving.export_signature import output_names
from tfkit.training.trainer import Trainer

RTOL = 1e-4
ATOL = 1e-5
_WORDS = np.array(["the", "cat", "a", "b", "sat", ""])
SAMPLE_LENGTHS = (4, 16, 64, 256)  # tried in order for every unknown non-batch dimension


def _sample(spec: tf.TensorSpec, batch_size: int, rng: np.random.RandomState, length: int = 4) -> np.ndarray:
    shape = [d if d is not None else batch_size if i == 0 else length for i, d in enumerate(spec.shape.as_list())]
    dtype = tf.as_dtype(spec.dtype)
    if dtype == tf.string:
        return _WORDS[rng.randint(0, len(_WORDS), size=shape)]
    if dtype == tf.bool:
        return rng.rand(*shape) > 0.5
    if dtype.is_integer:
        return rng.randint(0, 10, size=shape).astype(dtype.as_numpy_dtype)
    return rng.normal(size=shape).astype(dtype.as_numpy_dtype)


def sample_batch(specs: Any, batch_size: int = 2, seed: int = 0, length: int = 4) -> Any:
    """A seeded batch for ``specs``: normal floats, ints in [0, 10), short words for strings.

    Every unknown dimension but the first (the batch) is ``length`` long.
    """
    rng = np.random.RandomState(seed)
    return tf.nest.map_structure(lambda s: _sample(s, batch_size, rng, length), specs)


def variable_inputs(specs: Any) -> list[str]:
    """The names of the inputs with an unknown dimension besides the batch one."""
    return [
        s.name or f"inputs_{i}"
        for i, s in enumerate(tf.nest.flatten(specs))
        if s.shape.rank is not None and None in s.shape.as_list()[1:]
    ]


def _builds(model: Any, specs: Any, batch: Any) -> Exception | None:
    """None if ``model(batch, training=False)`` traces for the batch's static shapes, else the error."""
    flat = [
        tf.TensorSpec(np.shape(x), s.dtype, name=s.name) for s, x in zip(tf.nest.flatten(specs), tf.nest.flatten(batch))
    ]
    function = tf.function(
        autograph.written_in_tensorflow(lambda *xs: model(tf.nest.pack_sequence_as(specs, list(xs)), training=False)),
        input_signature=flat,
    )
    try:
        function.get_concrete_function()
        return None
    except Exception as error:  # noqa: BLE001 - any refusal of this static shape means: try a longer sample
        return error
    finally:
        model._clear_losses()  # add_loss values from tracing belong to the traced graph only


def sample_length(
    model: Any, specs: Any, batch_size: int = 2, lengths: Sequence[int] = SAMPLE_LENGTHS
) -> tuple[int | None, Exception | None]:
    """The first of ``lengths`` for which the model's graph builds with every unknown non-batch dimension
    that long, and None; ``(None, last error)`` when none builds. ``(lengths[0], None)`` without such dimensions.

    Only the graph is built (no op runs), so a model that runs but fails at any length still fails in predict.
    """
    if not variable_inputs(specs):
        return lengths[0], None
    error: Exception | None = None
    for length in lengths:
        error = _builds(model, specs, sample_batch(specs, batch_size, length=length))
        if error is None:
            return length, None
    return None, error


def _generators(model: Any) -> list[Any]:
    return [m for m in model.submodules if isinstance(m, SeedGenerator)] + [default_seed_generator()]


def reference_outputs(model: Any, batch: Any) -> dict[str, np.ndarray]:
    """``predict`` of the model's inputs (``batch``), by export output name, every SeedGenerator's state restored after.

    The engine's ``predict`` (``Trainer.predict``), not a subclass's: the export serves the model's call on its
    inputs, while a task's own ``predict`` (``tfkit.hub``'s) preprocesses raw text or images first.
    """
    generators = _generators(model)
    states = [g.state.numpy() for g in generators]
    try:
        batch_size = len(tf.nest.flatten(batch)[0])
        outputs = Trainer.predict(model, batch, batch_size=batch_size, verbose=0)
    finally:
        for generator, state in zip(generators, states):
            generator.state.assign(state)
    flat = [np.asarray(o) for o in tf.nest.flatten(outputs)]
    return dict(zip(output_names(model, outputs), flat))


def feed(specs: Any, batch: Any) -> dict[str, np.ndarray]:
    """The batch by input name (the specs' names), as converted models take it."""
    return {s.name: np.asarray(x) for s, x in zip(tf.nest.flatten(specs), tf.nest.flatten(batch))}


def compare(format: str, expected: dict[str, np.ndarray], got: dict[str, Any]) -> float:
    """Largest absolute difference; ValueError naming ``format`` if outputs are missing or disagree."""
    if set(expected) != set(got):
        raise ValueError(
            f"The {format} export's outputs {sorted(got)} are not predict's {sorted(expected)}; "
            f"the exported file was not kept."
        )
    worst = 0.0
    for name, want in expected.items():
        have = np.asarray(got[name])
        if have.shape != want.shape:
            raise ValueError(
                f"The {format} export's output '{name}' has shape {have.shape}, predict gives "
                f"{want.shape}; the exported file was not kept."
            )
        if want.dtype.kind in "fc":
            bad = ~np.isclose(have, want, rtol=RTOL, atol=ATOL)
            diff = float(np.max(np.abs(have.astype(np.float64) - want), initial=0.0))
        else:
            bad = have != want
            diff = float(bad.any())
        if bad.any():
            raise ValueError(
                f"The {format} export disagrees with predict on output '{name}': max abs difference "
                f"{diff:.3g} (allowed rtol={RTOL}, atol={ATOL}) on a seeded batch; the exported file "
                f"was not kept."
            )
        worst = max(worst, diff)
    return worst


class UncheckedExportWarning(UserWarning):
    """An export was written without the comparison with ``predict`` (no sample length fits the model)."""


def verify_file(model: Any, path: str, format: str, specs: Any, batch_size: int = 2) -> float | None:
    """Run the written file on a seeded batch and compare it with ``predict``; the largest difference.

    Unknown non-batch dimensions take ``sample_length``'s length. None, with a warning naming the
    inputs, when the model's graph builds for none of ``SAMPLE_LENGTHS``: the file is kept unchecked.
    """
    length, error = sample_length(model, specs, batch_size)
    if length is None:
        names = ", ".join(repr(n) for n in variable_inputs(specs))
        said = str(error).strip().splitlines()[-1].strip() if str(error).strip() else type(error).__name__
        warnings.warn(
            f"format={format!r}: the export was written but not compared with predict: the model's graph "
            f"does not build for input(s) {names} with their unknown dimensions of any sample length in "
            f"{list(SAMPLE_LENGTHS)} (at {SAMPLE_LENGTHS[-1]}: {said[:240]}). Pass an input_signature "
            f"with a length the model takes to check it.",
            UncheckedExportWarning,
            stacklevel=2,
        )
        return None
    batch = sample_batch(specs, batch_size, length=length)
    expected = reference_outputs(model, batch)
    run = {"onnx": export_onnx.run, "tflite": export_tflite.run, "tf_saved_model": run_saved_model}[format]
    try:
        got = run(path, feed(specs, batch))
    except Exception as error:
        if "Flex delegate" in str(error):
            raise ValueError(
                f"format={format!r}: the file uses TF Select ops (select_tf_ops=True), and this "
                f"TensorFlow's tf.lite.Interpreter has no Flex delegate to run them, so it cannot be "
                f"checked here; pass verify=False to keep it unchecked, or a fixed batch size in "
                f"input_signature if the ops are random draws. The exported file was not kept."
            ) from None
        raise ValueError(
            f"format={format!r}: the written file does not run{export_blame.failing_layer(error, model)} "
            f"({type(error).__name__}: {str(error)[-800:]}); the exported file was not kept."
        ) from error
    return compare(format, expected, got)


def run_saved_model(path: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Load the SavedModel folder at ``path`` and call ``serving_default`` with ``inputs`` by name."""
    serve = tf.saved_model.load(path).signatures["serving_default"]
    return {name: value.numpy() for name, value in serve(**{k: tf.constant(v) for k, v in inputs.items()}).items()}
