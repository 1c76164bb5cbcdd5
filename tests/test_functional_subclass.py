"""``class CustomModel(tfkit.Model)`` built as ``CustomModel(inputs, outputs)`` (the customizing-fit guide)."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers


class CustomModel(tfkit.Model):
    """The guide's pattern: own trackers, own train_step and test_step."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = tfkit.metrics.Mean(name="loss")
        self.mae_metric = tfkit.metrics.MeanAbsoluteError(name="mae")

    def train_step(self, data):
        x, y, sample_weight = _unpack(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        self.loss_tracker.update_state(self.compute_loss(y=y, y_pred=y_pred))
        self.mae_metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


def _unpack(data):
    if len(data) == 3:
        return data
    return data[0], data[1], None


def _graph():
    inputs = tfkit.Input(shape=(8,))
    return inputs, layers.Dense(1)(layers.Dense(4, activation="relu")(inputs))


def _data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n, 8)).astype("float32"), rng.random((n, 1)).astype("float32")


@pytest.mark.parametrize("keywords", [False, True])
def test_subclass_built_from_inputs_and_outputs_trains_with_its_own_steps(keywords):
    inputs, outputs = _graph()
    model = CustomModel(inputs=inputs, outputs=outputs) if keywords else CustomModel(inputs, outputs)
    assert isinstance(model, CustomModel) and isinstance(model, tfkit.Functional)
    assert type(model).__name__ == "CustomModel" and model.name.startswith("custom_model")
    assert [type(l).__name__ for l in model.layers] == ["InputLayer", "Dense", "Dense"]
    model.compile(optimizer="adam", loss="mse")
    x, y = _data()
    history = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    assert sorted(history.history) == ["loss", "mae"]
    assert history.history["loss"][-1] < history.history["loss"][0]
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    expected = np.mean((model.predict(x, verbose=0) - y) ** 2)
    assert logs["loss"] == pytest.approx(expected, rel=1e-4)


def test_sample_weights_reach_the_custom_train_step():
    inputs, outputs = _graph()
    model = CustomModel(inputs, outputs)
    model.compile(optimizer=tfkit.optimizers.SGD(0.0), loss="mse")
    x, y = _data(16)
    weights = np.zeros(16, "float32")
    weights[:4] = 1.0
    logs = model.fit(x, y, sample_weight=weights, batch_size=16, epochs=1, verbose=0).history
    errors = np.abs(model.predict(x, verbose=0) - y)[:, 0]
    assert logs["mae"][0] == pytest.approx(errors[:4].mean(), rel=1e-4)


def test_subclass_that_builds_its_own_graph_in_init():
    class TwoLayer(tfkit.Model):
        def __init__(self, units=3, **kwargs):
            inputs = tfkit.Input((4,))
            outputs = layers.Dense(units)(inputs)
            super().__init__(inputs=inputs, outputs=outputs, **kwargs)
            self.units = units

    model = TwoLayer(units=5)
    assert isinstance(model, TwoLayer) and isinstance(model, tfkit.Functional)
    assert model(np.ones((2, 4), "float32")).shape == (2, 5)
    assert model.units == 5


def test_plain_subclasses_are_unaffected():
    class Plain(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    model = Plain()
    assert not isinstance(model, tfkit.Functional)
    assert model(np.ones((1, 3), "float32")).shape == (1, 2)


def test_subclass_saves_and_reloads_with_plain_custom_objects(tmp_path):
    inputs, outputs = _graph()
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse")
    x, y = _data()
    model.fit(x, y, epochs=1, verbose=0)
    model.save(tmp_path / "custom.h5")
    loaded = tfkit.load_model(tmp_path / "custom.h5", custom_objects={"CustomModel": CustomModel})
    assert type(loaded).__name__ == "CustomModel" and isinstance(loaded, CustomModel)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
    history = loaded.fit(x, y, epochs=1, verbose=0)  # still its own train_step: its own metric names
    assert sorted(history.history) == ["loss", "mae"]
