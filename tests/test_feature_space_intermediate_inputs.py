"""A model may start at intermediate tensors, as in Keras 3 (keras-io's FeatureSpace example does this).

encoded = feature_space.get_encoded_features()
training_model = tfkit.Model(inputs=encoded, outputs=predictions)   # a new Input replaces `encoded`
"""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


def _graph():
    raw = tfkit.Input(shape=(3,), name="raw")
    features = layers.Dense(4, name="encode")(raw)
    hidden = layers.Dense(5, activation="relu", name="hidden")(features)
    out = layers.Dense(1, name="head")(hidden)
    return raw, features, out


def test_a_model_from_an_intermediate_tensor_runs_the_layers_after_it(tmp_path):
    raw, features, out = _graph()
    head_model = tfkit.Model(inputs=features, outputs=out)
    full_model = tfkit.Model(inputs=raw, outputs=out)
    assert [l.name for l in head_model.layers] == ["encodeCLONE", "hidden", "head"]
    assert head_model.inputs[0].shape == (None, 4)
    x = np.random.default_rng(0).random((6, 3)).astype("float32")
    encoded = full_model.get_layer("encode")(x)
    np.testing.assert_allclose(head_model.predict(encoded, verbose=0), full_model.predict(x, verbose=0), rtol=1e-5)
    # The layers are shared: training the head model changes the full model's predictions the same way.
    head_model.compile(optimizer="sgd", loss="mse")
    head_model.fit(encoded, np.ones((6, 1)), epochs=1, verbose=0)
    np.testing.assert_allclose(head_model.predict(encoded, verbose=0), full_model.predict(x, verbose=0), rtol=1e-5)
    for suffix in ("h5", "keras"):
        head_model.save(tmp_path / f"head.{suffix}")
        again = tfkit.models.load_model(tmp_path / f"head.{suffix}")
        np.testing.assert_allclose(again.predict(encoded, verbose=0), head_model.predict(encoded, verbose=0), rtol=1e-6)
    # The full model still runs from its own Input (its nodes were not rewired).
    assert [l.name for l in full_model.layers] == ["raw", "encode", "hidden", "head"]


def test_mixed_inputs_and_a_disconnected_graph():
    raw, features, out = _graph()
    side = tfkit.Input(shape=(5,), name="side")
    joined = layers.Add(name="join")([layers.Dense(5, name="proj")(features), side])
    model = tfkit.Model(inputs=[features, side], outputs=joined)
    assert [t.shape for t in model.inputs] == [(None, 4), (None, 5)]
    got = model.predict([np.ones((2, 4), "float32"), np.ones((2, 5), "float32")], verbose=0)
    want = model.get_layer("proj")(tf.ones((2, 4))) + 1.0
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="Graph disconnected.*'raw'"):
        tfkit.Model(inputs=features, outputs=layers.Add()([out, layers.Dense(1)(raw)]))
