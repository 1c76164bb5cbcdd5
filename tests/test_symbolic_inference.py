"""Symbolic layer calls answered by ``compute_output_shape`` give the graph a trace of ``call`` gives.

x = tfkit.Input((4,))
y = layers.Dense(3)(x)                 # built, outputs from compute_output_shape: no graph traced
model.functional_graph.nodes[0].unchecked   # True until the first real call confirms the outputs
"""

import numpy as np
import pytest
import tensorflow as tf
from layer_catalog import CATALOG

import tfkit
from tfkit import layers
from tfkit.engine import functional_graph, shape_inference


def _traced_only(monkeypatch):
    monkeypatch.setattr(shape_inference, "infer", lambda layer, args, kwargs: None)


def _describe(model):
    """Every node's outputs (structure, shape, dtype, mask) and every weight (path, shape, dtype)."""
    nodes = []
    for node in model.functional_graph.nodes:
        flat = [
            (
                t.shape,
                t.dtype.name,
                None if t.mask_spec is None else (tuple(t.mask_spec.shape.as_list()), t.mask_spec.dtype.name),
            )
            for t in node.flat_outputs
        ]
        kinds = tf.nest.map_structure(lambda t: 0, node.outputs)
        nodes.append((node.layer.name, repr(kinds), flat))
    weights = [(path, tuple(v.shape), v.dtype.name, v.trainable) for path, v in model.weight_paths().items()]
    return nodes, weights, [l.name for l in model.layers], len(model.losses)


def _inputs_for(model):
    rng = np.random.RandomState(0)
    return [rng.rand(2, *[d or 3 for d in t.shape[1:]]).astype(t.dtype.as_numpy_dtype) for t in model.inputs]


def _names_start_over():
    """Automatic layer names start over, without the full garbage collection (~0.14 s in the whole suite)."""
    tfkit.clear_session(free_memory=False)


def _compare_with_trace(name, monkeypatch):
    _names_start_over()
    inferred = CATALOG[name]()
    with monkeypatch.context() as m:
        _traced_only(m)
        _names_start_over()
        traced = CATALOG[name]()
    assert _describe(inferred) == _describe(traced)
    return inferred, traced


FLOAT_CASES = [
    name
    for name, make in CATALOG.items()
    if name
    not in (
        "Hashing",
        "StringLookup",
        "TextVectorization",
        "CategoryEncoding",
        "IntegerLookup",
        "Embedding",
        "ReversibleEmbedding",
        "Bidirectional",
        "Lambda",
        "TFOpLambda",
        "HashedCrossing",
    )
]


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_builtin_gets_the_graph_a_trace_gives(name, monkeypatch):
    inferred, traced = _compare_with_trace(name, monkeypatch)
    if name in FLOAT_CASES:
        traced.set_weights(inferred.get_weights())
        x = _inputs_for(inferred)
        x = x[0] if len(x) == 1 else x
        ours, theirs = inferred(x, training=False), traced(x, training=False)
        tf.nest.map_structure(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6), ours, theirs)
        assert not any(node.unchecked for node in inferred.functional_graph.nodes)  # confirmed by the real call


@pytest.mark.parametrize(
    "name",
    [
        "Dense",
        "Conv2D",
        "BatchNormalization",
        "LayerNormalization",
        "Softmax",
        "MultiHeadAttention",
        "Add",
        "GlobalAveragePooling2D",
        "Activation",
    ],
)
def test_mixed_precision_layers_get_the_traced_dtypes(name, monkeypatch):
    real_input = tfkit.Input
    monkeypatch.setattr(tfkit, "Input", lambda shape, dtype="float32", **kw: real_input(shape, dtype="float16", **kw))
    tfkit.mixed_precision.set_global_policy("mixed_float16")
    try:
        inferred, _ = _compare_with_trace(name, monkeypatch)
        assert any(node.unchecked for node in inferred.functional_graph.nodes)  # the fast path was taken
    finally:
        tfkit.mixed_precision.set_global_policy("float32")


def test_common_layers_skip_the_trace_and_the_first_call_confirms_them():
    x = tfkit.Input((8, 8, 3))
    y = layers.Conv2D(4, 3, padding="same")(x)
    y = layers.BatchNormalization()(y)
    y = layers.Add()([y, layers.ReLU()(y)])
    y = layers.Dense(2)(layers.GlobalAveragePooling2D()(y))
    model = tfkit.Model(x, y)
    assert all(node.unchecked for node in model.functional_graph.nodes)
    assert [tuple(w.shape) for w in model.layers[1].weights] == [(3, 3, 3, 4), (4,)]  # built as a call builds
    assert model(np.ones((2, 8, 8, 3), "float32")).shape == (2, 2)
    assert not any(node.unchecked for node in model.functional_graph.nodes)


class WrongDense(layers.Dense):
    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.units + 1)


def test_a_wrong_compute_output_shape_is_caught_on_first_use():
    x = tfkit.Input((4,))
    model = tfkit.Model(x, layers.Dense(2)(WrongDense(3, name="wrong")(x)))
    assert model.layers[1].kernel.shape == (4, 3)
    with pytest.raises(
        ValueError,
        match=r"Layer 'wrong' \(WrongDense\): compute_output_shape promised an output of "
        r"shape \(None, 4\) and dtype float32, but its call returned shape \(2, 3\)",
    ):
        model(np.ones((2, 4), "float32"))


def test_a_wrong_compute_output_shape_in_a_sequential_is_caught_on_first_use():
    model = tfkit.Sequential([tfkit.Input((4,)), WrongDense(3, name="wrong_seq")])
    with pytest.raises(ValueError, match=r"Layer 'wrong_seq' \(WrongDense\): compute_output_shape promised"):
        model.predict(np.ones((2, 4), "float32"), verbose=0)


def test_a_sequential_called_on_other_shapes_than_its_input_is_not_checked():
    model = tfkit.Sequential([tfkit.Input((8, 8, 1)), layers.Conv2D(2, 3), layers.MaxPooling2D()])
    assert model(np.ones((1, 12, 12, 1), "float32")).shape == (1, 5, 5, 2)  # as before: no false alarm
    assert model.layers[0]._recorded_nodes[0].unchecked
    assert model(np.ones((1, 8, 8, 1), "float32")).shape == (1, 3, 3, 2)
    assert not model.layers[0]._recorded_nodes[0].unchecked


def test_a_fixed_batch_input_runs_on_another_batch_size():
    x = tfkit.Input((4,), batch_size=8)
    model = tfkit.Model(x, layers.Dense(2)(layers.Dense(3)(x)))
    assert model.output.shape == (8, 2)
    assert model(np.ones((3, 4), "float32")).shape == (3, 2)


def test_user_layers_and_wrapped_user_layers_are_still_traced():
    calls = []

    class Doubling(tfkit.Layer):
        def call(self, x):
            calls.append(x.shape)
            return tf.cast(x * 2, "int32")

        def compute_output_shape(self, input_shape):
            return input_shape

    x = tfkit.Input((4,))
    y = Doubling()(x)
    assert y.dtype == tf.int32 and len(calls) == 1  # the call decides the dtype, as before
    z = layers.TimeDistributed(Doubling())(tfkit.Input((2, 4)))
    assert z.dtype == tf.int32


def test_masks_follow_the_layers_that_compute_or_pass_them(monkeypatch):
    def build():
        _names_start_over()
        x = tfkit.Input((5, 3))
        y = layers.Masking(0.0)(x)
        y = layers.LayerNormalization()(y)
        y = layers.Dropout(0.1)(y)
        return tfkit.Model(x, layers.GlobalAveragePooling1D()(y))

    inferred = build()
    assert [n.outputs.mask_spec is not None for n in inferred.functional_graph.nodes] == [True, True, True, False]
    with monkeypatch.context() as m:
        _traced_only(m)
        traced = build()
    assert _describe(inferred) == _describe(traced)
    data = np.ones((2, 5, 3), "float32")
    data[:, 3:] = 0.0
    np.testing.assert_allclose(inferred(data), traced(data), rtol=1e-6)


def test_training_arguments_and_losses_behave_as_when_traced():
    x = tfkit.Input((200,))
    y = layers.Dropout(0.5, seed=1)(x, training=True)
    y = layers.ActivityRegularization(l1=1.0)(y)
    model = tfkit.Model(x, y)
    assert model.losses == []  # a symbolic call leaves no loss behind
    out = model(np.ones((1, 200), "float32"))
    assert 0 < int(np.sum(out.numpy() == 0)) < 200  # dropout ran at inference: training=True was kept
    assert len(model.losses) == 1


def test_a_nested_model_is_traced_and_its_layers_inferred():
    inner_in = tfkit.Input((4,))
    inner = tfkit.Model(inner_in, layers.Dense(3)(inner_in), name="inner")
    x = tfkit.Input((4,))
    outer = tfkit.Model(x, layers.Dense(2)(inner(x)))
    kinds = [(type(n.layer).__name__, n.unchecked) for n in outer.functional_graph.nodes]
    assert kinds == [("Functional", False), ("Dense", True)]
    assert outer(np.ones((1, 4), "float32")).shape == (1, 2)
    assert not inner.functional_graph.nodes[0].unchecked  # the inner graph ran too


def test_an_oversized_output_is_traced_so_a_load_budget_sees_its_op(monkeypatch):
    traced = []
    real = functional_graph._traced_outputs
    monkeypatch.setattr(functional_graph, "_traced_outputs", lambda *a: traced.append(a[0].name) or real(*a))
    x = tfkit.Input((2**16,))
    layers.RepeatVector(2**17, name="big")(x)  # 2**33 elements per sample: past MAX_SAMPLE_ELEMENTS
    layers.RepeatVector(2, name="small")(x)
    assert traced == ["big"]


def test_a_config_whose_layers_come_out_of_order_connects_each_call_in_order():
    x = tfkit.Input((4,), name="x")
    shared, first = layers.Dense(4, name="shared"), layers.Dense(4, name="first")
    model = tfkit.Model(x, [shared(first(x)), shared(x)])
    config = model.get_config()
    names = [entry["name"] for entry in config["layers"]]
    assert names == ["x", "first", "shared"]
    config["layers"] = [config["layers"][0], config["layers"][2], config["layers"][1]]  # shared before first
    rebuilt = tfkit.Model.from_config(config)
    rebuilt.set_weights(model.get_weights())
    data = np.random.RandomState(0).rand(2, 4).astype("float32")
    for ours, theirs in zip(rebuilt(data), model(data)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_a_config_with_a_dangling_call_names_the_layers_it_cannot_connect():
    x = tfkit.Input((4,), name="x")
    model = tfkit.Model(x, layers.Dense(2, name="d")(x))
    config = model.get_config()
    config["layers"][1]["inbound_nodes"][0]["args"] = [{"__tensor__": ["nowhere", 0, 0]}]
    with pytest.raises(ValueError, match=r"cannot connect layers \['d'\]"):
        tfkit.Model.from_config(config)
