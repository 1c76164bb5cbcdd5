"""SHAP's GradientExplainer and DeepExplainer on tfkit models, through `tfkit_integrations.shap.for_shap`.

SHAP's own explainers refuse a tfkit model (they test for `tf.keras.Model`);
`for_shap(model)` hands them a Keras model whose one layer calls the tfkit model.
The numbers are checked against a hand value (a linear model's attributions are
its weights times the distance from the background), SHAP's additivity
(DeepExplainer's attributions add up to f(x) - E[f(background)]), and Keras 3
running SHAP on the same network with the same weights, built by the same code
with `keras` in place of `tfkit`. SHAP not installed skips the file; Keras not
installed skips the comparisons with it.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
import tensorflow as tf

import tfkit

shap = pytest.importorskip("shap")
for_shap = pytest.importorskip("tfkit_integrations.shap").for_shap

pytestmark = [
    pytest.mark.filterwarnings("ignore:Your TensorFlow version is newer:UserWarning"),  # SHAP, on every DeepExplainer
    pytest.mark.filterwarnings("ignore:The structure of `inputs`:UserWarning"),  # Keras, SHAP calling the Keras twins
]


@pytest.fixture(scope="module")
def keras():
    return pytest.importorskip("keras")


def data(shape, n=12, seed=0):
    """n samples of the given feature shape: the first 8 are the background, the rest are explained."""
    x = np.random.default_rng(seed).normal(size=(n, *shape)).astype("float32")
    return x[:8], x[8:]


def network(lib, kind):
    """The same network in `tfkit` or `keras` (`lib` is the module)."""
    layers = lib.layers
    if kind == "dense":
        return lib.Sequential(
            [lib.Input((4,)), layers.Dense(6, activation="relu"), layers.Dense(3, activation="softmax")]
        )
    if kind == "batch_norm_dropout":  # explained in inference: moving statistics, no dropout
        return lib.Sequential(
            [
                lib.Input((4,)),
                layers.Dense(6),
                layers.BatchNormalization(),
                layers.Activation("tanh"),
                layers.Dropout(0.5),
                layers.Dense(2),
            ]
        )
    if kind == "conv":
        return lib.Sequential(
            [
                lib.Input((6, 6, 2)),
                layers.Conv2D(3, 3, activation="relu"),
                layers.MaxPooling2D(2),
                layers.Flatten(),
                layers.Dense(2, activation="sigmoid"),
            ]
        )
    raise ValueError(kind)


def twins(keras, kind):
    """A tfkit network and the Keras 3 one with the same weights."""
    model = network(tfkit, kind)
    for layer in model.layers:
        if isinstance(layer, tfkit.layers.BatchNormalization):  # statistics that change the numbers
            layer.moving_mean.assign(np.linspace(-0.5, 0.5, 6))
            layer.moving_variance.assign(np.linspace(0.5, 2.0, 6))
    twin = network(keras, kind)
    twin.set_weights(model.get_weights())
    return model, twin


def output_gap(values, outputs, expected):
    """Sum of the attributions over the features, minus f(x) - E[f(background)], per sample and output."""
    values = np.asarray(values)
    return values.reshape(len(values), -1, values.shape[-1]).sum(axis=1) - (outputs - np.asarray(expected))


def test_shaps_own_explainers_refuse_a_tfkit_model():
    model = network(tfkit, "dense")
    background, _ = data((4,))
    for explainer in (shap.DeepExplainer, shap.GradientExplainer):
        with pytest.raises(ValueError, match="not currently a supported model type"):
            explainer(model, background)


def test_deep_explainer_gives_a_linear_models_weights_times_the_distance_from_the_background_mean():
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    kernel = model.layers[0].kernel.numpy()
    background, x = data((3,))
    explainer = shap.DeepExplainer(for_shap(model), background)
    values = explainer.shap_values(x)  # (samples, features, outputs)
    expected = (x - background.mean(axis=0))[:, :, None] * kernel[None]
    np.testing.assert_allclose(values, expected, atol=1e-5)
    np.testing.assert_allclose(explainer.expected_value, model.predict(background, verbose=0).mean(axis=0), atol=1e-6)


@pytest.mark.parametrize("kind", ["dense", "batch_norm_dropout", "conv"])
def test_deep_explainer_adds_up_and_equals_keras_on_the_same_weights(keras, kind):
    model, twin = twins(keras, kind)
    background, x = data(tuple(model.input_shape[1:]))

    explainer = shap.DeepExplainer(for_shap(model), background)
    values = explainer.shap_values(x)
    np.testing.assert_allclose(output_gap(values, model.predict(x, verbose=0), explainer.expected_value), 0, atol=1e-5)

    keras_explainer = shap.DeepExplainer(twin, background)
    np.testing.assert_allclose(values, keras_explainer.shap_values(x), atol=1e-6)
    np.testing.assert_allclose(explainer.expected_value, keras_explainer.expected_value, atol=1e-6)


def test_deep_explainer_explains_each_input_of_a_model_with_a_dict_of_inputs():
    numbers = tfkit.Input((3,), name="numbers")
    flags = tfkit.Input((2,), name="flags")
    hidden = tfkit.layers.Dense(4, activation="tanh")(tfkit.layers.Concatenate()([numbers, flags]))
    model = tfkit.Model({"numbers": numbers, "flags": flags}, tfkit.layers.Dense(1)(hidden))
    assert [t.shape[1] for t in model.inputs] == [2, 3]  # model.inputs: the dict's keys sorted, flags first
    (flags_bg, flags_x), (numbers_bg, numbers_x) = data((2,), seed=1), data((3,), seed=2)

    explainer = shap.DeepExplainer(for_shap(model), [flags_bg, numbers_bg])
    flags_values, numbers_values = explainer.shap_values([flags_x, numbers_x])
    outputs = model.predict({"numbers": numbers_x, "flags": flags_x}, verbose=0)
    gap = flags_values.sum(axis=1) + numbers_values.sum(axis=1) - (outputs - explainer.expected_value)
    np.testing.assert_allclose(gap, 0, atol=1e-5)
    assert flags_values.shape == (4, 2, 1) and numbers_values.shape == (4, 3, 1)


def test_gradient_explainer_gives_a_linear_models_weights_times_the_distance_from_one_reference():
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    kernel = model.layers[0].kernel.numpy()
    background, x = data((3,))
    explainer = shap.GradientExplainer(for_shap(model), background[:1])  # one reference: the integral is exact
    values = explainer.shap_values(x, nsamples=20, rseed=0)
    np.testing.assert_allclose(values, (x - background[0])[:, :, None] * kernel[None], atol=1e-5)


@pytest.mark.parametrize("kind", ["dense", "conv"])
def test_gradient_explainer_equals_keras_on_the_same_weights_and_seed(keras, kind):
    model, twin = twins(keras, kind)
    background, x = data(tuple(model.input_shape[1:]))
    values = shap.GradientExplainer(for_shap(model), background).shap_values(x, nsamples=50, rseed=3)
    keras_values = shap.GradientExplainer(twin, background).shap_values(x, nsamples=50, rseed=3)
    np.testing.assert_allclose(values, keras_values, atol=1e-6)
    assert np.abs(values).max() > 1e-3  # attributions, not zeros


def test_explanations_follow_the_models_weights_after_for_shap():
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
    view = for_shap(model)
    background, x = data((3,))
    model.layers[0].kernel.assign([[2.0], [0.0], [-1.0]])
    values = shap.DeepExplainer(view, background).shap_values(x)
    np.testing.assert_allclose(values[..., 0], (x - background.mean(axis=0)) * [2.0, 0.0, -1.0], atol=1e-5)


def test_for_shap_says_what_model_it_needs():
    class Subclassed(tfkit.Model):
        def __init__(self):
            super().__init__()
            self.dense = tfkit.layers.Dense(1)

        def call(self, inputs):
            return self.dense(inputs)

    with pytest.raises(ValueError, match="has none.*tfkit.Input"):
        for_shap(Subclassed())
    inputs = tfkit.Input((3,))
    with pytest.raises(ValueError, match="has 2.*model.outputs\\[i\\]"):
        for_shap(tfkit.Model(inputs, [tfkit.layers.Dense(1)(inputs), tfkit.layers.Dense(2)(inputs)]))
    with pytest.raises(TypeError, match="tfkit.Model; received str"):
        for_shap("model.h5")
    wrapped = for_shap(tfkit.Model(inputs, Subclassed()(inputs)))  # the route the error suggests
    assert wrapped.output_shape == (None, 1)


def test_the_adapters_docstring_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = pytest.importorskip("tfkit_integrations.shap")
    result = doctest.testmod(
        module,
        extraglobs={"tfkit": tfkit, "np": np, "tf": tf},
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0 and result.failed == 0
