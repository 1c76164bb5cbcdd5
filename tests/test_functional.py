"""Functional API and Sequential: graphs, shapes, masks, summary, configs and errors."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


def test_input_is_symbolic_with_shape_dtype_name():
    x = tfkit.Input(shape=(3,), name="features")
    assert x.shape == (None, 3) and x.dtype == tf.float32 and x.name == "features"
    y = layers.Dense(4)(x)
    assert y.shape == (None, 4)
    with pytest.raises(TypeError, match="no value"):
        bool(x)


def test_two_inputs_two_named_outputs_residual_cnn_trains_and_summarizes():
    image = tfkit.Input((8, 8, 1), name="image")
    meta = tfkit.Input((3,), name="meta")
    x = layers.Conv2D(4, 3, padding="same", activation="relu", name="conv_a")(image)
    skip = x
    x = layers.Conv2D(4, 3, padding="same", activation="relu", name="conv_b")(x)
    x = layers.Add(name="residual")([x, skip])
    x = layers.GlobalAveragePooling2D(name="pool")(x)
    x = layers.Concatenate(name="merge")([x, meta])
    digit = layers.Dense(10, name="digit")(x)
    size = layers.Dense(1, name="size")(x)
    model = tfkit.Model([image, meta], {"digit": digit, "size": size}, name="two_heads")
    model.compile(
        tfkit.optimizers.Adam(1e-2),
        loss={"digit": tfkit.losses.SparseCategoricalCrossentropy(from_logits=True), "size": "mse"},
        metrics={"digit": ["accuracy"]},
    )
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=(64, 8, 8, 1)).astype("float32"), rng.normal(size=(64, 3)).astype("float32")]
    ys = {"digit": rng.integers(0, 10, size=64), "size": rng.normal(size=(64, 1)).astype("float32")}
    history = model.fit(xs, ys, epochs=3, batch_size=16, verbose=0)
    assert {"loss", "digit_loss", "size_loss", "digit_accuracy"} <= set(history.history)
    assert history.history["loss"][-1] < history.history["loss"][0]
    lines = []
    model.summary(print_fn=lines.append, line_length=120)  # not the terminal's width (none under pytest-xdist)
    text = "\n".join(lines)
    assert "Connected to" in text and "residual (Add)" in text and "conv_b[0][0], conv_a[0][0]" in text
    assert f"Total params: {model.count_params():,}" in text


def test_shared_layer_and_nested_model_and_feature_extraction():
    shared = layers.Dense(2, name="shared")
    a, b = tfkit.Input((3,), name="a"), tfkit.Input((3,), name="b")
    out = layers.Add()([shared(a), shared(b)])
    inner = tfkit.Model([a, b], out, name="inner")
    x1, x2 = tfkit.Input((3,)), tfkit.Input((3,))
    nested = inner([x1, x2])
    outer = tfkit.Model([x1, x2], layers.Dense(1, name="head")(nested), name="outer")
    va, vb = np.ones((2, 3), "float32"), np.full((2, 3), 2.0, "float32")
    expected_inner = va @ shared.kernel.numpy() + vb @ shared.kernel.numpy() + 2 * shared.bias.numpy()
    np.testing.assert_allclose(inner([va, vb]).numpy(), expected_inner, rtol=1e-5)
    assert len(outer.weights) == 4
    assert outer.get_layer("inner").output is out  # a functional model's own output, as in Keras 3
    extractor = tfkit.Model(outer.inputs, nested)
    np.testing.assert_allclose(extractor([va, vb]).numpy(), expected_inner, rtol=1e-5)
    assert list(inner.weight_paths()) == ["shared/kernel", "shared/bias"]


def test_masks_propagate_embedding_to_lstm():
    tokens = tfkit.Input((5,), dtype="int32")
    embedded = layers.Embedding(10, 4, mask_zero=True)(tokens)
    summary = layers.LSTM(3)(embedded)
    model = tfkit.Model(tokens, summary)
    padded = np.array([[1, 2, 0, 0, 0]], "int32")
    embedding, lstm = model.layers[1], model.layers[2]
    unpadded = lstm(embedding(tf.constant([[1, 2]], "int32")))  # padding masked = padding absent
    np.testing.assert_allclose(model(padded).numpy(), unpadded.numpy(), rtol=1e-5, atol=1e-6)


def test_training_flag_propagates_through_graph():
    x = tfkit.Input((100,))
    model = tfkit.Model(x, layers.Dropout(0.5)(x))
    ones = np.ones((4, 100), "float32")
    np.testing.assert_array_equal(model(ones).numpy(), ones)
    assert (model(ones, training=True).numpy() == 0).any()


def test_add_loss_on_symbolic_tensor():
    x = tfkit.Input((3,))
    h = layers.Dense(2)(x)
    model = tfkit.Model(x, h)
    model.add_loss(h)
    out = model(np.ones((2, 3), "float32"))
    assert len(model.losses) == 1
    np.testing.assert_allclose(float(model.losses[0]), out.numpy().mean(), rtol=1e-5)


def test_sequential_add_pop_and_build_on_first_call():
    model = tfkit.Sequential(name="stack")
    model.add(layers.Dense(4, activation="relu"))
    model.add(layers.Dense(2))
    assert not model.built
    out = model(np.ones((3, 5), "float32"))
    assert out.shape == (3, 2) and model.built
    assert len(model.layers) == 2
    popped = model.pop()
    assert isinstance(popped, layers.Dense) and len(model.layers) == 1
    with_input = tfkit.Sequential([tfkit.Input((5,)), layers.Dense(3)])
    assert with_input.output_shape == (None, 3) and with_input.built
    built_later = tfkit.Sequential([layers.Dense(3)])
    built_later.build((None, 7))
    assert built_later.layers[0].kernel.shape == (7, 3)


@pytest.mark.slow
def test_sequential_mlp_mnist_97_percent_in_3_epochs():
    tfkit.utils.set_random_seed(0)  # initial weights and shuffling: most draws give 0.975-0.978, a few 0.969
    (x_train, y_train), (x_test, y_test) = tfkit.datasets.mnist.load_data()
    x_train = x_train.reshape(-1, 784).astype("float32") / 255
    x_test = x_test.reshape(-1, 784).astype("float32") / 255
    model = tfkit.Sequential([tfkit.Input((784,)), layers.Dense(256, activation="relu"), layers.Dense(10)])
    model.compile(
        tfkit.optimizers.Adam(1e-3), tfkit.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"]
    )
    model.fit(x_train, y_train, batch_size=64, epochs=3, verbose=0)
    accuracy = model.evaluate(x_test, y_test, return_dict=True, verbose=0)["accuracy"]
    assert accuracy >= 0.97


def test_config_round_trip_with_custom_layer():
    @tfkit.saving.register_serializable(package="tests")
    class Scale(tfkit.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    x = tfkit.Input((4,), name="x")
    y = Scale(3.0, name="scale")(layers.Dense(2, name="d")(x))
    model = tfkit.Model(x, y, name="cfg")
    rebuilt = tfkit.Model.from_config(model.get_config())
    assert [type(l).__name__ for l in rebuilt.layers] == [type(l).__name__ for l in model.layers]
    assert rebuilt.count_params() == model.count_params()
    assert rebuilt.get_layer("scale").factor == 3.0
    json_twin = tfkit.models.model_from_json(model.to_json())
    assert json_twin.count_params() == model.count_params()
    seq = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(3), Scale(0.5)])
    seq_twin = tfkit.models.clone_model(seq)
    assert seq_twin.count_params() == seq.count_params()
    assert not np.allclose(seq_twin.layers[0].kernel.numpy(), seq.layers[0].kernel.numpy())


def test_errors_wrong_inputs_and_incompatible_layers_and_disconnected_graph():
    a, b = tfkit.Input((3,), name="a"), tfkit.Input((2,), name="b")
    model = tfkit.Model([a, b], layers.Concatenate()([a, b]), name="pair")
    with pytest.raises(ValueError, match=r"expects 2 input\(s\).*got 1"):
        model(np.ones((1, 3), "float32"))
    with pytest.raises(ValueError, match=r"Input 'b'.*rank 2.*rank 3"):
        model([np.ones((1, 3), "float32"), np.ones((1, 2, 4), "float32")])
    with pytest.raises(ValueError, match=r"Input 'b'.*axis 1 is 5, expected 2"):
        model([np.ones((1, 3), "float32"), np.ones((1, 5), "float32")])
    dense = layers.Dense(4, name="d4")
    dense(tfkit.Input((3,)))
    with pytest.raises(ValueError, match=r"d4.*\(None, 5\)"):
        dense(tfkit.Input((5,)))
    orphan = tfkit.Input((3,), name="orphan")
    with pytest.raises(ValueError, match=r"Graph disconnected.*'orphan'"):
        tfkit.Model(a, layers.Add()([a, orphan]))


def test_dict_inputs_in_any_key_order():
    b, a = tfkit.Input((2,), name="b"), tfkit.Input((3,), name="a")
    model = tfkit.Model({"b": b, "a": a}, layers.Concatenate()([a, b]))
    out = model({"b": np.zeros((1, 2), "float32"), "a": np.ones((1, 3), "float32")})
    np.testing.assert_array_equal(out.numpy(), [[1, 1, 1, 0, 0]])


def test_a_graph_thousands_of_calls_deep_builds_and_names_a_disconnected_input():
    # The topological sort was recursive: a shared layer applied 1,000 times (a 60 KB model file) was a
    # RecursionError, and the path in its error messages made it quadratic.
    x = tfkit.Input((4,), name="x")
    shared, h = layers.Dense(4, name="shared"), x
    for _ in range(1500):  # past Python's recursion limit (1,000), which the old sort hit
        h = shared(h)
    model = tfkit.Model(x, h)
    assert len(model.functional_graph.nodes) == 1500
    other = tfkit.Input((4,), name="other")
    deep = other
    for i in range(1100):
        deep = layers.Identity(name=f"id_{i}")(deep)
    with pytest.raises(ValueError, match=r"Graph disconnected: output depends on input 'other'.*Path: id_0 -> id_1"):
        tfkit.Model(x, layers.Add()([h, deep]))
