"""Property tests: loss reductions and metric accumulation against their numpy definitions.

Losses: every built-in loss below, with each reduction (``"sum_over_batch_size"``,
``"mean"``, ``"sum"``, ``"mean_with_sample_weight"``, ``"none"``), with and
without ``sample_weight`` (a scalar, one weight per sample, or one per loss
element) and a mask (``y_pred._keras_mask``), equals the numpy formula of the
per-sample loss weighted and reduced by Keras 3's rules
(``keras/src/losses/loss.py``: ``reduce_weighted_values``): the mean reductions
divide the weighted sum by the number of loss elements, and a mask takes its
entries out of that count. When Keras is installed the same call is checked
against ``keras.losses`` too (where Keras defines it: Keras 3 has no rule for
per-sample weights against per-timestep losses, which tfkit spreads over the
sample's timesteps). A ``Masking`` layer in a model gives ``model.compute_loss``
the masked mean as well.

Metrics: ``Mean``, ``Sum``, ``MeanSquaredError``, ``MeanAbsoluteError`` and the
accuracy metrics, updated over several batches with sample weights, equal the
numpy weighted mean (sum) over all batches by Keras 3's rule
(``reduce_to_samplewise_values``: values are first averaged per sample down to
the weights' rank).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st
from properties.strategies import examples

import tfkit
from tfkit import losses, metrics

try:
    import keras
except ImportError:  # the Keras cross-check is skipped; the numpy references still run
    keras = None

EPSILON = 1e-7
REDUCTIONS = ("sum_over_batch_size", "mean", "sum", "mean_with_sample_weight", "none")
TOLERANCE = dict(rtol=2e-4, atol=2e-5)


def _log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def _hinge_labels(y):
    return 2 * y - 1 if np.all((y == 0) | (y == 1)) else y


def _l2_normalize(x):
    return x / np.sqrt(np.maximum((x * x).sum(-1, keepdims=True), 1e-12))


def _bce(y, p, from_logits=False, label_smoothing=0.0):
    y = y * (1 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        return np.mean(np.maximum(p, 0) - p * y + np.log1p(np.exp(-np.abs(p))), -1)
    p = np.clip(p, EPSILON, 1 - EPSILON)
    return np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p)), -1)


def _cce(y, p, from_logits=False, label_smoothing=0.0):
    y = y * (1 - label_smoothing) + label_smoothing / y.shape[-1]
    log_p = _log_softmax(p) if from_logits else np.log(np.clip(p / p.sum(-1, keepdims=True), EPSILON, 1 - EPSILON))
    return -(y * log_p).sum(-1)


def _scce(y, p, from_logits=False):
    log_p = _log_softmax(p if from_logits else np.log(np.clip(p, EPSILON, 1 - EPSILON)))
    return -np.take_along_axis(log_p, y[..., None].astype("int64"), -1)[..., 0]


def _huber(y, p, delta=1.0):
    error = np.abs(p - y)
    return np.mean(np.where(error <= delta, 0.5 * error**2, delta * error - 0.5 * delta**2), -1)


# name: (numpy per-sample loss of (y_true, y_pred, **kwargs), kind of data, strategy of constructor kwargs)
LOSSES = {
    "MeanSquaredError": (lambda y, p: np.mean((y - p) ** 2, -1), "real", st.just({})),
    "MeanAbsoluteError": (lambda y, p: np.mean(np.abs(y - p), -1), "real", st.just({})),
    "MeanAbsolutePercentageError": (
        lambda y, p: 100 * np.mean(np.abs(y - p) / np.maximum(np.abs(y), EPSILON), -1),
        "nonzero",
        st.just({}),
    ),
    "MeanSquaredLogarithmicError": (
        lambda y, p: np.mean((np.log1p(np.maximum(p, EPSILON)) - np.log1p(np.maximum(y, EPSILON))) ** 2, -1),
        "positive",
        st.just({}),
    ),
    "Huber": (_huber, "real", st.fixed_dictionaries({"delta": st.sampled_from([0.5, 1.0, 2.0])})),
    "LogCosh": (lambda y, p: np.mean(np.log(np.cosh(p - y)), -1), "real", st.just({})),
    "Hinge": (lambda y, p: np.mean(np.maximum(1 - _hinge_labels(y) * p, 0), -1), "signs", st.just({})),
    "SquaredHinge": (lambda y, p: np.mean(np.maximum(1 - _hinge_labels(y) * p, 0) ** 2, -1), "signs", st.just({})),
    "CategoricalHinge": (
        lambda y, p: np.maximum(((1 - y) * p).max(-1) - (y * p).sum(-1) + 1, 0),
        "one_hot",
        st.just({}),
    ),
    "KLDivergence": (
        lambda y, p: (np.clip(y, EPSILON, 1) * np.log(np.clip(y, EPSILON, 1) / np.clip(p, EPSILON, 1))).sum(-1),
        "probabilities",
        st.just({}),
    ),
    "Poisson": (lambda y, p: np.mean(p - y * np.log(p + EPSILON), -1), "positive", st.just({})),
    "CosineSimilarity": (lambda y, p: -(_l2_normalize(y) * _l2_normalize(p)).sum(-1), "real", st.just({})),
    "BinaryCrossentropy": (
        _bce,
        "binary",
        st.fixed_dictionaries({"from_logits": st.booleans(), "label_smoothing": st.sampled_from([0.0, 0.1])}),
    ),
    "CategoricalCrossentropy": (
        _cce,
        "one_hot",
        st.fixed_dictionaries({"from_logits": st.booleans(), "label_smoothing": st.sampled_from([0.0, 0.2])}),
    ),
    "SparseCategoricalCrossentropy": (_scce, "sparse", st.fixed_dictionaries({"from_logits": st.booleans()})),
}


def _data(kind, shape, rng, from_logits=False):
    """``(y_true, y_pred)`` of ``shape`` for a loss that takes ``kind`` of labels."""
    if kind == "real":
        return rng.normal(size=shape) * 2, rng.normal(size=shape) * 2
    if kind == "nonzero":
        return rng.uniform(0.5, 3, shape) * rng.choice([-1, 1], shape), rng.normal(size=shape) * 2
    if kind == "positive":
        return rng.uniform(0.01, 3, shape), rng.uniform(0.01, 3, shape)
    if kind == "signs":
        labels = rng.integers(0, 2, shape)
        return (labels if rng.integers(2) else 2 * labels - 1), rng.normal(size=shape) * 2
    if kind == "probabilities":
        return rng.uniform(0.0, 1.0, shape), rng.uniform(0.01, 1.0, shape)
    if kind == "binary":
        return rng.integers(0, 2, shape), rng.normal(size=shape) * 3 if from_logits else rng.uniform(0.02, 0.98, shape)
    logits = rng.normal(size=shape) * 2
    predicted = logits if from_logits else np.exp(_log_softmax(logits))
    labels = rng.integers(0, shape[-1], shape[:-1])
    if kind == "sparse":
        return labels, predicted
    return np.eye(shape[-1])[labels], predicted


@st.composite
def loss_cases(draw):
    name = draw(st.sampled_from(sorted(LOSSES)))
    reference, kind, kwargs = LOSSES[name]
    kwargs = draw(kwargs)
    batch, steps = draw(st.integers(1, 4)), draw(st.none() | st.integers(1, 3))
    losses_shape = (batch,) if steps is None else (batch, steps)
    shape = losses_shape + (draw(st.integers(2 if kind in ("one_hot", "sparse") else 1, 4)),)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    y_true, y_pred = _data(kind, shape, rng, kwargs.get("from_logits", False))
    weight_kind = draw(st.sampled_from(["none", "scalar", "per_sample", "per_element"]))
    weights = {
        "none": None,
        "scalar": np.float32(rng.uniform(0, 2)),
        "per_sample": rng.uniform(0, 2, (batch,)) * rng.integers(0, 2, (batch,)),  # some weights zero
        "per_element": rng.uniform(0, 2, losses_shape),
    }[weight_kind]
    mask = rng.integers(0, 2, losses_shape).astype(bool) if draw(st.booleans()) else None
    return dict(
        name=name,
        reference=reference,
        kwargs=kwargs,
        y_true=y_true,
        y_pred=y_pred,
        weights=weights,
        mask=mask,
        reduction=draw(st.sampled_from(REDUCTIONS)),
    )


def expected_loss(per_sample, weights, mask, reduction):
    """Keras 3's ``reduce_weighted_values`` in numpy: weights (with trailing axes added) times mask, reduced."""
    w = np.ones_like(per_sample) if weights is None else np.asarray(weights, "float64")
    w = np.broadcast_to(w.reshape(w.shape + (1,) * (per_sample.ndim - w.ndim)), per_sample.shape)
    m = np.ones_like(per_sample) if mask is None else mask.astype("float64")
    weighted = per_sample * w * m
    if reduction == "none":
        return weighted if (weights is not None or mask is not None) else per_sample
    total = weighted.sum()
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight":
        divisor = (w * m).sum()
    else:  # "sum_over_batch_size" and "mean": a masked entry leaves the count
        divisor = m.sum() if mask is not None else per_sample.size
    return total / divisor if divisor else 0.0


def _call(loss, case):
    y_pred = tf.constant(case["y_pred"], "float32")
    if case["mask"] is not None:
        y_pred._keras_mask = tf.constant(case["mask"])
    weights = case["weights"]
    return loss(case["y_true"], y_pred, sample_weight=None if weights is None else tf.constant(weights, "float32"))


@settings(max_examples=examples(400))
@given(loss_cases())
def test_loss_reductions_match_numpy(case):
    name, kwargs = case["name"], case["kwargs"]
    y_true, y_pred = case["y_true"].astype("float32"), case["y_pred"].astype("float32")
    per_sample = case["reference"](y_true.astype("float64"), y_pred.astype("float64"), **kwargs)
    want = expected_loss(per_sample, case["weights"], case["mask"], case["reduction"])
    loss = getattr(losses, name)(reduction=case["reduction"], **kwargs)
    got = _call(loss, case)
    what = (
        f"{name}({kwargs}, reduction={case['reduction']!r}) weights={np.shape(case['weights'])} "
        f"mask={case['mask'] is not None}"
    )
    np.testing.assert_allclose(np.asarray(got), want, err_msg=what, **TOLERANCE)
    weights = case["weights"]
    # Keras 3 divides "mean_with_sample_weight" by the sum of the weights as given, not as broadcast to
    # the losses: a scalar weight w gives sum(losses * w) / w there (the sum, not the mean; and with one
    # loss element, losses * w). tfkit averages, as the name says: no Keras cross-check for that case.
    scalar_quirk = weights is not None and np.ndim(weights) == 0 and case["reduction"] == "mean_with_sample_weight"
    if keras is not None and (weights is None or np.ndim(weights) in (0, per_sample.ndim)) and not scalar_quirk:
        reference = _call(getattr(keras.losses, name)(reduction=case["reduction"], **kwargs), case)
        np.testing.assert_allclose(
            np.asarray(got), np.asarray(reference), err_msg=f"{what} (keras.losses)", **TOLERANCE
        )


@settings(max_examples=examples(30))
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**16))
def test_masking_layer_leaves_masked_steps_out_of_the_loss(batch, steps, features, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, steps, features)).astype("float32")
    skipped = rng.integers(0, 2, (batch, steps)).astype(bool)
    x[skipped] = 0.0  # the Masking layer's mask_value: these steps are masked
    y = rng.normal(size=(batch, steps, features)).astype("float32")
    inputs = tfkit.Input((steps, features))
    model = tfkit.Model(inputs, tfkit.layers.Masking(0.0)(inputs))
    model.compile(loss="mse")
    y_pred = model(x)
    assert y_pred._keras_mask is not None
    got = model.compute_loss(x=x, y=y, y_pred=y_pred)
    want = expected_loss(np.mean((y.astype("float64") - x) ** 2, -1), None, ~skipped, "sum_over_batch_size")
    np.testing.assert_allclose(np.asarray(got), want, **TOLERANCE)


def _accuracy_data(name, shape, rng):
    if name == "Accuracy":
        return rng.integers(0, 3, shape), rng.integers(0, 3, shape)
    if name == "BinaryAccuracy":
        return rng.integers(0, 2, shape), rng.uniform(0, 1, shape)
    classes = max(shape[-1], 2)
    labels, scores = rng.integers(0, classes, shape[:-1]), rng.uniform(0, 1, shape[:-1] + (classes,))
    return (labels if name == "SparseCategoricalAccuracy" else np.eye(classes)[labels]), scores


# name: per-element (or per-sample) value of (y_true, y_pred), before Keras's per-sample mean
METRIC_VALUES = {
    "MeanSquaredError": lambda y, p: np.mean((y - p) ** 2, -1),
    "MeanAbsoluteError": lambda y, p: np.mean(np.abs(y - p), -1),
    "Accuracy": lambda y, p: (y == p).astype("float64"),
    "BinaryAccuracy": lambda y, p: (y == (p > 0.5)).astype("float64"),
    "CategoricalAccuracy": lambda y, p: (y.argmax(-1) == p.argmax(-1)).astype("float64"),
    "SparseCategoricalAccuracy": lambda y, p: (y == p.argmax(-1)).astype("float64"),
}


def samplewise(values, weights):
    """Keras 3's ``reduce_to_samplewise_values`` for a mean: (weighted values, weights) per sample."""
    values = np.asarray(values, "float64")
    if weights is None:
        return values.reshape(len(values), -1).mean(1), np.ones(len(values))
    weights = np.broadcast_to(np.asarray(weights, "float64"), values.shape[: np.ndim(weights)])
    if values.ndim > weights.ndim:
        values = values.reshape(values.shape[: weights.ndim] + (-1,)).mean(-1)
    weighted = values * weights
    return weighted.reshape(len(values), -1).mean(1), weights.reshape(len(values), -1).mean(1)


@st.composite
def metric_batches(draw):
    name = draw(st.sampled_from(["Mean", "Sum"] + sorted(METRIC_VALUES)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    # per-sample losses and argmax take the last axis: those metrics need two axes at least
    rank = draw(st.integers(1 if name in ("Mean", "Sum", "Accuracy", "BinaryAccuracy") else 2, 3))
    inner = tuple(draw(st.lists(st.integers(1, 3), min_size=rank - 1, max_size=rank - 1)))
    batches = []
    for _ in range(draw(st.integers(1, 4))):
        shape = (draw(st.integers(1, 4)),) + inner
        if name in ("Mean", "Sum"):
            values = (rng.normal(size=shape),)
            value_shape = shape
        else:
            values = (
                _accuracy_data(name, shape, rng)
                if "Accuracy" in name
                else (rng.normal(size=shape), rng.normal(size=shape))
            )
            value_shape = METRIC_VALUES[name](*values).shape
        weight_rank = draw(st.integers(0, len(value_shape)))
        weights = None if weight_rank == 0 else rng.uniform(0, 2, value_shape[:weight_rank])
        batches.append((values, weights))
    return name, batches


@settings(max_examples=examples(200))
@given(metric_batches())
def test_metrics_accumulate_weighted_batches_like_numpy(case):
    name, batches = case
    metric = getattr(metrics, name)()
    totals, counts = [], []
    for values, weights in batches:
        metric.update_state(*values, sample_weight=weights)
        raw = values[0] if name in ("Mean", "Sum") else METRIC_VALUES[name](*values)
        per_sample, per_weight = samplewise(raw, weights)
        if name == "Sum":  # Sum adds the weighted values themselves, no per-sample mean
            w = (
                1.0
                if weights is None
                else np.broadcast_to(
                    np.asarray(weights).reshape(np.shape(weights) + (1,) * (raw.ndim - np.ndim(weights))), raw.shape
                )
            )
            per_sample = np.asarray([(raw * w).sum()])
        totals.append(per_sample.sum())
        counts.append(per_weight.sum())
    total, count = sum(totals), sum(counts)
    want = total if name == "Sum" else (total / count if count else 0.0)
    np.testing.assert_allclose(
        np.asarray(metric.result()), want, err_msg=f"{name} over {len(batches)} batches", **TOLERANCE
    )
