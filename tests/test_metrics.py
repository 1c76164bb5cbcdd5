"""tfkit.metrics: every metric against numpy over two weighted batches, reset, XLA, configs, distribution."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
import time_limits

from tfkit import losses, metrics

EPS = 1e-7
rng = np.random.default_rng(7)
REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- data
def probs(shape):
    x = rng.random(shape) + 0.05
    return x / x.sum(-1, keepdims=True)


def labels_and_guesses(n=10):
    y = rng.integers(0, 3, n)
    guess = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    return y.astype(np.float32), guess.astype(np.float32)


def binary_probs(n=10, width=3):
    return rng.integers(0, 2, (n, width)).astype(np.float32), rng.random((n, width)).astype(np.float32)


def onehot_probs(n=10, classes=5):
    return np.eye(classes, dtype=np.float32)[rng.integers(0, classes, n)], probs((n, classes)).astype(np.float32)


def sparse_probs(n=10, classes=5, trailing_axis=False):
    y = rng.integers(0, classes, (n, 1) if trailing_axis else n)
    return y, probs((n, classes)).astype(np.float32)


def regression(n=10, width=4):
    return rng.normal(size=(n, width)).astype(np.float32), rng.normal(size=(n, width)).astype(np.float32)


def positive(n=10, width=4):
    return (rng.random((n, width)) * 3 + 0.1).astype(np.float32), (rng.random((n, width)) * 3 + 0.1).astype(np.float32)


# ---------------------------------------------------------------- numpy per-sample references
def np_topk_hit(target, scores, k):
    target_score = np.take_along_axis(scores, target[:, None].astype(int), axis=1)[:, 0]
    return ((scores > target_score[:, None]).sum(1) < k).astype(float)


def np_log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def np_cosine(t, p):
    tn = t / np.linalg.norm(t, axis=-1, keepdims=True)
    pn = p / np.linalg.norm(p, axis=-1, keepdims=True)
    return (tn * pn).sum(-1)


MEAN_CASES = [
    ("accuracy", metrics.Accuracy, {}, lambda t, p: (t == p).astype(float), labels_and_guesses),
    ("binary_accuracy", metrics.BinaryAccuracy, {}, lambda t, p: ((p > 0.5) == t).mean(-1), binary_probs),
    (
        "binary_accuracy_0.7",
        metrics.BinaryAccuracy,
        {"threshold": 0.7},
        lambda t, p: ((p > 0.7) == t).mean(-1),
        binary_probs,
    ),
    (
        "categorical_accuracy",
        metrics.CategoricalAccuracy,
        {},
        lambda t, p: (t.argmax(-1) == p.argmax(-1)).astype(float),
        onehot_probs,
    ),
    (
        "sparse_categorical_accuracy",
        metrics.SparseCategoricalAccuracy,
        {},
        lambda t, p: (t.reshape(-1) == p.argmax(-1)).astype(float),
        sparse_probs,
    ),
    (
        "sparse_categorical_accuracy_n1",
        metrics.SparseCategoricalAccuracy,
        {},
        lambda t, p: (t.reshape(-1) == p.argmax(-1)).astype(float),
        lambda: sparse_probs(trailing_axis=True),
    ),
    ("top_2", metrics.TopKCategoricalAccuracy, {"k": 2}, lambda t, p: np_topk_hit(t.argmax(-1), p, 2), onehot_probs),
    (
        "sparse_top_2",
        metrics.SparseTopKCategoricalAccuracy,
        {"k": 2},
        lambda t, p: np_topk_hit(t.reshape(-1), p, 2),
        sparse_probs,
    ),
    ("mse", metrics.MeanSquaredError, {}, lambda t, p: ((t - p) ** 2).mean(-1), regression),
    ("mae", metrics.MeanAbsoluteError, {}, lambda t, p: np.abs(t - p).mean(-1), regression),
    (
        "mape",
        metrics.MeanAbsolutePercentageError,
        {},
        lambda t, p: 100 * (np.abs(t - p) / np.abs(t)).mean(-1),
        positive,
    ),
    (
        "msle",
        metrics.MeanSquaredLogarithmicError,
        {},
        lambda t, p: ((np.log1p(p) - np.log1p(t)) ** 2).mean(-1),
        positive,
    ),
    ("cosine_similarity", metrics.CosineSimilarity, {}, np_cosine, regression),
    ("logcosh", metrics.LogCoshError, {}, lambda t, p: np.log(np.cosh(p - t)).mean(-1), regression),
    (
        "binary_crossentropy",
        metrics.BinaryCrossentropy,
        {},
        lambda t, p: -(t * np.log(np.clip(p, EPS, 1 - EPS)) + (1 - t) * np.log(np.clip(1 - p, EPS, 1))).mean(-1),
        binary_probs,
    ),
    (
        "categorical_crossentropy_logits",
        metrics.CategoricalCrossentropy,
        {"from_logits": True},
        lambda t, p: -(t * np_log_softmax(p)).sum(-1),
        onehot_probs,
    ),
    (
        "sparse_categorical_crossentropy",
        metrics.SparseCategoricalCrossentropy,
        {},
        lambda t, p: -np.log(np.take_along_axis(p, t.reshape(-1, 1), 1)[:, 0]),
        sparse_probs,
    ),
    (
        "kl_divergence",
        metrics.KLDivergence,
        {},
        lambda t, p: (t * np.log(t / p)).sum(-1),
        lambda: (probs((10, 4)).astype(np.float32), probs((10, 4)).astype(np.float32)),
    ),
    ("poisson", metrics.Poisson, {}, lambda t, p: (p - t * np.log(p + EPS)).mean(-1), positive),
    ("hinge", metrics.Hinge, {}, lambda t, p: np.maximum(1 - (2 * t - 1) * p, 0).mean(-1), binary_probs),
]
MEAN_IDS = [c[0] for c in MEAN_CASES]


def weighted_mean(per_sample, weight):
    return (per_sample * weight).sum() / weight.sum()


def assert_all_zero(metric):
    for variable in metric.variables:
        assert np.all(variable.numpy() == 0), variable.name


def check_two_batches_then_reset(metric, batches, reference, rtol=1e-5, atol=1e-6):
    """Two weighted batches match numpy on their concatenation; reset empties; a new batch stands alone."""
    for y_true, y_pred, weight in batches:
        metric.update_state(y_true, y_pred, sample_weight=weight)
    joined = [np.concatenate([b[i] for b in batches]) for i in range(3)]
    np.testing.assert_allclose(metric.result().numpy(), reference(*joined), rtol=rtol, atol=atol)
    metric.reset_state()
    assert_all_zero(metric)
    y_true, y_pred, weight = batches[1]
    np.testing.assert_allclose(
        metric(y_true, y_pred, sample_weight=weight).numpy(), reference(*batches[1]), rtol=rtol, atol=atol
    )


def weighted_batches(make, n_batches=2):
    batches = []
    for _ in range(n_batches):
        y_true, y_pred = make()
        batches.append((y_true, y_pred, (rng.random(len(y_true)) + 0.2).astype(np.float32)))
    return batches


# ---------------------------------------------------------------- mean-based metrics
@pytest.mark.parametrize("case", MEAN_CASES, ids=MEAN_IDS)
def test_mean_metric_matches_numpy_over_two_batches_then_resets(case):
    _, cls, kwargs, per_sample, make = case
    metric = cls(**kwargs)
    check_two_batches_then_reset(
        metric, weighted_batches(make), lambda t, p, w: weighted_mean(per_sample(t, p), w), rtol=1e-4
    )


@pytest.mark.parametrize("case", MEAN_CASES[:8], ids=MEAN_IDS[:8])
def test_unweighted_mean_metric_counts_every_sample_once(case):
    _, cls, kwargs, per_sample, make = case
    metric = cls(**kwargs)
    (t1, p1), (t2, p2) = make(), make()
    metric.update_state(t1, p1)
    metric.update_state(t2, p2)
    expected = np.concatenate([per_sample(t1, p1), per_sample(t2, p2)]).mean()
    np.testing.assert_allclose(metric.result(), expected, rtol=1e-5)


def test_mean_and_sum_with_weights():
    mean, total = metrics.Mean(), metrics.Sum()
    mean.update_state([1.0, 3.0, 5.0, 7.0])
    total.update_state([1.0, 3.0, 5.0, 7.0])
    assert float(mean.result()) == 4.0 and float(total.result()) == 16.0
    mean.reset_state(), total.reset_state()
    mean.update_state([1.0, 3.0, 5.0, 7.0], sample_weight=[1, 1, 0, 0])
    total.update_state([1.0, 3.0, 5.0, 7.0], sample_weight=[1, 1, 0, 0])
    assert float(mean.result()) == 2.0 and float(total.result()) == 4.0
    mean.update_state(10.0)  # a scalar counts as one sample
    np.testing.assert_allclose(mean.result(), 14.0 / 3.0, rtol=1e-6)


def test_mean_of_per_element_values_with_per_sample_and_per_element_weights():
    values = rng.random((4, 3)).astype(np.float32)
    weight = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    mean = metrics.Mean()
    mean.update_state(values, sample_weight=weight)
    np.testing.assert_allclose(mean.result(), weighted_mean(values.mean(1), weight), rtol=1e-6)
    element_weight = rng.random((4, 3)).astype(np.float32)
    mean.reset_state()
    mean.update_state(values, sample_weight=element_weight)
    np.testing.assert_allclose(mean.result(), (values * element_weight).sum() / element_weight.sum(), rtol=1e-5)


def test_empty_mean_is_zero_not_nan():
    assert float(metrics.Mean().result()) == 0.0
    assert float(metrics.Precision().result()) == 0.0
    assert float(metrics.AUC().result()) == 0.0


def test_root_mean_squared_error():
    def reference(t, p, w):
        return np.sqrt(weighted_mean(((t - p) ** 2).mean(-1), w))

    check_two_batches_then_reset(metrics.RootMeanSquaredError(), weighted_batches(regression), reference, rtol=1e-5)


def test_mean_metric_wrapper_passes_kwargs_and_masks():
    wrapper = metrics.MeanMetricWrapper(losses.huber, name="huber_metric", delta=0.5)
    y_true, y_pred = regression()
    wrapper.update_state(y_true, y_pred)
    np.testing.assert_allclose(wrapper.result(), losses.huber(y_true, y_pred, delta=0.5).numpy().mean(), rtol=1e-5)
    from tfkit.engine import masking

    sequence_true, sequence_pred = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 4, 3))
    pred = tf.constant(sequence_pred, tf.float32)
    mask = np.array([[True, True, False, False], [True, True, True, True]])
    masking.set_mask(pred, tf.constant(mask))
    mse = metrics.MeanSquaredError()
    mse.update_state(sequence_true, pred)
    per_step = ((sequence_true - sequence_pred) ** 2).mean(-1)
    # per sample: mean over valid steps weighted by the valid fraction -> Keras's "sum" mask weighting
    expected = (per_step * mask).mean(1).sum() / mask.mean(1).sum()
    np.testing.assert_allclose(mse.result(), expected, rtol=1e-5)


# ---------------------------------------------------------------- precision / recall / counts
def np_counts(t, p, w, thresholds):
    t = t.astype(bool)
    w = np.broadcast_to(w.reshape(-1, *([1] * (t.ndim - 1))), t.shape)
    out = []
    for thr in thresholds:
        pos = p > thr
        out.append([(w * (t & pos)).sum(), (w * (~t & pos)).sum(), (w * (~t & ~pos)).sum(), (w * (t & ~pos)).sum()])
    return np.array(out).T  # tp, fp, tn, fn -> each (thresholds,)


def np_keep_top_k(p, k):
    order = np.argsort(-p, axis=-1)[:, :k]
    keep = np.zeros_like(p, dtype=bool)
    np.put_along_axis(keep, order, True, axis=-1)
    return np.where(keep, p, -1e10)


def ratio(a, b):
    return np.where(b > 0, a / np.where(b > 0, b, 1), 0.0)


@pytest.mark.parametrize(
    "kwargs, thresholds, transform",
    [
        ({}, [0.5], None),
        ({"thresholds": [0.3, 0.5, 0.8]}, [0.3, 0.5, 0.8], None),
        ({"thresholds": 0.2}, [0.2], None),
        ({"top_k": 2}, [-1e10], "top_k"),
        ({"class_id": 1}, [0.5], "class_id"),
        ({"thresholds": [0.0, 0.25, 0.5, 0.75, 1.0]}, [0.0, 0.25, 0.5, 0.75, 1.0], None),  # evenly spaced path
    ],
    ids=["default", "three_thresholds", "scalar_threshold", "top_k", "class_id", "even_thresholds"],
)
@pytest.mark.parametrize("which", ["precision", "recall"])
def test_precision_and_recall_match_numpy(which, kwargs, thresholds, transform):
    def reference(t, p, w):
        if transform == "top_k":
            p = np_keep_top_k(p, 2)
        if transform == "class_id":
            t, p = t[:, 1:2], p[:, 1:2]
        tp, fp, _, fn = np_counts(t, p, w, thresholds)
        value = ratio(tp, tp + fp) if which == "precision" else ratio(tp, tp + fn)
        return value[0] if len(thresholds) == 1 else value

    cls = metrics.Precision if which == "precision" else metrics.Recall
    check_two_batches_then_reset(cls(**kwargs), weighted_batches(lambda: binary_probs(12, 4)), reference)


@pytest.mark.parametrize(
    "cls, index",
    [(metrics.TruePositives, 0), (metrics.FalsePositives, 1), (metrics.TrueNegatives, 2), (metrics.FalseNegatives, 3)],
)
def test_confusion_counts_match_numpy(cls, index):
    check_two_batches_then_reset(
        cls(thresholds=[0.25, 0.6]),
        weighted_batches(binary_probs),
        lambda t, p, w: np_counts(t, p, w, [0.25, 0.6])[index],
    )


def test_precision_on_keras_doc_example():
    precision = metrics.Precision()
    precision.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    np.testing.assert_allclose(precision.result(), 2 / 3, rtol=1e-6)
    precision.reset_state()
    precision.update_state([0, 1, 1, 1], [1, 0, 1, 1], sample_weight=[0, 0, 1, 0])
    assert float(precision.result()) == 1.0


def test_thresholds_outside_unit_interval_are_rejected():
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]"):
        metrics.Precision(thresholds=[0.5, 1.5])


# ---------------------------------------------------------------- AUC
def np_auc(y, p, w=None, num_thresholds=200, curve="ROC", summation="interpolation", thresholds=None):
    """Keras's AUC formulas, with counts from direct comparisons (no bucketing)."""
    inner = (
        list(thresholds)
        if thresholds is not None
        else [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    )
    t = np.array([-EPS] + inner + [1 + EPS])
    w = np.ones(len(y)) if w is None else w
    tp, fp, tn, fn = np_counts(
        y.reshape(-1),
        p.reshape(-1),
        np.broadcast_to(np.reshape(w, (-1,) + (1,) * (y.ndim - 1)), y.shape).reshape(-1),
        t,
    )
    if curve == "PR" and summation == "interpolation":
        dtp = tp[:-1] - tp[1:]
        pp = tp + fp
        dp = pp[:-1] - pp[1:]
        slope = ratio(dtp, np.maximum(dp, 0))
        intercept = tp[1:] - slope * pp[1:]
        safe = np.where((pp[:-1] > 0) & (pp[1:] > 0), ratio(pp[:-1], np.maximum(pp[1:], 0)), 1.0)
        return ratio(slope * (dtp + intercept * np.log(safe)), np.maximum(tp[1:] + fn[1:], 0)).sum()
    recall = ratio(tp, tp + fn)
    x, yy = (ratio(fp, fp + tn), recall) if curve == "ROC" else (recall, ratio(tp, tp + fp))
    heights = {
        "interpolation": (yy[:-1] + yy[1:]) / 2,
        "minoring": np.minimum(yy[:-1], yy[1:]),
        "majoring": np.maximum(yy[:-1], yy[1:]),
    }[summation]
    return ((x[:-1] - x[1:]) * heights).sum()


def np_exact_roc_auc(y, p):
    """Probability that a random positive outscores a random negative (ties count half)."""
    pos, neg = p[y == 1], p[y == 0]
    return (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()


def auc_batches(n=300, width=1):
    batches = []
    for _ in range(2):
        y = rng.integers(0, 2, (n, width)).astype(np.float32)
        score = np.clip(0.35 * y + 0.65 * rng.random((n, width)), 0, 1).astype(np.float32)
        batches.append((y, score, (rng.random(n) + 0.2).astype(np.float32)))
    return batches


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("summation", ["interpolation", "minoring", "majoring"])
def test_auc_matches_numpy_interpolation_formulas(curve, summation):
    metric = metrics.AUC(curve=curve, summation_method=summation)
    check_two_batches_then_reset(
        metric, auc_batches(), lambda y, p, w: np_auc(y, p, w, curve=curve, summation=summation), rtol=1e-4, atol=1e-4
    )


def test_auc_with_explicit_uneven_thresholds():
    thresholds = [0.1, 0.35, 0.4, 0.9]
    metric = metrics.AUC(thresholds=thresholds, curve="PR", summation_method="majoring")
    check_two_batches_then_reset(
        metric,
        auc_batches(50),
        lambda y, p, w: np_auc(y, p, w, curve="PR", summation="majoring", thresholds=thresholds),
    )
    assert metric.thresholds[1:-1] == thresholds


def test_auc_is_close_to_the_exact_roc_auc():
    batches = auc_batches(400)
    metric = metrics.AUC(num_thresholds=1000)
    for y, p, _ in batches:
        metric.update_state(y, p)
    y = np.concatenate([b[0] for b in batches]).reshape(-1)
    p = np.concatenate([b[1] for b in batches]).reshape(-1)
    np.testing.assert_allclose(metric.result(), np_exact_roc_auc(y, p), atol=1e-3)


def test_auc_from_logits_equals_auc_of_sigmoid():
    y = rng.integers(0, 2, 64).astype(np.float32)
    logits = (2 * y - 1 + rng.normal(size=64)).astype(np.float32)
    from_logits, from_probs = metrics.AUC(from_logits=True), metrics.AUC()
    from_logits.update_state(y, logits)
    from_probs.update_state(y, tf.sigmoid(logits))
    np.testing.assert_allclose(from_logits.result(), from_probs.result(), rtol=1e-6)


def test_multi_label_auc_averages_per_label_aucs():
    batches = auc_batches(200, width=3)
    label_weights = [1.0, 2.0, 0.5]
    for weights in (None, label_weights):
        metric = metrics.AUC(multi_label=True, label_weights=weights)  # variables built on first update
        for y, p, w in batches:
            metric.update_state(y, p, sample_weight=w)
        y, p, w = (np.concatenate([b[i] for b in batches]) for i in range(3))
        per_label = np.array([np_auc(y[:, j], p[:, j], w) for j in range(3)])
        expected = per_label.mean() if weights is None else (per_label * label_weights).sum() / sum(label_weights)
        np.testing.assert_allclose(metric.result(), expected, rtol=1e-4)
    flat = metrics.AUC(label_weights=label_weights)  # without multi_label: weights per prediction
    flat.update_state(y, p)
    expected_flat = np_auc(y.reshape(-1, 1), p.reshape(-1, 1), np.tile(label_weights, len(y)))
    np.testing.assert_allclose(flat.result(), expected_flat, rtol=1e-4)


def test_sklearn_roc_auc_agrees():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    batches = auc_batches(400)
    metric = metrics.AUC(num_thresholds=1000)
    for y, p, _ in batches:
        metric.update_state(y, p)
    y = np.concatenate([b[0] for b in batches]).reshape(-1)
    p = np.concatenate([b[1] for b in batches]).reshape(-1)
    np.testing.assert_allclose(metric.result(), sklearn_metrics.roc_auc_score(y, p), atol=1e-3)


def test_auc_rejects_bad_arguments():
    with pytest.raises(ValueError, match="num_thresholds must be an integer > 1"):
        metrics.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match="curve must be one of"):
        metrics.AUC(curve="DET")
    with pytest.raises(ValueError, match="summation_method must be one of"):
        metrics.AUC(summation_method="simpson")


# ---------------------------------------------------------------- F1 / F-beta
def np_fbeta(t, p, w, average, threshold, beta=1.0):
    if threshold is None:
        pred = ((p >= p.max(-1, keepdims=True)) & (np.abs(p) > 1e-9)).astype(float)
    else:
        pred = (p > threshold).astype(float)
    w = w[:, None]
    axis = None if average == "micro" else 0
    tp, fp = (w * pred * t).sum(axis), (w * pred * (1 - t)).sum(axis)
    fn, support = (w * (1 - pred) * t).sum(axis), (w * t).sum(axis)
    precision, recall = tp / (tp + fp + EPS), tp / (tp + fn + EPS)
    score = (1 + beta**2) * precision * recall / (beta**2 * precision + recall + EPS)
    if average == "weighted":
        return (score * support / (support.sum() + EPS)).sum()
    return score.mean() if average else score


@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted"])
@pytest.mark.parametrize("threshold", [None, 0.4])
def test_f1_score_matches_numpy(average, threshold):
    make = (lambda: onehot_probs(12, 4)) if threshold is None else (lambda: binary_probs(12, 4))
    check_two_batches_then_reset(
        metrics.F1Score(average=average, threshold=threshold),
        weighted_batches(make),
        lambda t, p, w: np_fbeta(t, p, w, average, threshold),
    )


def test_fbeta_score_with_beta_two():
    check_two_batches_then_reset(
        metrics.FBetaScore(average="macro", beta=2.0, threshold=0.5),
        weighted_batches(lambda: binary_probs(12, 4)),
        lambda t, p, w: np_fbeta(t, p, w, "macro", 0.5, beta=2.0),
    )


def test_f1_score_rejects_bad_arguments():
    with pytest.raises(ValueError, match="average must be one of"):
        metrics.F1Score(average="samples")
    with pytest.raises(ValueError, match="0 < threshold <= 1"):
        metrics.F1Score(threshold=1.5)
    with pytest.raises(ValueError, match="expects 2D inputs"):
        metrics.F1Score().update_state(np.ones(3), np.ones(3))


# ---------------------------------------------------------------- compiled use
def test_metrics_update_inside_tf_function_and_xla():
    def build():
        return [
            metrics.Mean(),
            metrics.BinaryAccuracy(),
            metrics.CategoricalAccuracy(),
            metrics.SparseCategoricalAccuracy(),
            metrics.SparseTopKCategoricalAccuracy(k=2),
            metrics.MeanSquaredError(),
            metrics.AUC(),
            metrics.Precision(thresholds=[0.3, 0.6]),
            metrics.F1Score(average="macro"),
        ]

    onehot, scores = onehot_probs(16, 5)
    sparse = onehot.argmax(-1)
    binary, binary_scores = binary_probs(16, 5)
    weight = (rng.random(16) + 0.2).astype(np.float32)

    def update_all(group, w):
        mean, bacc, cacc, sacc, stopk, mse, auc, prec, f1 = group
        mean.update_state(scores, sample_weight=w)
        bacc.update_state(binary, binary_scores, sample_weight=w)
        cacc.update_state(onehot, scores, sample_weight=w)
        sacc.update_state(sparse, scores, sample_weight=w)
        stopk.update_state(sparse, scores, sample_weight=w)
        mse.update_state(onehot, scores, sample_weight=w)
        auc.update_state(binary, binary_scores, sample_weight=w)
        prec.update_state(binary, binary_scores, sample_weight=w)
        f1.update_state(onehot, scores, sample_weight=w)
        return [m.result() for m in group]

    eager_group, graph_group, xla_group = build(), build(), build()
    update_all(eager_group, weight)
    eager = update_all(eager_group, weight)
    graph_step = tf.function(lambda w: update_all(graph_group, w))
    xla_step = tf.function(lambda w: update_all(xla_group, w), jit_compile=True)
    for _ in range(2):  # the second step accumulates onto the first
        graph, xla = graph_step(tf.constant(weight)), xla_step(tf.constant(weight))
    for metric, e, g, x in zip(eager_group, eager, graph, xla):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-6, err_msg=metric.name)
        np.testing.assert_allclose(x.numpy(), e.numpy(), rtol=1e-4, atol=1e-5, err_msg=metric.name)
    tf.function(lambda: [m.reset_state() for m in xla_group])()
    for metric in xla_group:
        assert_all_zero(metric)


def test_metric_created_and_built_inside_tf_function():
    holder = {}

    @tf.function
    def step(y, p):
        if "f1" not in holder:
            holder["f1"] = metrics.F1Score(average="micro")
        holder["f1"].update_state(y, p)
        return holder["f1"].result()

    y, p = onehot_probs(8, 3)
    step(y, p)
    value = step(y, p)
    np.testing.assert_allclose(value, np_fbeta(y, p, np.ones(8), "micro", None), rtol=1e-5)


# ---------------------------------------------------------------- state, names, configs
def test_variables_are_non_trainable_on_read_sums_in_creation_order():
    auc = metrics.AUC(num_thresholds=10)
    names = [v.name.split(":")[0] for v in auc.variables]
    assert names == ["true_positives", "false_positives", "true_negatives", "false_negatives"]
    for variable in auc.variables:
        assert not variable.trainable
        assert variable.synchronization == tf.VariableSynchronization.ON_READ
        assert variable.aggregation == tf.VariableAggregation.SUM
        assert variable.shape == (10,)
    assert auc.trainable_variables == [] and len(auc.non_trainable_variables) == 4
    assert isinstance(auc, tf.Module)


def test_custom_metric_with_initial_value_and_nested_metric():
    class Offset(metrics.Metric):
        def __init__(self, name="offset metric", dtype=None):
            super().__init__(name=name, dtype=dtype)
            self.start = self.add_variable((), initializer=3.0, name="start")
            self.inner = metrics.Mean(name="inner")

        def update_state(self, values):
            self.start.assign_add(1.0)
            self.inner.update_state(values)

        def result(self):
            return self.start + self.inner.result()

    metric = Offset()
    assert metric.name == "offset metric" and metric.dtype == "float32"
    assert [v.name.split(":")[0] for v in metric.variables] == ["start", "total", "count"]
    np.testing.assert_allclose(metric([1.0, 3.0]), 3.0 + 1.0 + 2.0)
    metric.reset_state()
    np.testing.assert_allclose(metric.result(), 3.0)  # back to the initial value, inner mean emptied


def test_metric_dtype_float64():
    mean = metrics.Mean(dtype="float64")
    mean.update_state(np.array([0.1, 0.2]))
    assert mean.result().dtype == tf.float64 and mean.total.dtype == tf.float64


def test_checkpoint_restores_metric_state(tmp_path):
    metric = metrics.Mean()
    metric.update_state([2.0, 4.0])
    path = tf.train.Checkpoint(metric=metric).save(str(tmp_path / "ckpt"))
    fresh = metrics.Mean()
    tf.train.Checkpoint(metric=fresh).restore(path).assert_consumed()
    assert float(fresh.result()) == 3.0


def test_get_names_string_metrics_after_the_string_like_compile():
    mse = metrics.get("mse")
    assert isinstance(mse, metrics.MeanSquaredError) and mse.name == "mse"
    assert isinstance(metrics.get("mean_absolute_error"), metrics.MeanAbsoluteError)
    assert isinstance(metrics.get("root_mean_squared_error"), metrics.RootMeanSquaredError)
    assert isinstance(metrics.get("auc"), metrics.AUC)
    assert isinstance(metrics.get("precision"), metrics.Precision)
    assert isinstance(metrics.get("recall"), metrics.Recall)
    assert isinstance(metrics.get("binary_accuracy"), metrics.BinaryAccuracy)
    assert isinstance(metrics.get("top_k_categorical_accuracy"), metrics.TopKCategoricalAccuracy)
    huber = metrics.get("huber")  # a loss function is a fine metric too
    assert isinstance(huber, metrics.MeanMetricWrapper) and huber.name == "huber"
    assert metrics.get(metrics.AUC).name == "auc"
    assert metrics.get(None) is None
    with pytest.raises(ValueError, match="'rmse'"):
        metrics.get("rmse")


def test_get_wraps_functions_and_keeps_instances():
    def within_one(y_true, y_pred):
        return tf.cast(tf.abs(y_true - y_pred) <= 1.0, tf.float32)

    wrapped = metrics.get(within_one)
    assert isinstance(wrapped, metrics.MeanMetricWrapper) and wrapped.name == "within_one"
    wrapped.update_state([0.0, 0.0, 0.0], [0.5, 2.0, -1.0])
    np.testing.assert_allclose(wrapped.result(), 2 / 3, rtol=1e-6)
    auc = metrics.AUC()
    assert metrics.get(auc) is auc


ALL_FACTORIES = [
    lambda: metrics.Mean(name="m"),
    lambda: metrics.Sum(),
    lambda: metrics.Accuracy(),
    lambda: metrics.BinaryAccuracy(threshold=0.3),
    lambda: metrics.CategoricalAccuracy(),
    lambda: metrics.SparseCategoricalAccuracy(),
    lambda: metrics.TopKCategoricalAccuracy(k=3),
    lambda: metrics.SparseTopKCategoricalAccuracy(k=2),
    lambda: metrics.MeanSquaredError(),
    lambda: metrics.RootMeanSquaredError(),
    lambda: metrics.MeanAbsoluteError(),
    lambda: metrics.CosineSimilarity(axis=-1),
    lambda: metrics.BinaryCrossentropy(from_logits=True, label_smoothing=0.1),
    lambda: metrics.AUC(num_thresholds=50, curve="PR", summation_method="minoring"),
    lambda: metrics.AUC(thresholds=[0.2, 0.7], multi_label=True, num_labels=3, label_weights=[1.0, 2.0, 3.0]),
    lambda: metrics.Precision(thresholds=(0.2, 0.7)),
    lambda: metrics.Recall(top_k=2, class_id=1),
    lambda: metrics.TruePositives(thresholds=0.3),
    lambda: metrics.F1Score(average="weighted", threshold=0.5),
    lambda: metrics.FBetaScore(beta=2.0),
    lambda: metrics.MeanMetricWrapper(losses.huber, name="hub", delta=2.0),
]


@pytest.mark.parametrize("factory", ALL_FACTORIES)
def test_config_round_trip_is_plain_json(factory):
    metric = factory()
    text = json.dumps(metrics.serialize(metric))
    rebuilt = metrics.deserialize(json.loads(text))
    assert type(rebuilt) is type(metric)
    assert rebuilt.get_config() == metric.get_config()
    assert rebuilt.name == metric.name


def test_serialize_functions_by_name():
    assert metrics.serialize(metrics.binary_accuracy) == "binary_accuracy"
    assert metrics.deserialize("binary_accuracy") is not None


# ---------------------------------------------------------------- "accuracy" in compile
@pytest.mark.parametrize(
    "loss, y_true_shape, y_pred_shape, expected",
    [
        ("binary_crossentropy", (None, 1), (None, 1), metrics.BinaryAccuracy),
        (losses.BinaryCrossentropy(from_logits=True), (None, 4), (None, 4), metrics.BinaryAccuracy),
        (None, (None, 1), (None, 1), metrics.BinaryAccuracy),
        (None, (None,), (None, 10), metrics.SparseCategoricalAccuracy),
        (None, (None, 1), (None, 10), metrics.SparseCategoricalAccuracy),
        ("sparse_categorical_crossentropy", (None, 10), (None, 10), metrics.SparseCategoricalAccuracy),
        (losses.sparse_categorical_crossentropy, (None,), (None, 10), metrics.SparseCategoricalAccuracy),
        ("categorical_crossentropy", (None, 10), (None, 10), metrics.CategoricalAccuracy),
        (None, (None, 10), (None, 10), metrics.CategoricalAccuracy),
        (None, None, None, metrics.CategoricalAccuracy),
        ("mse", tf.TensorShape([None, 2, 3]), tf.TensorShape([None, 2, 3]), metrics.CategoricalAccuracy),
    ],
)
def test_resolve_accuracy_follows_keras_rules(loss, y_true_shape, y_pred_shape, expected):
    for name in ("accuracy", "acc"):
        metric = metrics.resolve_accuracy(name, loss, y_true_shape, y_pred_shape)
        assert type(metric) is expected and metric.name == name


def test_resolve_compile_metric():
    assert (
        type(metrics.resolve_compile_metric("Accuracy", None, (None,), (None, 3))) is metrics.SparseCategoricalAccuracy
    )
    assert metrics.resolve_compile_metric("mae").name == "mae"
    with pytest.raises(ValueError):
        metrics.resolve_compile_metric(None)


# ---------------------------------------------------------------- distribution (own process: 2 logical CPUs)
MIRRORED_SCRIPT = textwrap.dedent(
    """
    import numpy as np, tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    from tfkit import losses, metrics

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        mean, acc, auc = metrics.Mean(), metrics.SparseCategoricalAccuracy(), metrics.AUC(num_thresholds=50)
    rng = np.random.default_rng(0)
    values = rng.random(16).astype("float32")
    labels = rng.integers(0, 3, 16)
    scores = rng.random((16, 3)).astype("float32")
    binary = rng.integers(0, 2, 16).astype("float32")
    probs = rng.random(16).astype("float32")
    data = tf.data.Dataset.from_tensor_slices((values, labels, scores, binary, probs)).batch(8)

    @tf.function
    def step(batch):
        def replica_step(v, y, s, b, p):
            mean.update_state(v)
            acc.update_state(y, s)
            auc.update_state(b, p)
            per_sample = losses.MeanSquaredError()(b[:, None], p[:, None])  # (4, 1): one loss per sample
            already_scalar = losses.MeanSquaredError()(b, p)  # (4,): the per-sample step gives a scalar
            return per_sample, already_scalar
        per_replica = strategy.run(replica_step, args=batch)
        return [strategy.reduce(tf.distribute.ReduceOp.SUM, v, axis=None) for v in per_replica]

    batch_losses = [[float(v) for v in step(b)] for b in strategy.experimental_distribute_dataset(data)]
    assert [float(v) for v in mean.count.values] == [8.0, 8.0], "each replica keeps its own count"
    np.testing.assert_allclose(float(mean.result()), values.mean(), rtol=1e-6)
    np.testing.assert_allclose(float(acc.result()), (scores.argmax(-1) == labels).mean(), rtol=1e-6)
    reference = metrics.AUC(num_thresholds=50)
    reference.update_state(binary, probs)
    np.testing.assert_allclose(float(auc.result()), float(reference.result()), rtol=1e-6)
    expected = [((binary[i:i + 8] - probs[i:i + 8]) ** 2).mean() for i in (0, 8)]
    np.testing.assert_allclose(np.array(batch_losses)[:, 0], expected, rtol=1e-5)  # per-replica losses scaled by 1/2
    np.testing.assert_allclose(np.array(batch_losses)[:, 1], expected, rtol=1e-5)
    for metric in (mean, acc, auc):
        metric.reset_state()
    assert float(mean.result()) == 0.0 and float(auc.true_positives.read_value()[0]) == 0.0
    print("MIRRORED-OK")
    """
)


@pytest.mark.slow
def test_metrics_and_loss_scaling_under_mirrored_strategy():
    env = dict(
        os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")
    )
    done = subprocess.run(
        [sys.executable, "-c", MIRRORED_SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        timeout=time_limits.seconds(300),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "MIRRORED-OK" in done.stdout


# ---------------------------------------------------------------- optional cross-check with Keras 3
def test_matches_keras_on_random_data():
    keras = pytest.importorskip("keras")
    y_bin, p_bin = binary_probs(64, 3)
    y_hot, p_hot = onehot_probs(64, 5)
    y_sparse = y_hot.argmax(-1)
    weight = (rng.random(64) + 0.2).astype(np.float32)
    checks = [
        (metrics.AUC(), keras.metrics.AUC(), y_bin, p_bin),
        (metrics.AUC(curve="PR"), keras.metrics.AUC(curve="PR"), y_bin, p_bin),
        (metrics.Precision(top_k=2), keras.metrics.Precision(top_k=2), y_bin, p_bin),
        (
            metrics.Recall(class_id=2, thresholds=[0.3, 0.6]),
            keras.metrics.Recall(class_id=2, thresholds=[0.3, 0.6]),
            y_bin,
            p_bin,
        ),
        (metrics.F1Score(average="weighted"), keras.metrics.F1Score(average="weighted"), y_hot, p_hot),
        (metrics.BinaryAccuracy(), keras.metrics.BinaryAccuracy(), y_bin, p_bin),
        (metrics.SparseTopKCategoricalAccuracy(k=2), keras.metrics.SparseTopKCategoricalAccuracy(k=2), y_sparse, p_hot),
        (metrics.CategoricalAccuracy(), keras.metrics.CategoricalAccuracy(), y_hot, p_hot),
        (metrics.RootMeanSquaredError(), keras.metrics.RootMeanSquaredError(), y_hot, p_hot),
    ]
    for ours, theirs, y_true, y_pred in checks:
        ours.update_state(y_true, y_pred, sample_weight=weight)
        theirs.update_state(y_true, y_pred, sample_weight=weight)
        np.testing.assert_allclose(ours.result(), np.asarray(theirs.result()), rtol=1e-5, atol=1e-6, err_msg=ours.name)
