"""The numpy-style ops of issue 19 on symbolic tensors: a functional model per op, saved and reloaded.

Each row of ``test_ops_numpy_values.CASES`` is replayed with its first array argument
(wherever it occurs, lists included) replaced by ``tfkit.Input`` of the same shape and
a free batch dimension. The model must give the eager result, and so must the model
loaded back from HDF5, whose config names the op (``tfkit.ops.<name>``).
"""

import numpy as np
import pytest
import tensorflow as tf
from test_ops_numpy_values import CASES, _assert_same, _numpy

import tfkit
from tfkit import ops
from tfkit.layers import op_names

# ops whose result depends on the whole batch or needs the first axis known: an Input with a fixed batch
STATIC_BATCH = {
    "cross",
    "diagflat",
    "dsplit",
    "kron",
    "unique",
    "histogram",
    "correlate",
    "vander",
    "bincount",
    "nonzero",
    "array_split",
    "corrcoef",
    "unravel_index",
    "dstack",
    "slogdet",
    "view",
}


def _first_array(value):
    if isinstance(value, np.ndarray) and value.ndim >= 1:
        return value
    if isinstance(value, (list, tuple)):
        for v in value:
            found = _first_array(v)
            if found is not None:
                return found
    return None


def _replace(value, target, symbol):
    if value is target:
        return symbol
    if isinstance(value, list):
        return [_replace(v, target, symbol) for v in value]
    if isinstance(value, tuple):
        return tuple(_replace(v, target, symbol) for v in value)
    return value


SYMBOLIC_CASES = [c for c in CASES if c.values[5] and _first_array(c.values[1]) is not None]


def _build(name, args, kwargs):
    """A one-op model on a symbolic stand-in for the call's first array, the array and the eager result."""
    data = _first_array(args)
    batch = data.shape[0] if name in STATIC_BATCH else None
    inputs = tfkit.Input(shape=data.shape[1:], batch_size=batch, dtype=data.dtype.name)
    outputs = getattr(ops, name)(*_replace(args, data, inputs), **kwargs)
    return tfkit.Model(inputs, outputs), data, _numpy(getattr(ops, name)(*args, **kwargs))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every case's one-op model (or why it could not be built), and its outputs after one save and load.

    All the models go into one file, saved once and loaded once: loading reads in a child process.
    """
    models, inputs, outputs, where = {}, [], [], {}
    for param in SYMBOLIC_CASES:
        try:
            model, data, expected = _build(*param.values[:3])
        except Exception as error:  # noqa: BLE001 - reported by the case's own test
            models[param.id] = error
            continue
        models[param.id] = (model, data, expected)
        flat = tf.nest.flatten(model.outputs)
        where[param.id] = (len(outputs), len(flat), data)
        inputs.append(model.inputs[0] if isinstance(model.inputs, list) else model.inputs)
        outputs.extend(flat)
    path = tmp_path_factory.mktemp("ops") / "all_ops.h5"
    tfkit.Model(inputs, outputs).save(path)
    results = tfkit.load_model(path)([data for _, _, data in where.values()])
    results = results if isinstance(results, (list, tuple)) else [results]
    reloaded = {
        key: [np.asarray(r) for r in results[first : first + count]] for key, (first, count, _) in where.items()
    }
    return models, reloaded


@pytest.mark.parametrize("name, args, kwargs, ref, keras_check, symbolic", SYMBOLIC_CASES)
def test_op_in_functional_model_saves_and_reloads(name, args, kwargs, ref, keras_check, symbolic, built, request):
    models, reloaded = built
    key = request.node.callspec.id
    if isinstance(models[key], Exception):
        raise models[key]
    model, data, expected = models[key]
    _assert_same(_numpy(model(data)), expected)
    functions = [layer.get_config()["function"] for layer in model.layers if isinstance(layer, tfkit.layers.TFOpLambda)]
    assert functions == [f"tfkit.ops.{name}"]
    _assert_same(reloaded[key], [np.asarray(e) for e in tf.nest.flatten(expected)])


def test_every_added_name_resolves_from_a_config():
    keras = pytest.importorskip("keras")
    for name in sorted(n for n in dir(keras.ops.numpy) if not n.startswith("_")):
        assert hasattr(ops.numpy, name) and getattr(ops, name) is getattr(ops.numpy, name), name
        function = getattr(ops, name)
        stored = getattr(function, "_tfkit_op_name", None)
        if stored is not None:
            assert op_names.resolve(stored) is function, name
            assert op_names.resolve(f"tfkit.ops.numpy.{name}") is function, name  # Keras's spelling


@pytest.mark.parametrize("window", ["bartlett", "blackman", "hamming", "hanning"])
def test_windows_refuse_symbolic_lengths(window):
    with pytest.raises(TypeError, match="window length"):
        getattr(ops, window)(tfkit.Input(shape=(), batch_size=1, dtype="int32"))
    with pytest.raises(TypeError, match="window length"):
        ops.kaiser(tfkit.Input(shape=(), batch_size=1, dtype="int32"), 2.0)


def test_ndim_of_a_symbolic_tensor_is_an_int():
    assert ops.ndim(tfkit.Input(shape=(4, 2))) == 3


def test_vectorize_refuses_symbolic_tensors_with_a_hint():
    with pytest.raises(TypeError, match="custom layer"):
        ops.vectorize(lambda v: v * 2)(tfkit.Input(shape=(3,)))


def test_ops_compile_under_xla():
    @tf.function(jit_compile=True)
    def f(x):
        return (
            ops.nanmean(x, axis=1)
            + ops.median(x, axis=1)
            + ops.logaddexp(x, x)[:, 0]
            + ops.sum(ops.unique(ops.floor(x), size=4)[:1])
            + ops.diagonal(ops.kron(x[:2, :2], x[:2, :2]))[0]
        )

    x = np.random.default_rng(3).normal(size=(3, 4)).astype("float32")
    eager = (
        ops.nanmean(x, axis=1)
        + ops.median(x, axis=1)
        + ops.logaddexp(x, x)[:, 0]
        + ops.sum(ops.unique(ops.floor(x), size=4)[:1])
        + ops.diagonal(ops.kron(x[:2, :2], x[:2, :2]))[0]
    )
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), eager.numpy(), rtol=1e-5)
