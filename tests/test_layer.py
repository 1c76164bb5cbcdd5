"""The Layer core, section by section of the guide (keras -> tfkit, keras.ops -> tf)."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


class Linear(tfkit.Layer):
    def __init__(self, units=32, input_dim=32):
        super().__init__()
        self.w = self.add_weight(shape=(input_dim, units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class LazyLinear(tfkit.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class ComputeSum(tfkit.Layer):
    def __init__(self, input_dim):
        super().__init__()
        self.total = self.add_weight(initializer="zeros", shape=(input_dim,), trainable=False)

    def call(self, inputs):
        self.total.assign_add(tf.reduce_sum(inputs, axis=0))
        return self.total


class MLPBlock(tfkit.Layer):
    def __init__(self):
        super().__init__()
        self.linear_1 = LazyLinear(32)
        self.linear_2 = LazyLinear(32)
        self.linear_3 = LazyLinear(1)

    def call(self, inputs):
        x = tfkit.activations.relu(self.linear_1(inputs))
        x = tfkit.activations.relu(self.linear_2(x))
        return self.linear_3(x)


class ActivityRegularizationLayer(tfkit.Layer):
    def __init__(self, rate=1e-2):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * tf.reduce_mean(inputs))
        return inputs


class OuterLayer(tfkit.Layer):
    def __init__(self):
        super().__init__()
        self.activity_reg = ActivityRegularizationLayer(1e-2)

    def call(self, inputs):
        return self.activity_reg(inputs)


def test_linear_weights_in_init_and_matmul():
    x = tf.ones((2, 2))
    layer = Linear(4, 2)
    y = layer(x)
    assert y.shape == (2, 4)
    np.testing.assert_allclose(y.numpy(), (x.numpy() @ layer.w.numpy()) + layer.b.numpy(), rtol=1e-6)
    assert layer.weights == [layer.w, layer.b]


def test_non_trainable_weight_compute_sum():
    x = tf.ones((2, 2))
    my_sum = ComputeSum(2)
    np.testing.assert_array_equal(my_sum(x).numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(my_sum(x).numpy(), [4.0, 4.0])
    assert len(my_sum.weights) == 1
    assert len(my_sum.non_trainable_weights) == 1
    assert my_sum.trainable_weights == []


def test_lazy_build_and_nesting_counts():
    mlp = MLPBlock()
    assert mlp.weights == []
    y = mlp(tf.ones((3, 64)))
    assert y.shape == (3, 1)
    assert len(mlp.weights) == 6
    assert len(mlp.trainable_weights) == 6
    assert list(mlp.weight_paths()) == [
        "linear_1/w",
        "linear_1/b",
        "linear_2/w",
        "linear_2/b",
        "linear_3/w",
        "linear_3/b",
    ]
    assert mlp.linear_1.weights[0].shape == (64, 32)


def test_build_runs_once_with_nested_input_shapes():
    seen = []

    class Pair(tfkit.Layer):
        def build(self, input_shape):
            seen.append(input_shape)

        def call(self, inputs):
            a, b = inputs
            return a + b

    layer = Pair()
    layer((tf.ones((2, 3)), tf.ones((2, 3))))
    layer((tf.ones((4, 3)), tf.ones((4, 3))))
    assert seen == [((2, 3), (2, 3))]
    assert layer.built


def test_losses_reset_on_each_outer_call():
    layer = OuterLayer()
    assert len(layer.losses) == 0
    layer(tf.zeros((1, 1)))
    assert len(layer.losses) == 1
    layer(tf.zeros((1, 1)))
    assert len(layer.losses) == 1
    layer(tf.ones((1, 1)))
    np.testing.assert_allclose(float(layer.losses[0]), 1e-2)


def test_kernel_regularizer_loss_value():
    class OuterWithReg(tfkit.Layer):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(32, kernel_regularizer=tfkit.regularizers.l2(1e-3))

        def call(self, inputs):
            return self.dense(inputs)

    layer = OuterWithReg()
    layer(tf.zeros((1, 1)))
    assert len(layer.losses) == 1
    expected = 1e-3 * np.sum(layer.dense.kernel.numpy() ** 2)
    np.testing.assert_allclose(float(layer.losses[0]), expected, rtol=1e-5)


def test_get_config_auto_and_explicit():
    class WithConfig(tfkit.Layer):
        def __init__(self, units=32, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def get_config(self):
            config = super().get_config()
            config.update({"units": self.units})
            return config

    layer = WithConfig(64, name="linear_x")
    assert layer.get_config() == {"name": "linear_x", "trainable": True, "dtype": "float32", "units": 64}
    assert WithConfig.from_config(layer.get_config()).units == 64

    auto = LazyLinear(5, name="auto")
    assert auto.get_config() == {"name": "auto", "trainable": True, "dtype": "float32", "units": 5}
    rebuilt = LazyLinear.from_config(auto.get_config())
    assert rebuilt.units == 5 and rebuilt.name == "auto"


def test_guide_config_example_prints_linear_7():
    tfkit.clear_session()

    class GuideLinear(tfkit.Layer):
        def __init__(self, units=32, **kwargs):
            super().__init__(**kwargs)
            self.units = units

    for _ in range(7):
        GuideLinear(1)
    assert GuideLinear(64).get_config() == {
        "name": "guide_linear_7",
        "trainable": True,
        "dtype": "float32",
        "units": 64,
    }


def test_get_config_without_kwargs_in_init_still_rebuilds():
    layer = Linear(3, 2)
    config = layer.get_config()
    assert config["units"] == 3
    rebuilt = Linear.from_config(config)
    assert rebuilt.name == layer.name


def test_get_config_non_serializable_argument_says_what_to_implement():
    class TakesArray(tfkit.Layer):
        def __init__(self, table, **kwargs):
            super().__init__(**kwargs)
            self.table = table

    layer = TakesArray(np.zeros(3), name="table_layer")
    with pytest.raises(NotImplementedError, match=r"table_layer.*table \(ndarray\).*Implement get_config"):
        layer.get_config()


def test_unique_automatic_names():
    tfkit.clear_session()
    names = [layers.Dense(1).name for _ in range(3)]
    assert names == ["dense", "dense_1", "dense_2"]


def test_training_flag_propagates_to_nested_layers():
    seen = []

    class Probe(tfkit.Layer):
        def call(self, inputs, training=None):
            seen.append(training)
            return inputs

    class Outer(tfkit.Layer):
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def call(self, inputs):
            return self.probe(inputs)

    outer = Outer()
    outer(tf.ones((1, 1)), training=True)
    outer(tf.ones((1, 1)), training=False)
    outer(tf.ones((1, 1)))
    assert seen == [True, False, None]


def test_custom_dropout_from_guide():
    class CustomDropout(tfkit.Layer):
        def __init__(self, rate, **kwargs):
            super().__init__(**kwargs)
            self.rate = rate
            self.seed_generator = tfkit.random.SeedGenerator(1337)

        def call(self, inputs, training=None):
            if training:
                return tfkit.random.dropout(inputs, rate=self.rate, seed=self.seed_generator)
            return inputs

    layer = CustomDropout(0.5)
    x = tf.ones((8, 64))
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    dropped = layer(x, training=True).numpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0}
    assert 0.3 < (dropped == 0).mean() < 0.7
    assert layer.weights == []  # the seed state is not a weight
    assert len(layer.variables) == 1


def test_mask_passed_to_layers_that_accept_it():
    received = []

    class MakesMask(tfkit.Layer):
        def compute_mask(self, inputs, mask=None):
            return tf.not_equal(inputs, 0)

    class UsesMask(tfkit.Layer):
        def call(self, inputs, mask=None):
            received.append(mask)
            return inputs

    x = tf.constant([[1.0, 0.0, 2.0]])
    out = MakesMask()(x)
    UsesMask()(out)
    np.testing.assert_array_equal(received[0].numpy(), [[True, False, True]])


def test_trainable_false_freezes_nested_layers():
    mlp = MLPBlock()
    mlp(tf.ones((2, 4)))
    mlp.linear_2.trainable = False
    assert len(mlp.trainable_weights) == 4
    assert len(mlp.non_trainable_weights) == 2
    assert len(mlp.trainable_variables) == 4
    mlp.trainable = False
    assert mlp.trainable_weights == [] and len(mlp.non_trainable_weights) == 6


def test_tf_module_views_and_checkpoint(tmp_path):
    mlp = MLPBlock()
    mlp(tf.ones((2, 4)))
    assert len(mlp.submodules) == 3
    before = [w.numpy() for w in mlp.weights]
    path = tf.train.Checkpoint(model=mlp).write(str(tmp_path / "ckpt"))
    for w in mlp.weights:
        w.assign(tf.zeros_like(w))
    tf.train.Checkpoint(model=mlp).read(path).assert_consumed()
    for b, w in zip(before, mlp.weights):
        np.testing.assert_array_equal(b, w.numpy())


def test_same_results_eager_function_and_xla():
    mlp = MLPBlock()
    x = tf.random.normal((3, 5))
    eager = mlp(x).numpy()
    graph = tf.function(lambda t: mlp(t))
    xla = tf.function(lambda t: mlp(t), jit_compile=True)
    np.testing.assert_allclose(graph(x).numpy(), eager, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xla(x).numpy(), eager, rtol=1e-5, atol=1e-6)
    graph(tf.random.normal((3, 5)))
    assert graph.experimental_get_tracing_count() == 1


def test_first_call_inside_tf_function_builds_eager_variables():
    layer = LazyLinear(3)
    fn = tf.function(lambda t: layer(t))
    out = fn(tf.ones((2, 4)))
    assert out.shape == (2, 3)
    assert len(layer.weights) == 2
    fn(tf.ones((2, 4)))
    traces = fn.experimental_get_tracing_count()  # tf.function retraces once after creating variables
    fn(tf.ones((2, 4)))
    assert fn.experimental_get_tracing_count() == traces


def test_errors_name_the_layer_path():
    mlp = MLPBlock()
    mlp(tf.ones((2, 4)))
    with pytest.raises(ValueError, match=r"'mlp_block\w*/linear_1'.*axis -1.*4.*\(2, 5\)"):
        mlp(tf.ones((2, 5)))
    with pytest.raises(ValueError, match=r"linear_1.*rank 2.*rank 3"):
        mlp(tf.ones((2, 3, 4)))


def test_unknown_initializer_string_is_a_clear_error():
    class Bad(tfkit.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(1,), initializer="not_an_initializer")

    with pytest.raises(ValueError, match="not_an_initializer"):
        Bad()(tf.ones((1, 1)))


def test_numpy_float64_inputs_are_cast_to_layer_dtype():
    layer = LazyLinear(2)
    y = layer(np.ones((1, 3)))
    assert y.dtype == tf.float32


def test_sublayers_in_lists_and_dicts_are_tracked():
    class Holder(tfkit.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = [LazyLinear(2), LazyLinear(2)]
            self.heads = {"a": LazyLinear(1)}

        def call(self, x):
            for block in self.blocks:
                x = block(x)
            return self.heads["a"](x)

    holder = Holder()
    holder(tf.ones((1, 2)))
    assert list(holder.weight_paths()) == [
        "blocks/0/w",
        "blocks/0/b",
        "blocks/1/w",
        "blocks/1/b",
        "heads/a/w",
        "heads/a/b",
    ]


def test_set_weights_checks_shapes_with_path():
    layer = LazyLinear(2)
    layer(tf.ones((1, 3)))
    with pytest.raises(ValueError, match=r"'w' has shape \(3, 2\)"):
        layer.set_weights([np.zeros((2, 2)), np.zeros(2)])
    layer.set_weights([np.ones((3, 2)), np.zeros(2)])
    np.testing.assert_array_equal(layer(tf.ones((1, 3))).numpy(), [[3.0, 3.0]])


def test_unknown_activation_and_initializer_errors_name_the_layer():
    with pytest.raises(ValueError, match=r"Dense 'head': Unknown activation 'nope'.*Known built-ins: .*relu"):
        layers.Dense(3, activation="nope", name="head")
    with pytest.raises(ValueError, match=r"Dense 'proj': Unknown initializer 'zeroes'"):
        layers.Dense(3, kernel_initializer="zeroes", name="proj")

    class LazyBad(tfkit.Layer):
        def build(self, input_shape):
            self.add_weight(shape=(1,), initializer="nope", name="scale")

    with pytest.raises(
        ValueError, match=r"Layer 'lazy_bad\w*' \(LazyBad\), weight 'scale': Unknown initializer 'nope'"
    ):
        LazyBad()(tf.ones((1, 1)))


def test_automatic_names_follow_keras_for_every_built_in_layer():
    pytest.importorskip("keras")
    from keras.src.utils.naming import to_snake_case as keras_snake_case

    from tfkit.base import registry
    from tfkit.engine.naming import to_snake_case

    names = [n for n in registry.builtin_names("layers") if n[:1].isupper()]
    assert [n for n in names if to_snake_case(n) != keras_snake_case(n)] == []
    assert to_snake_case("ConvLSTM2D") == "conv_lstm2d"  # was conv_lst_m2d: a capital before digits
    assert to_snake_case("MLP2Block") == keras_snake_case("MLP2Block") == "mlp2_block"


def test_a_class_named_with_a_leading_underscore_is_called_at_the_root_of_a_graph():
    class _Private(tfkit.Model):  # named "_private": tf.name_scope refuses it at a graph's root
        def __init__(self):
            super().__init__()
            self.dense = tfkit.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    model = _Private()
    assert model.name.startswith("__private")  # Keras 3's to_snake_case("_Private")
    assert tf.function(lambda x: model(x))(tf.zeros((3, 4))).shape == (3, 2)


def test_trainable_weights_finds_the_frozen_layers_once_per_access(monkeypatch):
    # it walked every sub-layer once per weight: 6 s for a frozen ResNet50 on a 2-core machine
    model = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(3), tfkit.layers.Dense(2)])
    model.layers[0].trainable = False
    walks = []
    original = type(model)._frozen_ids
    monkeypatch.setattr(type(model), "_frozen_ids", lambda self: walks.append(1) or original(self))
    assert [w.name for w in model.trainable_weights] == [w.name for w in model.layers[1].weights]
    assert len(walks) == 1
