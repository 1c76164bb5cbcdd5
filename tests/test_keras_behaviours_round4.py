"""Two Keras 3 behaviours held-out keras-io examples rely on, checked against Keras in this process.

1. ``compile(loss=[loss_fn, None])`` on a two-output model fitted with one ``y``: the target goes to the
   only output that has a loss (Keras's ``CompileLoss``); other counts raise Keras's "y_true and y_pred
   have different structures". Same weights, same loss, as Keras.
2. ``model.optimizer = ...``: a ``compile`` override that sets its own optimizer after ``super().compile``,
   and the GAN pattern whose ``compile`` keeps ``d_optimizer`` / ``g_optimizer``: the compiled step uses the
   optimizer assigned, files save it, and an optimizer held as an attribute is no weight of the model.
"""

import warnings

import numpy as np
import pytest
import tensorflow as tf

import tfkit

keras = pytest.importorskip("keras")

FRAMEWORKS = (keras, tfkit)
RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, (8, 3)).astype("float32")
YA = RNG.uniform(-1, 1, (8, 2)).astype("float32")  # the target of output "a" (2 units)
YB = RNG.uniform(-1, 1, (8, 1)).astype("float32")  # the target of output "b" (1 unit)


def _two_outputs(mod):
    inputs = mod.Input((3,))
    return mod.Model(inputs, [mod.layers.Dense(2, name="a")(inputs), mod.layers.Dense(1, name="b")(inputs)])


def _pair(build):
    """The same model in Keras and tfkit, with Keras's initial weights in both."""
    keras.utils.set_random_seed(0)
    k_model, t_model = build(keras), build(tfkit)
    t_model.set_weights([np.asarray(w) for w in k_model.get_weights()])
    return k_model, t_model


def _mse(y, p):
    return float(np.mean((np.asarray(p, "float64") - y) ** 2))


# --------------------------------------------------------------- 1. loss=[fn, None] with one target


@pytest.mark.parametrize(
    "loss,y,output",
    [(["mse", None], YA, 0), ([None, "mse"], YB, 1), (["mse", None], [YA], 0), (["mse", None], (YA,), 0)],
    ids=["first-output", "second-output", "one-target-list", "one-target-tuple"],
)
def test_one_target_goes_to_the_only_output_with_a_loss_as_in_keras(loss, y, output):
    k_model, t_model = _pair(_two_outputs)
    expected = _mse(YA if output == 0 else YB, k_model.predict(X, verbose=0)[output])
    for model, sgd in ((k_model, keras.optimizers.SGD), (t_model, tfkit.optimizers.SGD)):
        model.compile(optimizer=sgd(0.1), loss=loss)
    k_loss = k_model.evaluate(X, y, verbose=0, batch_size=8)
    t_loss = t_model.evaluate(X, y, verbose=0, batch_size=8)
    np.testing.assert_allclose([t_loss, k_loss], [expected, expected], rtol=1e-5)
    for model in (k_model, t_model):  # one SGD step on the one loss: the same weights after it
        model.fit(X, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    for k_w, t_w in zip(k_model.get_weights(), t_model.get_weights()):
        np.testing.assert_allclose(np.asarray(t_w), np.asarray(k_w), rtol=1e-5, atol=1e-6)


def test_loss_weights_and_sample_weights_apply_to_the_paired_output_as_in_keras():
    k_model, t_model = _pair(_two_outputs)
    sample_weight = RNG.uniform(0.5, 2.0, 8).astype("float32")
    values = []
    for model, sgd in ((k_model, keras.optimizers.SGD), (t_model, tfkit.optimizers.SGD)):
        model.compile(optimizer=sgd(0.1), loss=[None, "mae"], loss_weights=[5.0, 3.0])
        values.append(model.evaluate(X, YB, sample_weight=sample_weight, verbose=0, batch_size=8))
    error = np.abs(np.asarray(k_model.predict(X, verbose=0)[1], "float64") - YB).mean(axis=-1)
    np.testing.assert_allclose(values, [3.0 * np.mean(error * sample_weight)] * 2, rtol=1e-5)


def test_a_dict_loss_with_a_none_value_pairs_one_target_too_where_keras_raises_a_key_error():
    k_model, t_model = _pair(_two_outputs)
    k_model.compile(optimizer="sgd", loss={"a": "mse", "b": None})
    with pytest.raises(KeyError, match="can't be found"):  # Keras 3.15: its own pairing fails for a dict
        k_model.evaluate(X, YA, verbose=0)
    t_model.compile(optimizer="sgd", loss={"a": "mse", "b": None})
    expected = _mse(YA, k_model.predict(X, verbose=0)[0])
    np.testing.assert_allclose(t_model.evaluate(X, YA, verbose=0, batch_size=8), expected, rtol=1e-5)


@pytest.mark.parametrize("loss", [["mse", "mse"], [None, None]], ids=["two-losses", "no-loss"])
def test_other_counts_raise_keras_error_in_both(loss):
    for mod in FRAMEWORKS:
        model = _two_outputs(mod)
        model.compile(optimizer="sgd", loss=loss)
        with pytest.raises(ValueError, match="y_true and y_pred have different structures"):
            model.evaluate(X, YA, verbose=0)


def test_metrics_of_the_paired_output_match_keras_and_none_is_computed_against_another_target():
    k_model, t_model = _pair(_two_outputs)
    for model in (k_model, t_model):
        model.compile(optimizer="sgd", loss=["mse", None], metrics=[["mae"], None])
    k_logs = k_model.evaluate(X, YA, verbose=0, return_dict=True, batch_size=8)
    t_logs = t_model.evaluate(X, YA, verbose=0, return_dict=True, batch_size=8)
    assert set(t_logs) == set(k_logs) == {"loss", "a_mae"}
    np.testing.assert_allclose(t_logs["a_mae"], k_logs["a_mae"], rtol=1e-5)

    # Keras 3 computes output a's metrics against output b's target here; tfkit leaves them out, with a warning
    k_model, t_model = _pair(_two_outputs)
    for model in (k_model, t_model):
        model.compile(optimizer="sgd", loss=[None, "mse"], metrics=[["mae"], ["mae"]])
    k_logs = k_model.evaluate(X, YB, verbose=0, return_dict=True, batch_size=8)
    k_a = np.asarray(k_model.predict(X, verbose=0)[0], "float64")
    np.testing.assert_allclose(k_logs["a_mae"], np.abs(k_a - YB).mean(), rtol=1e-5)  # a's prediction vs b's target
    with pytest.warns(UserWarning, match="output 'a' the metrics \\['mae'\\].*not computed"):
        t_logs = t_model.evaluate(X, YB, verbose=0, return_dict=True, batch_size=8)
    b_error = np.abs(np.asarray(t_model.predict(X, verbose=0)[1], "float64") - YB).mean()
    assert set(t_logs) == {"loss", "b_mae"}  # Keras 3 drops b's metric: its list holds only output a's
    np.testing.assert_allclose(t_logs["b_mae"], b_error, rtol=1e-5)


# --------------------------------------------------------------- 2. model.optimizer = ...


def _one_dense(mod):
    inputs = mod.Input((3,))
    return mod.Model(inputs, mod.layers.Dense(1, name="d")(inputs))


def _compiling_its_own_adam(mod):
    """keras-io's pattern: a ``compile`` override that sets the optimizer after ``super().compile``."""

    class OwnAdam(mod.Model):
        def compile(self, learning_rate, **kwargs):
            super().compile(**kwargs)
            self.optimizer = mod.optimizers.Adam(learning_rate)

    inputs = mod.Input((3,))
    return OwnAdam(inputs, mod.layers.Dense(1, name="d")(inputs))


def test_an_optimizer_assigned_in_compile_trains_the_model_as_in_keras():
    k_model, t_model = _pair(_compiling_its_own_adam)
    for model in (k_model, t_model):
        model.compile(0.05, loss="mse")
        assert type(model.optimizer).__name__ == "Adam"
        model.fit(X, YB, batch_size=4, epochs=2, verbose=0, shuffle=False)
        assert int(model.optimizer.iterations) == 4
    for k_w, t_w in zip(k_model.get_weights(), t_model.get_weights()):
        np.testing.assert_allclose(np.asarray(t_w), np.asarray(k_w), rtol=1e-5, atol=1e-6)


def test_an_optimizer_assigned_after_a_fit_replaces_the_one_the_compiled_step_used():
    model = _one_dense(tfkit)
    model.compile(optimizer=tfkit.optimizers.SGD(0.1), loss="mse")
    model.fit(X, YB, batch_size=8, epochs=1, verbose=0)
    first = model.optimizer
    model.optimizer = tfkit.optimizers.Adam(0.01)
    kernel = model.get_weights()[0].copy()
    model.fit(X, YB, batch_size=8, epochs=1, verbose=0, shuffle=False)
    assert int(first.iterations) == 1 and int(model.optimizer.iterations) == 1
    # Adam's first step moves every weight by the learning rate (m / sqrt(v) = +-1)
    np.testing.assert_allclose(np.abs(model.get_weights()[0] - kernel), 0.01, rtol=1e-3)


def test_before_compile_an_assigned_optimizer_is_replaced_by_compiles_as_in_keras():
    for mod in FRAMEWORKS:
        model = _one_dense(mod)
        model.optimizer = mod.optimizers.Adam()
        assert type(model.optimizer).__name__ == "Adam"
        model.compile(loss="mse")
        assert type(model.optimizer).__name__ == "RMSprop"


def test_an_assigned_optimizer_and_its_state_are_saved_and_loaded(tmp_path):
    model = _one_dense(tfkit)
    model.compile(loss="mse")
    model.optimizer = tfkit.optimizers.Adam(0.05)
    model.fit(X, YB, batch_size=4, epochs=1, verbose=0)
    for name in ("m.keras", "m.h5"):
        model.save(tmp_path / name)
        loaded = tfkit.models.load_model(tmp_path / name)
        # Keras 3 saves Adam's state, but compile's RMSprop in compile_config: its loaded model starts RMSprop afresh
        assert type(loaded.optimizer).__name__ == "Adam", name
        assert int(loaded.optimizer.iterations) == 2
        for mine, theirs in zip(model.optimizer.variables, loaded.optimizer.variables):
            np.testing.assert_array_equal(np.asarray(theirs), np.asarray(mine))


def test_no_optimizer_evaluates_in_both_and_fit_says_so_in_tfkit():
    for mod in FRAMEWORKS:
        model = _one_dense(mod)
        model.compile(optimizer="sgd", loss="mse")
        model.optimizer = None
        assert model.optimizer is None
        assert np.isfinite(model.evaluate(X, YB, verbose=0))
    with pytest.raises(ValueError, match="has no optimizer to train with"):  # Keras: an AttributeError on None
        model.fit(X, YB, verbose=0)
    with pytest.raises(ValueError, match="model.optimizer must be"):
        model.optimizer = 3


def _gan(mod):
    """keras-io's GAN pattern: ``compile`` keeps two optimizers and calls ``super().compile()`` without one."""

    class TwoOptimizers(mod.Model):
        def __init__(self):
            super().__init__()
            self.d = mod.layers.Dense(1, name="d")
            self.g = mod.layers.Dense(1, name="g")

        def call(self, x):
            return self.d(x) + self.g(x)

        def compile(self, d_optimizer, g_optimizer):
            super().compile()
            self.d_optimizer = d_optimizer
            self.g_optimizer = g_optimizer

        def train_step(self, data):
            x, y = data
            with tf.GradientTape(persistent=True) as tape:
                loss = mod.ops.mean((self(x) - y) ** 2)
            self.d_optimizer.apply(tape.gradient(loss, self.d.trainable_weights), self.d.trainable_weights)
            self.g_optimizer.apply(tape.gradient(loss, self.g.trainable_weights), self.g.trainable_weights)
            return {"loss": loss}

    return TwoOptimizers()


def test_the_gan_pattern_trains_as_in_keras_and_its_optimizers_are_no_weights():
    models = []
    for mod in FRAMEWORKS:
        model = _gan(mod)
        model(X[:1])
        models.append(model)
    k_model, t_model = models
    t_model.set_weights([np.asarray(w) for w in k_model.get_weights()])
    for mod, model in zip(FRAMEWORKS, models):
        model.compile(mod.optimizers.Adam(0.01), mod.optimizers.SGD(0.1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, YB, batch_size=4, epochs=1, verbose=0, shuffle=False)
        assert int(model.d_optimizer.iterations) == int(model.g_optimizer.iterations) == 2
        assert len(model.weights) == len(model.variables) == 4  # kernels and biases only, no optimizer slots
    for k_w, t_w in zip(k_model.get_weights(), t_model.get_weights()):
        np.testing.assert_allclose(np.asarray(t_w), np.asarray(k_w), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "metrics, weighted_metrics",
    [(None, ["mae"]), (["mae"], ["mae"]), (["mae", "mse"], ["mae", "mae"])],
    ids=["weighted alone", "one clash", "a clash twice"],
)
def test_weighted_metrics_are_logged_under_keras_names(metrics, weighted_metrics):
    """A weighted metric keeps its name unless an unweighted one has it (then weighted_<name>, _1, ...);
    tfkit logged every weighted metric as weighted_<name> (KerasHub's CausalLM logs sparse_categorical_accuracy)."""
    names = {}
    for lib in (keras, tfkit):
        model = lib.Sequential([lib.Input((3,)), lib.layers.Dense(2)])
        model.compile("sgd", "mse", metrics=metrics, weighted_metrics=weighted_metrics)
        names[lib.__name__] = list(model.fit(np.ones((4, 3)), np.zeros((4, 2)), verbose=0).history)
    assert names["tfkit"] == names["keras"]


def test_a_sub_layer_made_trainable_after_its_parent_was_frozen_trains_as_in_keras():
    """Keras 3's `trainable` is a flag of each variable: freezing a block freezes its sub-layers, and one set
    trainable again afterwards trains (KerasHub's enable_lora relies on it); tfkit froze everything under a
    frozen parent."""
    found = {}
    for lib in (keras, tfkit):
        inputs = lib.Input((4,))
        block = lib.Sequential([lib.layers.Dense(3, name="first"), lib.layers.Dense(2, name="second")], name="block")
        model = lib.Model(inputs, block(inputs))
        block.trainable = False
        block.layers[1].trainable = True
        found[lib.__name__] = (
            sorted(tuple(w.shape) for w in model.trainable_weights),
            sorted(tuple(w.shape) for w in model.non_trainable_weights),
            len(block.trainable_weights),
        )
    assert found["tfkit"] == found["keras"]


def test_save_weights_of_a_model_compiled_but_not_trained_stores_the_optimizer_as_keras_does(tmp_path):
    """Keras's save_weights stores an optimizer not yet built as it stands (its counter and learning rate), and
    its load_weights warns of any other count; tfkit stored it built (2 + 2 per weight for Adam)."""
    h5py = pytest.importorskip("h5py")
    counts = {}
    for lib in (keras, tfkit):
        model = lib.Sequential([lib.Input((3,)), lib.layers.Dense(2)])
        model.compile(optimizer=lib.optimizers.Adam(), loss="mse")
        path = str(tmp_path / f"{lib.__name__}.weights.h5")
        model.save_weights(path)
        with h5py.File(path) as f:
            counts[lib.__name__] = len(f["optimizer/vars"])
    assert counts["tfkit"] == counts["keras"] == 2
    twin = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    twin.compile(optimizer=keras.optimizers.Adam(), loss="mse")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Keras's "Skipping variable loading for optimizer" would fail here
        twin.load_weights(str(tmp_path / "tfkit.weights.h5"))
