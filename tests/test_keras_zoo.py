"""The zoo: every kind of model in ``keras_zoo``, saved by Keras 3 and loaded by tfkit, and the other way round.

Each case is built once with each framework from the same builder; the saving
side gets random weights (and its preprocessing layers adapted, its compiled
models trained a step), writes ``.keras``, and the other framework loads the
file: predictions must equal the saver's. A compiled model must then train on
from the file exactly as the original trains on (optimizer state included).
Keras runs in this process on the TensorFlow backend; tfkit never imports it.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from keras_zoo import CASES, custom_objects, randomize

import tfkit

keras = pytest.importorskip("keras")
FRAMEWORKS = {"keras": keras, "tfkit": tfkit}


def _tensors(x):
    return tf.nest.map_structure(tf.constant, x)


def _outputs(model, x) -> list[np.ndarray]:
    return [np.asarray(t, dtype=np.float64) for t in tf.nest.flatten(model(_tensors(x), training=False))]


def _targets(model, x, seed: int) -> np.ndarray:
    shape = _outputs(model, x)[0].shape
    rng = np.random.default_rng(seed)
    if model.loss == "categorical_crossentropy":
        return np.eye(shape[-1], dtype="float32")[rng.integers(0, shape[-1], size=shape[0])]
    return rng.normal(size=shape).astype("float32")


def _saved(case, saver, path, seed: int = 0):
    """The saver's model, prepared as the case says and saved to ``path``; with its inputs and targets."""
    k = FRAMEWORKS[saver]
    model = case.build(k)
    if case.adapt is not None:
        case.adapt(model)
    randomize(model, seed)
    x = case.inputs(np.random.default_rng(seed))
    y = None
    if case.compiled:
        y = _targets(model, x, seed)
        model.fit(x, y, batch_size=len(y), epochs=1, shuffle=False, verbose=0)
    model.save(path)
    return model, x, y


def _load(loader, path, case):
    objects = custom_objects(FRAMEWORKS[loader]) if case.custom else None
    if loader == "keras":
        return keras.saving.load_model(path, custom_objects=objects)
    return tfkit.load_model(path, custom_objects=objects)


@pytest.fixture(scope="module", autouse=True)
def _registered():
    for k in FRAMEWORKS.values():  # the zoo's classes exist in both registries before any file is read
        custom_objects(k)


@pytest.mark.parametrize("direction", ["keras_to_tfkit", "tfkit_to_keras"])
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_model_saved_by_one_framework_loads_in_the_other(case, direction, tmp_path):
    if direction not in case.directions:
        pytest.skip(f"{case.name}: {direction} is not a direction of this case ({'; '.join(case.notes)})")
    saver, loader = direction.split("_to_")
    path = tmp_path / f"{case.name}.keras"
    original, x, y = _saved(case, saver, path)
    loaded = _load(loader, path, case)
    expected = _outputs(original, x)
    got = _outputs(loaded, x)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=case.tolerance, atol=case.tolerance)
    if case.compiled:  # the optimizer's state came along: one more epoch moves both models the same way
        assert loaded.optimizer is not None
        for model in (original, loaded):
            model.fit(x, y, batch_size=len(y), epochs=1, shuffle=False, verbose=0)
        for g, e in zip(_outputs(loaded, x), _outputs(original, x)):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_the_zoo_covers_every_kind_the_issue_names():
    names = {case.name for case in CASES}
    assert len(CASES) >= 30
    assert {
        "operations",
        "custom_layers",
        "lambda_named",
        "normalization_adapted",
        "text_to_lstm",
        "quantized_int8",
        "mobilenet_v3_small",
        "compiled_adam",
        "nested",
    } <= names
