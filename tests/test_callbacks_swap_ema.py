"""SwapEMAWeights (issue 19): evaluation on the optimizer's EMA weights, training on the raw ones, as in Keras 3."""

import numpy as np
import pytest

import tfkit
from tfkit import callbacks, layers, optimizers

RNG = np.random.default_rng(3)
X = RNG.normal(size=(32, 3)).astype("float32")
Y = (X @ RNG.normal(size=(3, 1))).astype("float32")
X_VAL = RNG.normal(size=(8, 3)).astype("float32")
Y_VAL = (X_VAL @ RNG.normal(size=(3, 1))).astype("float32")
WEIGHTS = [RNG.normal(size=(3, 1)).astype("float32"), np.zeros(1, "float32")]


def _model(module=tfkit, optimizer=None):
    model = module.Sequential([module.Input((3,)), module.layers.Dense(1)])
    model.set_weights(WEIGHTS)
    model.compile(optimizer or module.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.7), "mse")
    return model


def _fit(model, *extra, epochs=3):
    return model.fit(
        X,
        Y,
        batch_size=8,
        epochs=epochs,
        shuffle=False,
        verbose=0,
        validation_data=(X_VAL, Y_VAL),
        callbacks=list(extra),
    ).history


def _mse(weights):
    kernel, bias = weights
    return float(np.mean((X_VAL @ kernel + bias - Y_VAL) ** 2))


@pytest.mark.parametrize("swap_on_epoch", [False, True])
def test_validation_runs_on_ema_weights_and_training_on_raw_ones(swap_on_epoch):
    plain = _model()
    averages = []
    record = callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: averages.append([a.numpy() for _, a in plain.optimizer.ema_pairs()])
    )
    expected = _fit(plain, record)
    swapped = _model()
    got = _fit(swapped, callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch))
    assert got["loss"] == pytest.approx(expected["loss"], rel=1e-6)  # training is unchanged
    assert got["val_loss"] == pytest.approx([_mse(a) for a in averages], rel=1e-5)
    assert got["val_loss"] != pytest.approx(expected["val_loss"], rel=1e-3)
    for a, b in zip(swapped.get_weights(), plain.get_weights()):  # both end on the EMA weights
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("swap_on_epoch", [False, True])
def test_matches_keras(swap_on_epoch):
    keras = pytest.importorskip("keras")
    expected = _fit(_model(keras), keras.callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch))
    got = _fit(_model(), callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch))
    for key in ("loss", "val_loss"):
        assert got[key] == pytest.approx(expected[key], rel=1e-5)


def test_swap_on_epoch_shows_ema_weights_to_the_callbacks_after_it():
    model = _model()
    seen = []

    def check(epoch, logs):
        seen.append((model.get_weights(), [a.numpy() for _, a in model.optimizer.ema_pairs()]))

    _fit(model, callbacks.SwapEMAWeights(swap_on_epoch=True), callbacks.LambdaCallback(on_epoch_end=check))
    plain = _model()
    averages = []
    _fit(
        plain,
        callbacks.LambdaCallback(
            on_epoch_end=lambda e, l: averages.append(
                (
                    [v.numpy() for v, _ in plain.optimizer.ema_pairs()],
                    [a.numpy() for _, a in plain.optimizer.ema_pairs()],
                )
            )
        ),
    )
    for (weights, stored), (raw, ema) in zip(seen[:-1], averages[:-1]):
        for a, b in zip(weights, ema):  # the model holds the EMA weights at the epoch's end
            np.testing.assert_allclose(a, b, rtol=1e-6)
        for a, b in zip(stored, raw):  # and the optimizer keeps the raw ones meanwhile
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_predict_and_evaluate_swap_back_when_they_end():
    model = _model()
    model.fit(X, Y, batch_size=8, epochs=1, verbose=0)
    # fit ended on the EMA weights (finalize_variable_values): one more step makes weights and averages differ
    model.train_on_batch(X[:8], Y[:8])
    raw = [w.copy() for w in model.get_weights()]
    ema = [a.numpy() for _, a in model.optimizer.ema_pairs()]
    assert not np.allclose(raw[0], ema[0])
    swap = callbacks.SwapEMAWeights()
    predictions = model.predict(X_VAL, verbose=0, callbacks=[swap])
    np.testing.assert_allclose(predictions, X_VAL @ ema[0] + ema[1], rtol=1e-5, atol=1e-6)
    for a, b in zip(model.get_weights(), raw):  # Keras 3.15 leaves the EMA weights in the model here
        np.testing.assert_array_equal(a, b)
    loss = model.evaluate(X_VAL, Y_VAL, verbose=0, callbacks=[swap])
    assert loss == pytest.approx(_mse(ema), rel=1e-5)
    for a, b in zip(model.get_weights(), raw):
        np.testing.assert_array_equal(a, b)


def test_before_the_first_step_there_is_nothing_to_swap():
    model = _model()
    loss = model.evaluate(X_VAL, Y_VAL, verbose=0, callbacks=[callbacks.SwapEMAWeights()])
    assert loss == pytest.approx(_mse(WEIGHTS), rel=1e-5)  # the averages are not made yet: the weights are used


def test_multi_optimizer_swaps_only_the_inner_optimizers_with_ema():
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(2, name="a"), layers.Dense(1, name="b")])
    multi = optimizers.MultiOptimizer(
        optimizers.OptimizerMap(optimizers.SGD(0.05), {"a/.*": optimizers.SGD(0.05, use_ema=True, ema_momentum=0.5)})
    )
    model.compile(multi, "mse")
    model.fit(X, Y, batch_size=8, epochs=1, verbose=0)
    model.train_on_batch(X[:8], Y[:8])
    raw = [w.copy() for w in model.get_weights()]
    ema_a = [a.numpy() for _, a in multi.optimizers[0].ema_pairs()]
    predictions = model.predict(X_VAL, verbose=0, callbacks=[callbacks.SwapEMAWeights()])
    np.testing.assert_allclose(predictions, (X_VAL @ ema_a[0] + ema_a[1]) @ raw[2] + raw[3], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "optimizer, message",
    [
        (lambda: optimizers.SGD(0.1), r"use_ema=True.*Received: SGD\(use_ema=False\)"),
        (
            lambda: optimizers.MultiOptimizer(optimizers.OptimizerMap(optimizers.SGD())),
            "at least one inner optimizer has use_ema=True",
        ),
    ],
)
def test_without_ema_the_error_says_so(optimizer, message):
    model = _model(optimizer=optimizer())
    with pytest.raises(ValueError, match=message):
        _fit(model, callbacks.SwapEMAWeights(), epochs=1)
