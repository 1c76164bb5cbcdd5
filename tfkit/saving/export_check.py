"""Check a converted model against ``predict`` on a seeded batch shaped by the input signature.

    batch = sample_batch(specs, batch_size=2)                # numpy arrays in the signature's structure
    expected = reference_outputs(model, batch)               # {output name: array}, generator states untouched
    compare("onnx", expected, {"dense_1": onnx_answer})      # ValueError naming the format on a mismatch
    verify_file(model, "m.onnx", "onnx", specs)              # all three on a written file

Random layers whose inference call still draws (the guide VAE's Sampling)
are compared from the same generator state: ``predict`` runs, then every
``SeedGenerator`` is put back, so the check neither advances the model's
random state nor depends on it. Tolerances: ``rtol=1e-4``, ``atol=1e-5``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.random import SeedGenerator, default_seed_generator
from tfkit.saving import export_blame, export_onnx, export_tflite
from tfkit.saving.export_signature import output_names

RTOL = 1e-4
ATOL = 1e-5
_WORDS = np.array(["the", "cat", "a", "b", "sat", ""])


def _sample(spec: tf.TensorSpec, batch_size: int, rng: np.random.RandomState) -> np.ndarray:
    shape = [d if d is not None else batch_size if i == 0 else 4 for i, d in enumerate(spec.shape.as_list())]
    dtype = tf.as_dtype(spec.dtype)
    if dtype == tf.string:
        return _WORDS[rng.randint(0, len(_WORDS), size=shape)]
    if dtype == tf.bool:
        return rng.rand(*shape) > 0.5
    if dtype.is_integer:
        return rng.randint(0, 10, size=shape).astype(dtype.as_numpy_dtype)
    return rng.normal(size=shape).astype(dtype.as_numpy_dtype)


def sample_batch(specs: Any, batch_size: int = 2, seed: int = 0) -> Any:
    """A seeded batch for ``specs``: normal floats, ints in [0, 10), short words for strings."""
    rng = np.random.RandomState(seed)
    return tf.nest.map_structure(lambda s: _sample(s, batch_size, rng), specs)


def _generators(model: Any) -> list[Any]:
    return [m for m in model.submodules if isinstance(m, SeedGenerator)] + [default_seed_generator()]


def reference_outputs(model: Any, batch: Any) -> dict[str, np.ndarray]:
    """``model.predict(batch)`` by export output name, with every SeedGenerator's state restored after."""
    generators = _generators(model)
    states = [g.state.numpy() for g in generators]
    try:
        batch_size = len(tf.nest.flatten(batch)[0])
        outputs = model.predict(batch, batch_size=batch_size, verbose=0)
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
        raise ValueError(f"The {format} export's outputs {sorted(got)} are not predict's {sorted(expected)}; "
                         f"the exported file was not kept.")
    worst = 0.0
    for name, want in expected.items():
        have = np.asarray(got[name])
        if have.shape != want.shape:
            raise ValueError(f"The {format} export's output '{name}' has shape {have.shape}, predict gives "
                             f"{want.shape}; the exported file was not kept.")
        if want.dtype.kind in "fc":
            bad = ~np.isclose(have, want, rtol=RTOL, atol=ATOL)
            diff = float(np.max(np.abs(have.astype(np.float64) - want), initial=0.0))
        else:
            bad = have != want
            diff = float(bad.any())
        if bad.any():
            raise ValueError(f"The {format} export disagrees with predict on output '{name}': max abs difference "
                             f"{diff:.3g} (allowed rtol={RTOL}, atol={ATOL}) on a seeded batch; the exported file "
                             f"was not kept.")
        worst = max(worst, diff)
    return worst


def verify_file(model: Any, path: str, format: str, specs: Any, batch_size: int = 2) -> float:
    """Run the written file on a seeded batch and compare it with ``predict``; the largest difference."""
    batch = sample_batch(specs, batch_size)
    expected = reference_outputs(model, batch)
    run = {"onnx": export_onnx.run, "tflite": export_tflite.run, "tf_saved_model": run_saved_model}[format]
    try:
        got = run(path, feed(specs, batch))
    except Exception as error:
        if "Flex delegate" in str(error):
            raise ValueError(f"format={format!r}: the file uses TF Select ops (select_tf_ops=True), and this "
                             f"TensorFlow's tf.lite.Interpreter has no Flex delegate to run them, so it cannot be "
                             f"checked here; pass verify=False to keep it unchecked, or a fixed batch size in "
                             f"input_signature if the ops are random draws. The exported file was not kept.") from None
        raise ValueError(f"format={format!r}: the written file does not run{export_blame.failing_layer(error, model)} "
                         f"({type(error).__name__}: {str(error)[-800:]}); the exported file was not kept.") from error
    return compare(format, expected, got)



def run_saved_model(path: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Load the SavedModel folder at ``path`` and call ``serving_default`` with ``inputs`` by name."""
    serve = tf.saved_model.load(path).signatures["serving_default"]
    return {name: value.numpy() for name, value in serve(**{k: tf.constant(v) for k, v in inputs.items()}).items()}
