"""The file zoo: every kind of model tfkit builds goes through every file tfkit writes and comes back the same.

Each case of ``file_zoo_models`` (Sequential, functional, subclassed, functional
subclasses with their own ``train_step``, nested, shared layers, several inputs
and outputs, adapted preprocessing, recurrent, quantized, mixed precision, an
application) is prepared once: built, adapted, given random weights, and when
compiled, trained a step so its optimizer has state. It is then written as
``.keras``, ``.h5``, ``.weights.h5`` and an exported SavedModel, and each file
is read back: predictions equal the original's. A compiled model read from a
model file takes the same next training step as the original (one
``train_on_batch`` on the same batch: the same loss, the same weights after).

Keras 3 cross-checks in a process of its own: it loads tfkit's ``.keras`` files
with equal predictions, and writes its own of the functional subclasses, which
tfkit loads and trains on as Keras does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
import time_limits
from file_zoo_models import CASES, KERAS_SEED, custom_objects, fresh_twin, next_step, outputs, prepare, targets
from test_saving_guide_models import ResNet

import tfkit

FORMATS = ("keras", "h5", "weights.h5", "export")
_BY_NAME = {case.name: case for case in CASES}
_PREPARED: dict[str, dict] = {}


def _custom(case):
    if case.name == "guide_resnet":  # the guide's classes are not registered: the user passes them
        return {"ResNet": ResNet}
    return custom_objects(tfkit) if case.custom else None


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    """``zoo(case)``: the case prepared and written in every format, once per module; with the reference
    outputs and, for a compiled model, the original's own next training step (taken after the files were
    written)."""
    folder = tmp_path_factory.mktemp("file_zoo")

    def get(case):
        if case.name not in _PREPARED:
            model, x, y = prepare(case, tfkit)
            paths = {fmt: str(folder / f"{case.name}.{fmt}") for fmt in FORMATS}
            model.save(paths["keras"])
            model.save(paths["h5"])
            model.save_weights(paths["weights.h5"])
            model.export(paths["export"], verbose=False, verify=False)
            entry = {"model": model, "x": x, "y": y, "paths": paths, "expected": outputs(model, x)}
            if case.compiled:
                entry["test_loss"] = _test_loss(model, x, y)
                entry["step"] = next_step(model, x, y)
            _PREPARED[case.name] = entry
        return _PREPARED[case.name]

    yield get
    _PREPARED.clear()


def _assert_outputs(got, expected, tolerance, what):
    assert len(got) == len(expected), f"{what}: {len(got)} outputs, expected {len(expected)}"
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=tolerance, atol=tolerance, err_msg=what)


def _test_loss(model, x, y):
    """``test_on_batch``'s loss (through the model's own ``test_step`` where it has one)."""
    return float(model.test_on_batch(x, y, return_dict=True)["loss"])


def _assert_same_step(model, entry, what):
    """``test_on_batch``, then one ``train_on_batch`` on the reloaded model: the original's loss, and the loss and
    weights of its next step."""
    assert model.optimizer is not None, f"{what}: reloaded without its optimizer"
    np.testing.assert_allclose(_test_loss(model, entry["x"], entry["y"]), entry["test_loss"], rtol=1e-6)
    loss, weights = next_step(model, entry["x"], entry["y"])
    expected_loss, expected_weights = entry["step"]
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-6, err_msg=f"{what}: loss of the next step")
    assert len(weights) == len(expected_weights)
    for got, expected in zip(weights, expected_weights):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7, err_msg=f"{what}: weights after the step")


def _serve(path, model, x):
    """The exported SavedModel's ``serving_default`` signature on ``x``, its outputs flattened as the model's."""
    signature = tf.saved_model.load(path).signatures["serving_default"]
    names = sorted(signature.structured_input_signature[1])
    if isinstance(x, dict):
        arguments = x
    elif isinstance(x, (list, tuple)):
        arguments = dict(zip(model.input_names, x))
    else:
        assert len(names) == 1
        arguments = {names[0]: x}
    assert sorted(arguments) == names
    result = signature(**{key: tf.constant(value) for key, value in arguments.items()})
    return [np.asarray(result[key], dtype=np.float64) for key in sorted(result)]


@pytest.mark.parametrize("fmt", ["keras", "h5"])
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_model_file_reloads_with_equal_predictions_and_the_same_next_step(case, fmt, zoo):
    entry = zoo(case)
    original = entry["model"]
    loaded = tfkit.load_model(entry["paths"][fmt], custom_objects=_custom(case))
    assert type(loaded).__name__ == type(original).__name__
    if fmt == "h5":  # tfkit's own format keeps the config as it was
        assert json.loads(loaded.to_json()) == json.loads(original.to_json())
    else:  # .keras: operations come back as Keras's (x * 0.5 as ops.multiply), a subclass's layers renamed
        assert [type(layer).__name__ for layer in loaded.layers] == [type(layer).__name__ for layer in original.layers]
    _assert_outputs(outputs(loaded, entry["x"]), entry["expected"], case.tolerance, f"{case.name}.{fmt}")
    if case.compiled:
        _assert_same_step(loaded, entry, f"{case.name}.{fmt}")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_weights_file_loads_into_a_freshly_built_twin(case, zoo):
    entry = zoo(case)
    twin = fresh_twin(case, tfkit)
    before = outputs(twin, entry["x"])
    twin.load_weights(entry["paths"]["weights.h5"])
    if twin.trainable_weights:  # the twin started elsewhere
        assert not all(np.allclose(b, e) for b, e in zip(before, entry["expected"]))
    _assert_outputs(outputs(twin, entry["x"]), entry["expected"], case.tolerance, f"{case.name}.weights.h5")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_an_export_serves_the_same_predictions(case, zoo):
    entry = zoo(case)
    got = _serve(entry["paths"]["export"], entry["model"], entry["x"])
    _assert_outputs(got, entry["expected"], case.tolerance, f"{case.name} export")


def test_the_zoo_holds_every_kind_of_model():
    kinds = {type(_BY_NAME[name].build(tfkit)).__name__ for name in ("cnn", "two_in_two_out", "two_towers")}
    assert kinds == {"Sequential", "Functional", "TwoTowers"}
    assert {"masked_language_model", "weighted_loss", "own_graph", "guide_resnet", "nested", "shared_layer"} <= set(
        _BY_NAME
    )
    assert {"mixed_float16", "mixed_bfloat16", "quantized_int8", "mobilenet", "text_to_lstm", "lstm_masked"} <= set(
        _BY_NAME
    )
    assert sum(case.compiled for case in CASES) >= 10


def test_functional_subclass_configs_rebuild_as_keras_3_rebuilds_them():
    """Keras 3's rules (``Model.from_config``): a subclass taking ``(inputs, outputs)`` is saved as its graph and
    rebuilt as itself; one that builds its own graph is saved by its constructor's arguments. Keras 3 drops the
    graph of a subclass whose constructor has an extra argument (``loss_scale``); tfkit keeps both."""
    custom = custom_objects(tfkit)
    model = _BY_NAME["masked_language_model"].build(tfkit)
    config = model.get_config()
    assert {"layers", "input_layers", "output_layers"} <= set(config) and config["name"] == "masked_language_model"
    assert type(custom["MaskedLanguageModel"].from_config(config)) is type(model)
    weighted = _BY_NAME["weighted_loss"].build(tfkit)
    config = weighted.get_config()
    assert config["loss_scale"] == 2.5 and "layers" in config
    twin = custom["WeightedLossModel"].from_config(config)
    assert twin.loss_scale == 2.5 and len(twin.layers) == len(weighted.layers)
    assert _BY_NAME["own_graph"].build(tfkit).get_config() == {"units": 3, "name": "own_graph"}

    class Widened(tfkit.Model):  # no get_config: its constructor's arguments are captured, as any layer's
        def __init__(self, width=2, **kwargs):
            inputs = tfkit.Input((3,))
            super().__init__(inputs, tfkit.layers.Dense(width)(inputs), **kwargs)

    config = Widened(width=5, name="widened").get_config()
    assert config == {"name": "widened", "trainable": True, "dtype": "float32", "width": 5}
    assert Widened.from_config(config).output_shape == (None, 5)


# ------------------------------------------------------------------ Keras 3, in a process of its own


@pytest.fixture(scope="module")
def keras_side(zoo, tmp_path_factory):
    """Keras 3 loads tfkit's ``.keras`` files and writes its own, in one subprocess; its results by case."""
    pytest.importorskip("keras")
    folder = tmp_path_factory.mktemp("keras_side")
    plan = {"load": {}, "write": {}, "results": str(folder / "results.json")}
    for case in CASES:
        if case.keras is None:
            plan["load"][case.name] = {"path": zoo(case)["paths"]["keras"], "out": str(folder / f"{case.name}.npz")}
        if case.keras_writes:
            plan["write"][case.name] = {
                "path": str(folder / f"keras_{case.name}.keras"),
                "out": str(folder / f"keras_{case.name}.npz"),
                "after": str(folder / f"keras_{case.name}_after.npz"),
            }
    (folder / "plan.json").write_text(json.dumps(plan))
    tests = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run(
        [sys.executable, os.path.join(tests, "file_zoo_models.py"), str(folder / "plan.json")],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(300),
        env={**os.environ, "KERAS_BACKEND": "tensorflow", "PYTHONPATH": tests},
        cwd=tests,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return plan, json.loads((folder / "results.json").read_text())


def _arrays(path):
    with np.load(path) as data:
        return [data[f"arr_{i}"] for i in range(len(data.files))]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_keras_3_loads_the_keras_file_with_equal_predictions(case, zoo, request):
    if case.keras is not None:
        pytest.skip(f"Keras 3 cannot: {case.keras}")
    plan, results = request.getfixturevalue("keras_side")
    assert "error" not in results[case.name], results[case.name]["error"]
    _assert_outputs(
        _arrays(plan["load"][case.name]["out"]), zoo(case)["expected"], case.tolerance, f"Keras 3 on {case.name}"
    )


KERAS_WRITTEN = [case for case in CASES if case.keras_writes]


@pytest.mark.parametrize("case", KERAS_WRITTEN, ids=[case.name for case in KERAS_WRITTEN])
def test_tfkit_loads_the_keras_3_file_and_trains_on_as_keras(case, keras_side):
    plan, results = keras_side
    assert "write_error" not in results[case.name], results[case.name]["write_error"]
    entry = plan["write"][case.name]
    loaded = tfkit.load_model(entry["path"], custom_objects=_custom(case))
    assert isinstance(loaded, custom_objects(tfkit)[type(loaded).__name__])  # the subclass, its train_step
    x = case.inputs(np.random.default_rng(KERAS_SEED))
    _assert_outputs(outputs(loaded, x), _arrays(entry["out"]), case.tolerance, f"tfkit on Keras's {case.name}")
    if case.compiled:  # the optimizer's state came along: the next step moves the model as Keras's moved
        next_step(loaded, x, targets(loaded, x, KERAS_SEED + 1))
        _assert_outputs(outputs(loaded, x), _arrays(entry["after"]), 1e-5, f"tfkit's next step on {case.name}")
