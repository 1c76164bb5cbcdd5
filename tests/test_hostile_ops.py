"""Hostile ``.keras`` archives naming TensorFlow functions, sizes and missing weights: each refused before it runs.

A ``TFOpLambda`` entry in a config names the function it calls. A file may name
only the pure tensor functions of ``tfkit/base/tf_operations_table.py`` (an
allowlist generated from TensorFlow by ``tools/tf_operations_table.py``, checked
here against the installed TensorFlow); a size one of them asks for
(``tf.ones([2**31])``) is charged to the file's load budget before the call
runs; and an archive without ``model.weights.h5`` is refused, as Keras refuses it.
"""

import importlib.util
import json
import pathlib
import re
import zipfile

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.base import load_budget, tf_operations_table

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A small Keras-format archive, x -> relu -> Dense(2), and a weightless one, x -> relu."""
    folder = tmp_path_factory.mktemp("hostile_ops")
    x = tfkit.Input((4,))
    tfkit.Model(x, tfkit.layers.Dense(2)(tfkit.ops.relu(x))).save(folder / "dense.keras")
    y = tfkit.Input((4,))
    tfkit.Model(y, tfkit.ops.relu(y)).save(folder / "weightless.keras")
    return folder


def _rewrite(source, target, entry=None, drop=()):
    """``source`` with its operation node (layer 1) replaced by ``entry(node)``, less the members in ``drop``."""
    with zipfile.ZipFile(source) as archive:
        members = {name: archive.read(name) for name in archive.namelist() if name not in drop}
    if entry is not None:
        config = json.loads(members["config.json"])
        layers = config["config"]["layers"]
        layers[1] = entry(layers[1])
        members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return target


def _operation(function, args, kwargs=None, name="evil"):
    """A tfkit ``TFOpLambda`` entry calling ``function(*args, **kwargs)``, on the node's own inputs."""

    def entry(node):
        config = {"name": name, "trainable": True, "dtype": "float32", "function": function}
        config["arguments"] = {"args": args, "kwargs": kwargs or {}}
        return {
            "module": "tfkit.layers",
            "class_name": "TFOpLambda",
            "registered_name": None,
            "name": node["name"],
            "config": config,
            "inbound_nodes": node["inbound_nodes"],
        }

    return entry


def _spy(calls, name):
    def spy(*args, **kwargs):
        calls.append(name)

    return spy


STATE_CHANGERS = {  # function -> TensorFlow 2's state that it would change, read after the attempt
    "disable_eager_execution": lambda: tf.executing_eagerly(),
    "disable_v2_behavior": lambda: tf.executing_eagerly() and tf.compat.v1.resource_variables_enabled(),
    "disable_resource_variables": lambda: tf.compat.v1.resource_variables_enabled(),
    "disable_control_flow_v2": lambda: tf.compat.v1.control_flow_v2_enabled(),
    "disable_v2_tensorshape": lambda: isinstance(tf.TensorShape([3])[0], int),
}
OTHER_V1 = {"matching_files": ["{folder}/*"], "reset_default_graph": [], "get_variable": ["v", [2]]}
OTHER_V1["wrap_function"] = [None, []]


@pytest.mark.parametrize("function", [*STATE_CHANGERS, *OTHER_V1])
def test_compat_v1_functions_are_refused_before_they_run(saved, tmp_path, monkeypatch, function):
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "secret.txt").write_text("not for the model")
    calls = []
    monkeypatch.setattr(tf.compat.v1, function, _spy(calls, function))  # what would run, had the name resolved
    if function == "matching_files":
        monkeypatch.setattr(tf.io, function, _spy(calls, function))
    args = [a.format(folder=tmp_path / "private") if isinstance(a, str) else a for a in OTHER_V1.get(function, [])]
    names = [f"tf.compat.v1.{function}"] + ([f"tf.io.{function}"] if function == "matching_files" else [])
    for name in names:
        path = _rewrite(saved / "dense.keras", tmp_path / "hostile.keras", _operation(name, args))
        with pytest.raises(ValueError) as caught:
            tfkit.load_model(path)
        message = str(caught.value)
        assert str(path) in message and "TFOpLambda 'evil'" in message, message  # the file and the layer
        assert f"peration '{name}' is not allowed in a model config" in message, message  # and the name
    assert calls == []
    assert all(still_v2() for still_v2 in STATE_CHANGERS.values())


@pytest.mark.parametrize(
    "function, args, kwargs, argument",
    [
        ("tf.ones", [[2**31]], {}, "shape=[2147483648]"),
        ("tf.zeros", [], {"shape": [2**16, 2**16]}, "shape=[65536, 65536]"),
        ("tf.fill", [[2**30], 1.0], {}, "dims=[1073741824]"),
        ("tf.range", [2**31], {}, "start=2147483648"),  # range(n): n is its first argument
        ("tf.eye", [2**15], {}, "num_rows=32768"),  # num_columns defaults to num_rows: 2**30 elements
        ("tf.random.uniform", [[2**29]], {}, "shape=[536870912]"),
        ("tf.one_hot", [[0, 1, 2], 2**28], {}, "depth=268435456"),
        ("tf.tile", [{"__input__": 0}, [1, 2**27]], {}, "multiples=[1, 134217728]"),
        ("tf.broadcast_to", [{"__input__": 0}, [2**16, 2**11, 4]], {}, "shape=[65536, 2048, 4]"),
    ],
)
def test_sizes_a_config_declares_are_charged_before_the_call(saved, tmp_path, function, args, kwargs, argument):
    path = _rewrite(saved / "dense.keras", tmp_path / "big.keras", _operation(function, args, kwargs))
    with pytest.raises(ValueError) as caught:
        tfkit.load_model(path)
    message = str(caught.value)
    assert "TFOpLambda layer 'evil' has " in message and argument in message, message  # the layer, the argument
    assert f"a model file may ask for at most {2**28}" in message, message


def test_a_keras_operation_declaring_a_size_is_charged_too(saved, tmp_path):
    def full(node):  # keras.ops.full((2**31,), x): Keras 3's own node, rebuilt as tfkit.ops.full
        config = {"name": "full", "shape": [2**31], "dtype": "float32"}
        return {**node, "module": "keras.src.ops.numpy", "class_name": "Full", "config": config}

    path = _rewrite(saved / "dense.keras", tmp_path / "full.keras", full)
    with pytest.raises(ValueError, match=r"TFOpLambda layer 'full' has full\(shape=\[2147483648\]\) asking for"):
        tfkit.load_model(path)


def test_sizes_within_the_budget_load_and_compute_as_numpy(tmp_path):
    x = tfkit.Input((4,))
    tiled = tf.tile(x, [1, 3])  # multiples: 8 elements more than x, charged
    hot = tf.one_hot(tf.cast(x, "int32"), depth=5)  # depth
    model = tfkit.Model(x, [tiled, hot])
    model.save(tmp_path / "sizes.h5")
    loaded = tfkit.load_model(tmp_path / "sizes.h5")
    data = np.array([[0, 1, 2, 4], [3, 3, 0, 1]], "float32")
    tiled_out, hot_out = loaded.predict(data, verbose=0)
    np.testing.assert_array_equal(tiled_out, np.tile(data, (1, 3)))
    np.testing.assert_array_equal(hot_out, np.eye(5, dtype="float32")[data.astype(int)])


def test_declared_sizes_add_up_over_a_load():
    x = tf.zeros((2, 4))
    with load_budget.rebuilding("f.keras"):
        load_budget.charge_operation("TFOpLambda layer 'a'", tf.ones, ([2**27],), {})  # half the budget
        load_budget.charge_operation("TFOpLambda layer 'b'", tf.tile, (x, [1, 4]), {})  # 24 more: fine
        with pytest.raises(ValueError, match=r"layer 'c' has ones\(shape=\[134217728\]\) .* to 268435480;"):
            load_budget.charge_operation("TFOpLambda layer 'c'", tf.ones, ([2**27],), {})
    load_budget.charge_operation("TFOpLambda layer 'd'", tf.ones, ([2**40],), {})  # outside a load: no budget


def test_an_archive_without_its_weights_is_refused_as_keras_refuses_it(saved, tmp_path):
    for model in ("dense", "weightless"):
        path = _rewrite(saved / f"{model}.keras", tmp_path / f"{model}_no_weights.keras", drop=("model.weights.h5",))
        weights = 2 if model == "dense" else 0
        pattern = rf"{re.escape(str(path))}: the archive holds no model.weights.h5, .* \({weights} weights\)"
        with pytest.raises(ValueError, match=pattern):
            tfkit.load_model(path)
    keras = pytest.importorskip("keras")  # Keras 3 refuses both, a model without weights too
    for model in ("dense", "weightless"):
        with pytest.raises(ValueError, match=r"Expected a model.weights.h5 or model.weights.npz file"):
            keras.saving.load_model(tmp_path / f"{model}_no_weights.keras")


# ------------------------------------------------------------------ the allowlist itself


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("tf_operations_table_tool", ROOT / "tools" / "tf_operations_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.derived = module.build_table()  # reading TensorFlow's API and code takes a few seconds
    return module


def test_the_allowlist_is_what_the_tool_derives_from_the_installed_tensorflow(tool):
    derived = set(tool.derived["allowed"])
    committed = tf_operations_table.ALLOWED
    assert derived == committed, (
        f"TensorFlow {tf.__version__} gives a different allowlist than the committed one (TensorFlow "
        f"{tf_operations_table.TF_VERSION}): new {sorted(derived - committed)[:20]}, gone "
        f"{sorted(committed - derived)[:20]}. Run python tools/tf_operations_table.py and review the difference."
    )
    if tool.derived["version"] == tf_operations_table.TF_VERSION:
        assert (ROOT / "tfkit" / "base" / "tf_operations_table.py").read_text() == tool.render(tool.derived)
        assert pathlib.Path(tool.PAGE).read_text(encoding="utf-8") == tool.render_page(tool.derived)
    assert set(tool.REFUSED) <= {n[3:] for n in tool.derived["refused"]}, "a refusal rule names no function"


_NOT_PURE = re.compile(
    r"(^|\.)(disable_|enable_|set_seed|set_random_seed|reset_default_graph|get_variable|Variable|Session|"
    r"py_func|numpy_function|print$|Print$|read_file|write_file|matching_files|save|restore|wrap_function|"
    r"function$|while_loop|map_fn|load_library|load_op_library|get_global_generator)"
)


def test_the_allowlist_holds_no_state_file_or_python_function():
    names = tf_operations_table.ALLOWED
    assert {"tf.nn.relu", "tf.math.reduce_mean", "tf.ones", "tf.compat.v1.shape"} <= names
    assert [n for n in names if _NOT_PURE.search(n)] == []
    outside = r"tf\.(compat\.v1\.)?(io|data|config|debugging|summary|distribute|saved_model|raw_ops|train)\."
    assert [n for n in names if re.match(outside, n)] == []
