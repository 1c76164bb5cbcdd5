"""Arrays given ``steps`` but no ``batch_size`` are split into ``steps`` batches covering every sample (Keras 3).

keras-io's VAE predicts 60,000 digits under ``config.set_max_steps_per_epoch(3)``:
Keras returns 60,000 rows (three batches of 20,000); a fixed batch of 32 would return 96.
"""

import numpy as np
import pytest

import tfkit
from tfkit.training import data as data_module


def _model():
    inputs = tfkit.Input((2,))
    model = tfkit.Model(inputs, tfkit.layers.Dense(1, kernel_initializer="ones")(inputs))
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_default_batch_size():
    assert data_module.default_batch_size(1000, 3) == 334  # ceil(1000 / 3)
    assert data_module.default_batch_size(1000, None) == 32
    assert data_module.default_batch_size(10, 30) == 1


def test_predict_with_steps_covers_all_samples():
    x = np.arange(2000, dtype="float32").reshape(1000, 2)
    out = _model().predict(x, steps=3, verbose=0)
    assert out.shape == (1000, 1)
    np.testing.assert_allclose(out[:, 0], x.sum(axis=1))


def test_predict_under_max_steps_cap_covers_all_samples():
    x = np.ones((1000, 2), dtype="float32")
    tfkit.config.set_max_steps_per_epoch(3)
    try:
        with pytest.warns(UserWarning, match="limiting steps"):
            out = _model().predict(x, verbose=0)
    finally:
        tfkit.config.set_max_steps_per_epoch(None)
    assert out.shape == (1000, 1)


def test_explicit_batch_size_still_wins():
    x = np.ones((1000, 2), dtype="float32")
    out = _model().predict(x, steps=3, batch_size=32, verbose=0)
    assert out.shape == (96, 1)


def test_fit_steps_per_epoch_sees_all_samples_once():
    x = np.ones((90, 2), dtype="float32")
    y = np.zeros((90, 1), dtype="float32")
    model = _model()
    seen = []

    class Count(tfkit.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(batch)

    model.fit(x, y, steps_per_epoch=3, epochs=1, verbose=0, callbacks=[Count()])
    assert len(seen) == 3
    data = data_module.adapt(x, y, steps_per_epoch=3)
    assert data.batch_size == 30


def test_validation_split_batches_each_part_by_its_steps():
    x = np.ones((100, 2), dtype="float32")
    y = np.zeros((100, 1), dtype="float32")
    data = data_module.adapt(x, y, steps_per_epoch=4)
    train, val = data_module.split_validation(data, 0.2, None, 4, 2)
    assert (train.batch_size, val.batch_size) == (20, 10)  # ceil(80 / 4), ceil(20 / 2)
    train, val = data_module.split_validation(data_module.adapt(x, y, batch_size=16), 0.2, 16, 4, 2)
    assert (train.batch_size, val.batch_size) == (16, 16)


def test_same_rows_as_keras():
    keras = pytest.importorskip("keras")
    x = np.ones((1000, 2), dtype="float32")
    inputs = keras.Input((2,))
    kmodel = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    assert kmodel.predict(x, steps=3, verbose=0).shape == _model().predict(x, steps=3, verbose=0).shape
