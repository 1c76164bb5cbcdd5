"""SHAP's `GradientExplainer` and `DeepExplainer` on tfkit models.

    import shap
    from tfkit_integrations.shap import for_shap
    explainer = shap.DeepExplainer(for_shap(model), background)      # or shap.GradientExplainer
    shap_values = explainer.shap_values(x)

SHAP's TensorFlow explainers accept a model only if it is a `tf.keras.Model`
(or a class whose path names Keras's); anything else is "not currently a
supported model type". The `(inputs, outputs)` pair SHAP also documents is
turned into `keras.Model(inputs, outputs)` under TensorFlow 2, so it needs
Keras's symbolic tensors, and a `tf.function` is refused by the same type
check. What SHAP does with the model after that check is plain TensorFlow: it
reads the input and output tensors' shapes and dtypes, and calls the model on
a list of input tensors (`training=False`) inside a `tf.function` under a
`tf.GradientTape`. `DeepExplainer` then swaps, for the duration of each call,
the gradient functions of TensorFlow's op types (`Relu`, `MatMul`, `Softmax`,
`Conv2D`, `MaxPool`, ...) in TensorFlow's gradient registry for DeepLIFT's
rescale rules, and walks the traced graph from the output op back to the
inputs; no `tf.compat.v1` session is involved under TensorFlow 2.

`for_shap` gives SHAP what it checks for: a Keras functional model (of the
Keras that `tf.keras` is: Keras 3, or tf-keras under `TF_USE_LEGACY_KERAS=1`)
with the tfkit model's inputs, whose one layer calls the tfkit model. Keras
adds no op and no weight of its own, so SHAP differentiates, and
`DeepExplainer` rewrites, exactly the TensorFlow ops tfkit's layers run: its
SHAP values equal those of the same network built in Keras 3 (the tests
compare them), and an op type SHAP has no rule for (`LeakyRelu`, `Relu6`,
`gelu`'s `Erf`) fails in the same way as it does for Keras. This module
imports Keras (through `tf.keras`); tfkit never imports it.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tfkit

__all__ = ["for_shap"]

# The Keras whose Model SHAP's explainers test for (`isinstance(model, tf.keras.Model)`).
keras = tf.keras


class _RunTfkitModel(keras.layers.Layer):
    """A Keras layer that calls a tfkit model: the model's inputs in, its output out."""

    def __init__(self, model: tfkit.Model, **kwargs: Any) -> None:
        super().__init__(name=model.name, **kwargs)
        self.tfkit_model = model
        position = {id(tensor): i for i, tensor in enumerate(model.inputs)}
        # Where each of the flat inputs goes in what the model takes: a tensor, a list or a dict.
        self.input_layout = tf.nest.map_structure(lambda tensor: position[id(tensor)], model.input)

    def call(self, inputs: Any, training: Any = None) -> Any:
        flat = tf.nest.flatten(inputs)
        return self.tfkit_model(tf.nest.map_structure(lambda i: flat[i], self.input_layout), training=training)

    def compute_output_spec(self, inputs: Any, training: Any = None) -> Any:  # Keras 3: no tracing to know it
        output = self.tfkit_model.outputs[0]
        return keras.KerasTensor(tuple(output.shape), dtype=tf.as_dtype(output.dtype).name)


def for_shap(model: tfkit.Model) -> Any:
    """A Keras model that runs a tfkit model, for SHAP's `GradientExplainer` and `DeepExplainer`.

    Pass what it returns where SHAP's documentation passes a Keras model:
    `shap.DeepExplainer(for_shap(model), background)` or
    `shap.GradientExplainer(for_shap(model), background)`, then
    `explainer.shap_values(x)` as for Keras. The Keras model has one input per
    input of `model` (same shapes and dtypes, in the order of `model.inputs`)
    and one layer, which calls `model` (a dict of inputs is rebuilt for it), so
    SHAP explains the very ops and weights of `model`: later changes to its
    weights show in the explanations, with no new `for_shap`. Explain one
    output at a time, as SHAP does for Keras: for a model with several outputs,
    make a model of the one to explain (`tfkit.Model(model.inputs,
    model.outputs[i])`) and pass that.

    Args:
        model: A `tfkit.Model` with symbolic inputs (a functional model, or a
            `Sequential` that starts with `tfkit.Input`) and one output.

    Returns:
        A `tf.keras.Model` (Keras 3's, or tf-keras's under
        `TF_USE_LEGACY_KERAS=1`: the class SHAP tests for) that computes
        `model`'s output.

    Raises:
        TypeError: If `model` is not a `tfkit.Model`.
        ValueError: If `model` has no symbolic inputs (a subclassed model, or a
            `Sequential` with no `tfkit.Input`), or more than one output.

    Example:
        >>> import shap
        >>> model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(4, activation="relu"),
        ...                           tfkit.layers.Dense(1)])
        >>> x = np.random.default_rng(0).normal(size=(12, 3)).astype("float32")
        >>> explainer = shap.DeepExplainer(for_shap(model), x[:8])
        >>> values = explainer.shap_values(x[8:])
        >>> values.shape
        (4, 3, 1)
        >>> gap = values.sum(axis=1) - (model.predict(x[8:], verbose=0) - explainer.expected_value)
        >>> bool(np.abs(gap).max() < 1e-5)           # they add up to f(x) - E[f(background)]
        True
    """
    if not isinstance(model, tfkit.Model):
        raise TypeError(f"for_shap expected `model` to be a tfkit.Model; received {type(model).__name__}: {model!r}")
    inputs = getattr(model, "inputs", None)
    if not inputs:
        raise ValueError(
            f"for_shap expected `model` to have symbolic inputs (SHAP reads their shapes and dtypes); model "
            f"'{model.name}' ({type(model).__name__}) has none. Build it as a functional model or a Sequential "
            "starting with tfkit.Input(shape), or wrap a subclassed model: "
            "inputs = tfkit.Input(shape); tfkit.Model(inputs, model(inputs))"
        )
    if len(model.outputs) != 1:
        raise ValueError(
            f"for_shap expected `model` to have one output (SHAP explains one output tensor); model '{model.name}' "
            f"has {len(model.outputs)}. Explain one at a time: for_shap(tfkit.Model(model.inputs, model.outputs[i]))"
        )
    keras_inputs = [
        keras.Input(shape=tuple(tensor.shape)[1:], dtype=tf.as_dtype(tensor.dtype).name, name=f"{model.name}_input_{i}")
        for i, tensor in enumerate(inputs)
    ]
    return keras.Model(keras_inputs, _RunTfkitModel(model)(keras_inputs), name=f"{model.name}_for_shap")
