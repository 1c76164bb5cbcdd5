"""Helpers the Keras-3-layer tests share: copy Keras weights by name, h5 and config round trips, a compiled fit.

copy_keras_weights(keras_layer, tfkit_layer)        # names, shapes and order must agree
h5_round_trip(lambda: layers.AdaptiveMaxPooling1D(3), x, tmp_path)
fit_once(model, x, y)
"""

from __future__ import annotations

import json

import numpy as np
import tensorflow as tf

import tfkit


def weight_name(variable) -> str:
    """``"kernel"`` from ``"conv_lstm2d/kernel"`` or ``"kernel:0"``."""
    path = getattr(variable, "path", None) or variable.name
    return path.split("/")[-1].split(":")[0]


def copy_keras_weights(keras_layer, tfkit_layer) -> None:
    """Give ``tfkit_layer`` the Keras layer's weights, checking names, shapes and order agree."""
    theirs = [(weight_name(w), tuple(w.shape)) for w in keras_layer.weights]
    ours = [(weight_name(w), tuple(w.shape)) for w in tfkit_layer.weights]
    assert ours == theirs
    for mine, their in zip(tfkit_layer.weights, keras_layer.weights):
        mine.assign(np.asarray(their))


def perturb(layer, seed: int = 0) -> None:
    """Replace every float weight with small random numbers (so zero biases do not hide mistakes)."""
    rng = np.random.RandomState(seed)
    for weight in layer.weights:
        weight.assign(rng.uniform(-0.5, 0.5, weight.shape).astype(np.dtype(tf.as_dtype(weight.dtype).as_numpy_dtype)))


def config_round_trip(layer) -> None:
    """``from_config(get_config())`` through JSON gives the same config."""
    config = json.loads(json.dumps(layer.get_config()))
    twin = type(layer).from_config(config)
    assert json.loads(json.dumps(twin.get_config())) == config


def h5_round_trip(make_layer, data, tmp_path, dtype: str = "float32"):
    """A functional model around ``make_layer()`` predicts the same after save/load through ``.h5``."""
    inputs = tfkit.Input(data.shape[1:], dtype=dtype)
    layer = make_layer()
    model = tfkit.Model(inputs, layer(inputs))
    if layer.weights:
        perturb(layer)
    path = str(tmp_path / "model.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    expected = model.predict(data, verbose=0)
    for e, g in zip(tf.nest.flatten(expected), tf.nest.flatten(loaded.predict(data, verbose=0))):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)
    twin = loaded.get_layer(layer.name)
    assert type(twin) is type(layer) and twin.get_config() == layer.get_config()
    return loaded


def fit_once(model, x, y, loss: str = "mse") -> None:
    """A compiled ``fit`` moves the weights and gives a finite loss."""
    model.compile(optimizer=tfkit.optimizers.SGD(0.05), loss=loss)
    before = [w.numpy().copy() for w in model.trainable_weights]
    history = model.fit(x, y, batch_size=2, epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert any(not np.allclose(b, w.numpy()) for b, w in zip(before, model.trainable_weights))
