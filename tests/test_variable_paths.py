"""Keras 3's ``variable.path`` on tfkit's weights: Keras's paths for the same model definitions, unique in a model.

A layer's path is fixed the first time it is called or built (the path of the layer running then, then its
name); a weight's path is its layer's path, then its name; TensorFlow's name is that path with ``:0``. Each
case below is built in Keras 3 and in tfkit from the same definition and compared path by path. tfkit parts
from Keras where Keras repeats a path (two sub-layers of one layer with the same name, two weights of one layer
with the same name): tfkit numbers the later one (``d_1``), so paths and names never collide in a model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402
import time_limits  # noqa: E402

import tfkit  # noqa: E402
import tfkit.hub as tk_hub  # noqa: E402

X = np.ones((1, 3), "float32")


@pytest.fixture(scope="module")
def keras():
    return pytest.importorskip("keras")


def _definitions(k) -> types.SimpleNamespace:
    """The custom layers and models of the cases, written once against ``k`` (``keras`` or ``tfkit``)."""

    class Block(k.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.proj = k.layers.Dense(4, name="proj")
            self.denses = [k.layers.Dense(4) for _ in range(2)]  # a list of sub-layers
            self.scale = self.add_weight(shape=(), name="scale")  # made in __init__: before any path is fixed

        def build(self, input_shape):
            self.bias = self.add_weight(shape=(4,), name="bias")

        def call(self, x):
            x = self.proj(x)
            for dense in self.denses:
                x = dense(x)
            return x + self.bias * self.scale

    class Net(k.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.blocks = [Block() for _ in range(2)]
            self.head = k.layers.Dense(1)

        def call(self, x):
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    class Wrap(k.Model):
        def __init__(self, inner, **kwargs):
            super().__init__(**kwargs)
            self.inner = inner

        def call(self, x):
            return self.inner(x)

    class HoldsSequential(k.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.seq = k.Sequential([k.layers.Dense(2), k.layers.Dense(2)])

        def call(self, x):
            return self.seq(x)

    class MadeInBuild(k.layers.Layer):
        def build(self, input_shape):
            self.v = k.Variable(np.ones(2, "float32"), name="v")  # a bare variable inside a build
            self.dense = k.layers.Dense(2, name="inner")
            self.dense.build(input_shape)  # a sub-layer built by hand inside a build

        def call(self, x):
            return self.dense(x) * self.v

    return types.SimpleNamespace(
        Block=Block, Net=Net, Wrap=Wrap, HoldsSequential=HoldsSequential, MadeInBuild=MadeInBuild
    )


def _sequential_on_call(k, d):
    model = k.Sequential([k.layers.Dense(4), k.layers.Dense(2)])
    model(X)
    return model.weights


def _sequential_build(k, d):
    model = k.Sequential([k.layers.Dense(4), k.layers.Dense(2)], name="seq")
    model.build((None, 3))
    return model.weights


def _functional(k, d):
    x = k.Input((3,))
    y = k.layers.Dense(2, name="out")(k.layers.Dense(4)(x))
    return k.Model(x, y, name="func").weights


def _subclassed(k, d):
    model = d.Net()
    model(X)
    return model.weights


def _block_in_functional(k, d):
    x = k.Input((3,))
    return k.Model(x, d.Block(name="blk")(x)).weights


def _hand_built_dense(k, d):
    layer = k.layers.Dense(2)
    layer.build((None, 3))
    return layer.weights


def _hand_built_block_then_called(k, d):
    block = d.Block()
    block.build((None, 3))  # its own weights now; the sub-layers' on the call below
    block(X)
    return block.weights


def _layer_shared_by_two_functional_models(k, d):
    shared = k.layers.Dense(3, name="shared")
    x = k.Input((3,))
    k.Model(x, shared(x), name="m1")
    x2 = k.Input((3,))
    return k.Model(x2, k.layers.Dense(1)(shared(x2)), name="m2").weights


def _layer_shared_by_two_subclassed_models(k, d):
    inner = k.layers.Dense(2, name="inner")
    first, second = d.Wrap(inner, name="w1"), d.Wrap(inner, name="w2")
    second(X)  # built under w2: its path stays w2/inner, in w1 too
    first(X)
    return first.weights


def _nested_functional(k, d):
    xi = k.Input((3,))
    inner = k.Model(xi, k.layers.Dense(2)(xi), name="inner")
    x = k.Input((3,))
    return k.Model(x, k.layers.Dense(1)(inner(x)), name="outer").weights


def _sequential_inside_subclassed(k, d):
    model = d.HoldsSequential(name="s")
    model(X)
    return model.weights


def _multi_head_attention(k, d):
    layer = k.layers.MultiHeadAttention(2, 4)
    x = np.ones((1, 3, 4), "float32")
    layer(x, x)
    return layer.weights


def _batch_normalization(k, d):
    layer = k.layers.BatchNormalization()
    layer.build((None, 3))
    return layer.weights


def _name_scopes(k, d):
    with k.name_scope("blk"):
        first = k.layers.Dense(2, name="proj")
        first.build((None, 3))
    with k.name_scope("x", override_parent="a/b"):
        second = k.layers.Dense(2, name="p2")
        second.build((None, 3))
    return first.weights + second.weights


def _variables_in_and_out_of_builds(k, d):
    layer = d.MadeInBuild(name="made")
    layer(X)
    return [k.Variable(np.ones(2, "float32"), name="top"), layer.v, *layer.dense.weights]


CASES = [
    _sequential_on_call,
    _sequential_build,
    _functional,
    _subclassed,
    _block_in_functional,
    _hand_built_dense,
    _hand_built_block_then_called,
    _layer_shared_by_two_functional_models,
    _layer_shared_by_two_subclassed_models,
    _nested_functional,
    _sequential_inside_subclassed,
    _multi_head_attention,
    _batch_normalization,
    _name_scopes,
    _variables_in_and_out_of_builds,
]


def _paths(k, case) -> list[str]:
    k.backend.clear_session()  # automatic names start over: dense, dense_1, ... in both
    return [w.path for w in case(k, _definitions(k))]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__.strip("_") for c in CASES])
def test_paths_are_keras_paths(keras, case):
    theirs = _paths(keras, case)
    ours_weights = (tfkit.backend.clear_session(), case(tfkit, _definitions(tfkit)))[1]
    assert [w.path for w in ours_weights] == theirs
    assert [w.name for w in ours_weights] == [f"{path}:0" for path in theirs]  # TensorFlow's name: the path


def test_a_subclassed_models_paths_by_hand():
    tfkit.backend.clear_session()
    model = _definitions(tfkit).Net()
    model(X)
    assert [w.path for w in model.weights][:4] == [
        "block/scale",  # added in Block.__init__, when no path was fixed yet: Keras's rule too
        "net/block/bias",
        "net/block/proj/kernel",
        "net/block/proj/bias",
    ]
    assert model.blocks[1].path == "net/block_1" and model.blocks[1].denses[0].path == "net/block_1/dense_2"
    assert model.head.kernel.path == "net/dense_4/kernel"


def _sequential_with_input(k, d):
    return k.Sequential([k.Input((3,)), k.layers.Dense(4), k.layers.Dense(2, name="head")]).weights


@pytest.mark.xfail(
    strict=True,
    reason="Keras builds a Sequential's layers inside the Sequential's scope (sequential/dense/kernel); tfkit's "
    "Sequential.add calls them outside it (dense/kernel)",
)
def test_sequential_with_input_paths(keras):
    assert [w.path for w in (tfkit.backend.clear_session(), _sequential_with_input(tfkit, None))[1]] == _paths(
        keras, _sequential_with_input
    )


def test_same_named_sub_layers_and_weights_get_distinct_paths(keras):
    """Where Keras 3 repeats a path, tfkit numbers the later one: a model's paths and names stay unique."""

    def definitions(k):
        class Dup(k.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.a, self.b = k.layers.Dense(2, name="d"), k.layers.Dense(2, name="d")

            def build(self, input_shape):
                self.w1 = self.add_weight(shape=(), name="w")
                self.w2 = self.add_weight(shape=(), name="w")

            def call(self, x):
                return self.b(self.a(x)) * self.w1 * self.w2

        layer = Dup(name="dup")
        layer(np.ones((1, 2), "float32"))
        return [w.path for w in layer.weights]

    ours = definitions(tfkit)
    assert ours == ["dup/w", "dup/w_1", "dup/d/kernel", "dup/d/bias", "dup/d_1/kernel", "dup/d_1/bias"]
    theirs = definitions(keras)
    assert theirs == ["dup/w", "dup/w", "dup/d/kernel", "dup/d/bias", "dup/d/kernel", "dup/d/bias"]


GEMMA = dict(
    vocabulary_size=50, num_layers=2, num_query_heads=2, num_key_value_heads=1, hidden_dim=8, intermediate_dim=16,
    head_dim=4,
)  # fmt: skip
GPT2 = dict(vocabulary_size=50, num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=16)


def test_lora_weights_of_a_two_block_gemma_have_distinct_paths_and_names():
    """The issue's case: after enable_lora(2) the query and value factors of the two blocks are told apart."""
    tfkit.backend.clear_session()
    backbone = tk_hub.models.GemmaBackbone(**GEMMA)
    backbone.enable_lora(2)
    assert [w.path for w in backbone.trainable_weights] == [
        f"decoder_block_{block}/attention/{projection}/lora_kernel_{factor}"
        for block in (0, 1)
        for projection in ("query", "value")
        for factor in ("a", "b")
    ]
    paths = [w.path for w in backbone.weights]
    names = [w.name for w in backbone.weights]
    assert len(set(paths)) == len(paths) == 28 and len(set(names)) == len(names)


@pytest.mark.parametrize("family, arguments", [("GemmaBackbone", GEMMA), ("GPT2Backbone", GPT2)])
def test_backbone_paths_match_keras_hubs_with_lora(keras, family, arguments):
    keras_hub = pytest.importorskip("keras_hub")
    keras.backend.clear_session()
    theirs = getattr(keras_hub.models, family)(**arguments)
    theirs.enable_lora(2)
    tfkit.backend.clear_session()
    ours = getattr(tk_hub.models, family)(**arguments)
    ours.enable_lora(2)
    assert [w.path for w in ours.weights] == [w.path for w in theirs.weights]
    assert [w.path for w in ours.trainable_weights] == [w.path for w in theirs.trainable_weights]


def test_optimizer_slots_are_named_by_path_as_in_keras(keras):
    """Keras names an optimizer's slots after the variable's path: with the same paths, the same slot names."""

    def slot_names(k):
        k.backend.clear_session()
        model = _definitions(k).Net(name="net")
        model(X)
        optimizer = k.optimizers.Adam()
        optimizer.build(model.trainable_variables)
        return [v.name.split(":")[0] for v in optimizer.variables]

    ours = slot_names(tfkit)
    assert ours == slot_names(keras)
    assert "net_block_1_proj_kernel_momentum" in ours


def test_weights_files_and_checkpoints_do_not_depend_on_paths(tmp_path):
    """Weight files and checkpoints key weights by attribute path: a model whose automatic names, and so whose
    ``.path``s, differ still loads them."""
    tfkit.backend.clear_session()
    source = _definitions(tfkit).Net(name="net")
    source(X)
    for i, weight in enumerate(source.weights):
        weight.assign(np.full(weight.shape, 0.1 * (i + 1), "float32"))
    source.save_weights(str(tmp_path / "net.weights.h5"))
    checkpoint = tf.train.Checkpoint(model=source).write(str(tmp_path / "ckpt"))
    tfkit.layers.Dense(1)  # shifts the automatic names: dense_5, ... in the copies
    expected = np.asarray(source(X))
    for restore in ("h5", "checkpoint"):
        copy = _definitions(tfkit).Net(name="net")
        copy(X)
        assert [w.path for w in copy.weights] != [w.path for w in source.weights]
        if restore == "h5":
            copy.load_weights(str(tmp_path / "net.weights.h5"))
        else:
            tf.train.Checkpoint(model=copy).read(checkpoint).assert_consumed()
        np.testing.assert_allclose(np.asarray(copy(X)), expected, rtol=1e-6)
    keys = [name for name, _ in tf.train.list_variables(checkpoint)]
    assert "model/blocks/1/proj/kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert not any("net/block" in key for key in keys)


def test_a_layer_built_inside_a_tf_function_gets_the_eager_paths():
    tfkit.backend.clear_session()
    eager = _definitions(tfkit).Net(name="net")
    eager(X)
    tfkit.backend.clear_session()
    traced = _definitions(tfkit).Net(name="net")
    tf.function(lambda x: traced(x))(tf.constant(X))
    assert [w.path for w in traced.weights] == [w.path for w in eager.weights]
    assert all(type(w) is type(eager.weights[0]) for w in traced.weights)  # still plain tf.Variables
    assert all(isinstance(w, tf.Variable) for w in traced.weights)


MIRRORED = textwrap.dedent(
    """
    import json, os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    import numpy as np, tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    import tfkit

    class Block(tfkit.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.proj = tfkit.layers.Dense(3, name="proj")
        def call(self, x):
            return self.proj(x)

    class Net(tfkit.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.blocks = [Block(name="block"), Block(name="block")]  # one name twice: block, block_1
            self.head = tfkit.layers.Dense(1, name="head")
        def call(self, x):
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        model = Net(name="net")
        model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((8, 2), "float32"), np.ones((8, 1), "float32"), batch_size=4, epochs=1, verbose=0)
    print(json.dumps({
        "types": sorted({type(w).__name__ for w in model.weights}),
        "paths": [w.path for w in model.weights],
        "names": [w.name for w in model.weights],
    }))
    """
)


def test_paths_survive_mirrored_strategy():
    """Built inside MirroredStrategy's replicated fit step on two logical CPUs: the distributed variables carry
    the paths and names a single-device model gets."""
    proc = subprocess.run(
        [sys.executable, "-c", MIRRORED], capture_output=True, text=True, timeout=time_limits.seconds(300)
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["types"] == ["MirroredVariable"]
    expected = [f"net/{block}/proj/{w}" for block in ("block", "block_1") for w in ("kernel", "bias")]
    assert result["paths"] == expected + ["net/head/kernel", "net/head/bias"]
    assert result["names"] == [f"{path}:0" for path in result["paths"]]
