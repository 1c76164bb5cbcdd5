"""tfkit.losses: every loss against a numpy formula, reductions, weights, masks, lookup and configs."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import losses
from tfkit.base import registry
from tfkit.engine import masking

EPS = 1e-7
rng = np.random.default_rng(1234)


# ---------------------------------------------------------------- numpy references (float64, per sample)
def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_log_softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=axis, keepdims=True))


def np_mse(t, p):
    return ((t - p) ** 2).mean(-1)


def np_mae(t, p):
    return np.abs(t - p).mean(-1)


def np_mape(t, p):
    return 100.0 * (np.abs(t - p) / np.maximum(np.abs(t), EPS)).mean(-1)


def np_msle(t, p):
    return ((np.log(np.maximum(p, EPS) + 1) - np.log(np.maximum(t, EPS) + 1)) ** 2).mean(-1)


def np_huber(t, p, delta=1.0):
    e = p - t
    return np.where(np.abs(e) <= delta, 0.5 * e**2, delta * np.abs(e) - 0.5 * delta**2).mean(-1)


def np_log_cosh(t, p):
    return np.log(np.cosh(p - t)).mean(-1)


def np_hinge_labels(t):
    return 2 * t - 1 if np.all((t == 0) | (t == 1)) else t


def np_hinge(t, p):
    return np.maximum(1 - np_hinge_labels(t) * p, 0).mean(-1)


def np_squared_hinge(t, p):
    return (np.maximum(1 - np_hinge_labels(t) * p, 0) ** 2).mean(-1)


def np_categorical_hinge(t, p):
    return np.maximum(((1 - t) * p).max(-1) - (t * p).sum(-1) + 1, 0)


def np_kld(t, p):
    t, p = np.clip(t, EPS, 1), np.clip(p, EPS, 1)
    return (t * np.log(t / p)).sum(-1)


def np_poisson(t, p):
    return (p - t * np.log(p + EPS)).mean(-1)


def np_cosine(t, p, axis=-1):
    tn = t / np.maximum(np.linalg.norm(t, axis=axis, keepdims=True), EPS)
    pn = p / np.maximum(np.linalg.norm(p, axis=axis, keepdims=True), EPS)
    return -(tn * pn).sum(axis)


def np_bce_elementwise(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        return np.maximum(p, 0) - p * t + np.log1p(np.exp(-np.abs(p)))
    p = np.clip(p, EPS, 1 - EPS)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p))


def np_bce(t, p, from_logits=False, label_smoothing=0.0):
    return np_bce_elementwise(t, p, from_logits, label_smoothing).mean(-1)


def np_focal(t, p, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        p = np_sigmoid(p)
    bce = np_bce_elementwise(t, p)
    p_t = t * p + (1 - t) * (1 - p)
    focal = (1 - p_t) ** gamma * bce
    if apply_class_balancing:
        focal = (t * alpha + (1 - t) * (1 - alpha)) * focal
    return focal.mean(-1)


def np_cce(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + label_smoothing / t.shape[-1]
    if from_logits:
        return -(t * np_log_softmax(p)).sum(-1)
    p = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return -(t * np.log(p)).sum(-1)


def np_scce(t, p, from_logits=False):
    logp = np_log_softmax(p) if from_logits else np.log(np.clip(p, EPS, 1 - EPS))
    if not from_logits:
        logp = np_log_softmax(logp)  # softmax of log-probabilities renormalizes, as TF does
    t = t.astype(int)
    return -np.take_along_axis(logp, t[..., None], axis=-1)[..., 0]


# ---------------------------------------------------------------- data
def probs(shape):
    x = rng.random(shape) + 0.05
    return x / x.sum(-1, keepdims=True)


def regression_data(shape=(6, 4)):
    return rng.normal(size=shape), rng.normal(size=shape)


def positive_data(shape=(6, 4)):
    return rng.random(shape) * 3 + 0.1, rng.random(shape) * 3 + 0.1


def binary_data(shape=(6, 3)):
    return rng.integers(0, 2, shape).astype(float), rng.random(shape) * 0.98 + 0.01


def binary_logit_data(shape=(6, 3)):
    return rng.integers(0, 2, shape).astype(float), rng.normal(scale=4.0, size=shape)


def onehot_data(batch=6, classes=4, logits=False):
    t = np.eye(classes)[rng.integers(0, classes, batch)]
    return t, (rng.normal(scale=3.0, size=(batch, classes)) if logits else probs((batch, classes)))


def sparse_data(batch=6, classes=4, logits=False):
    t = rng.integers(0, classes, batch)
    return t, (rng.normal(scale=3.0, size=(batch, classes)) if logits else probs((batch, classes)))


CASES = [
    ("mse", losses.MeanSquaredError, {}, np_mse, regression_data),
    ("mae", losses.MeanAbsoluteError, {}, np_mae, regression_data),
    ("mape", losses.MeanAbsolutePercentageError, {}, np_mape, regression_data),
    ("msle", losses.MeanSquaredLogarithmicError, {}, np_msle, positive_data),
    ("huber", losses.Huber, {}, np_huber, regression_data),
    ("huber_delta", losses.Huber, {"delta": 0.3}, lambda t, p: np_huber(t, p, 0.3), regression_data),
    ("log_cosh", losses.LogCosh, {}, np_log_cosh, regression_data),
    ("hinge01", losses.Hinge, {}, np_hinge, binary_logit_data),
    ("hinge_pm1", losses.Hinge, {}, np_hinge, lambda: (2 * binary_data()[0] - 1, rng.normal(size=(6, 3)))),
    ("squared_hinge", losses.SquaredHinge, {}, np_squared_hinge, binary_logit_data),
    ("categorical_hinge", losses.CategoricalHinge, {}, np_categorical_hinge, lambda: onehot_data(logits=True)),
    ("kld", losses.KLDivergence, {}, np_kld, lambda: (probs((6, 4)), probs((6, 4)))),
    ("poisson", losses.Poisson, {}, np_poisson, positive_data),
    ("cosine", losses.CosineSimilarity, {}, np_cosine, regression_data),
    (
        "cosine_axis0",
        losses.CosineSimilarity,
        {"axis": 0, "reduction": "none"},
        lambda t, p: np_cosine(t, p, 0),
        lambda: regression_data((4, 4)),
    ),
    ("bce", losses.BinaryCrossentropy, {}, np_bce, binary_data),
    (
        "bce_logits",
        losses.BinaryCrossentropy,
        {"from_logits": True},
        lambda t, p: np_bce(t, p, True),
        binary_logit_data,
    ),
    (
        "bce_smooth",
        losses.BinaryCrossentropy,
        {"label_smoothing": 0.2},
        lambda t, p: np_bce(t, p, False, 0.2),
        binary_data,
    ),
    (
        "bce_logits_smooth",
        losses.BinaryCrossentropy,
        {"from_logits": True, "label_smoothing": 0.1},
        lambda t, p: np_bce(t, p, True, 0.1),
        binary_logit_data,
    ),
    ("focal", losses.BinaryFocalCrossentropy, {}, np_focal, binary_data),
    (
        "focal_balanced_logits",
        losses.BinaryFocalCrossentropy,
        {"apply_class_balancing": True, "alpha": 0.4, "gamma": 1.5, "from_logits": True, "label_smoothing": 0.1},
        lambda t, p: np_focal(t, p, True, 0.4, 1.5, True, 0.1),
        binary_logit_data,
    ),
    ("cce", losses.CategoricalCrossentropy, {}, np_cce, onehot_data),
    (
        "cce_logits",
        losses.CategoricalCrossentropy,
        {"from_logits": True},
        lambda t, p: np_cce(t, p, True),
        lambda: onehot_data(logits=True),
    ),
    (
        "cce_smooth",
        losses.CategoricalCrossentropy,
        {"label_smoothing": 0.3},
        lambda t, p: np_cce(t, p, False, 0.3),
        onehot_data,
    ),
    (
        "cce_logits_smooth",
        losses.CategoricalCrossentropy,
        {"from_logits": True, "label_smoothing": 0.1},
        lambda t, p: np_cce(t, p, True, 0.1),
        lambda: onehot_data(logits=True),
    ),
    ("scce", losses.SparseCategoricalCrossentropy, {}, np_scce, sparse_data),
    (
        "scce_logits",
        losses.SparseCategoricalCrossentropy,
        {"from_logits": True},
        lambda t, p: np_scce(t, p, True),
        lambda: sparse_data(logits=True),
    ),
]
CASE_IDS = [c[0] for c in CASES]


def _no_reduction_kwargs(kwargs):
    return {k: v for k, v in kwargs.items() if k != "reduction"}


# ---------------------------------------------------------------- values
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_loss_matches_numpy_formula(case):
    _, cls, kwargs, reference, make = case
    y_true, y_pred = make()
    expected = reference(y_true, y_pred)
    loss = cls(**kwargs)
    value = loss(y_true, y_pred).numpy()
    if kwargs.get("reduction") == "none":
        np.testing.assert_allclose(value, expected, rtol=1e-4, atol=1e-5)
    else:
        assert value.shape == ()
        np.testing.assert_allclose(value, expected.mean(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_loss_function_gives_per_sample_values(case):
    _, cls, kwargs, reference, make = case
    y_true, y_pred = make()
    fn = cls.function
    value = fn(tf.constant(y_true, tf.float32), tf.constant(y_pred, tf.float32), **_no_reduction_kwargs(kwargs))
    np.testing.assert_allclose(value.numpy(), reference(y_true, y_pred), rtol=1e-4, atol=1e-5)


XLA_CASES = [
    "mse",
    "huber",
    "log_cosh",
    "hinge01",
    "kld",
    "cosine",
    "bce",
    "focal_balanced_logits",
    "cce_smooth",
    "scce",
    "scce_logits",
]


def test_every_loss_inside_tf_function_and_xla():
    # One graph and one XLA compilation for all losses keeps this fast.
    data = [tuple(tf.constant(a, tf.float32) for a in case[4]()) for case in CASES]
    objects = [case[1](**_no_reduction_kwargs(case[2])) for case in CASES]

    def all_losses(batches):
        return [loss(t, p) for loss, (t, p) in zip(objects, batches)]

    eager = [v.numpy() for v in all_losses(data)]
    graph = [v.numpy() for v in tf.function(all_losses)(data)]
    for case_id, e, g in zip(CASE_IDS, eager, graph):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6, err_msg=case_id)
    # XLA on one case per code path (compiling is the slow part).
    picked = [CASE_IDS.index(i) for i in XLA_CASES]
    xla = tf.function(lambda batches: [objects[i](*batches[i]) for i in picked], jit_compile=True)(data)
    for i, x in zip(picked, xla):
        np.testing.assert_allclose(x.numpy(), eager[i], rtol=1e-4, atol=1e-5, err_msg=CASE_IDS[i])


# ---------------------------------------------------------------- reductions and weights
def _weighted_reference(per_element, weight, reduction):
    weight = np.broadcast_to(weight, per_element.shape)
    weighted = per_element * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean_with_sample_weight":
        return weighted.sum() / weight.sum()
    return weighted.sum() / weighted.size


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "mean", "sum", "none", None, "mean_with_sample_weight"])
def test_each_reduction_with_per_sample_weights(reduction):
    y_true, y_pred = regression_data((8, 3))
    weight = rng.random(8) * 2
    value = losses.MeanSquaredError(reduction=reduction)(y_true, y_pred, sample_weight=weight).numpy()
    expected = _weighted_reference(np_mse(y_true, y_pred), weight, reduction or "none")
    np.testing.assert_allclose(value, expected, rtol=1e-5)


def test_default_reduction_is_mean_over_samples():
    y_true, y_pred = regression_data((5, 2))
    assert losses.MeanSquaredError().reduction == "sum_over_batch_size"
    np.testing.assert_allclose(losses.MeanSquaredError()(y_true, y_pred), np_mse(y_true, y_pred).mean(), rtol=1e-5)


@pytest.mark.parametrize("weight_shape", [(4,), (4, 1), (4, 5), ()])
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "mean_with_sample_weight"])
def test_weights_broadcast_over_time_steps(weight_shape, reduction):
    # y: (batch=4, time=5, features=3) -> per-element losses (4, 5)
    y_true, y_pred = regression_data((4, 5, 3))
    weight = rng.random(weight_shape) + 0.1
    value = losses.MeanAbsoluteError(reduction=reduction)(y_true, y_pred, sample_weight=weight).numpy()
    per = np_mae(y_true, y_pred)
    w = weight.reshape(weight.shape + (1,) * (2 - weight.ndim)) if 0 < weight.ndim < 2 else weight
    np.testing.assert_allclose(value, _weighted_reference(per, w, reduction), rtol=1e-5)


def test_zero_weights_give_zero_not_nan():
    y_true, y_pred = regression_data((3, 2))
    for reduction in ("sum_over_batch_size", "mean_with_sample_weight", "sum"):
        value = losses.MeanSquaredError(reduction=reduction)(y_true, y_pred, sample_weight=np.zeros(3))
        assert float(value) == 0.0


def test_invalid_reduction_is_a_clear_error():
    with pytest.raises(ValueError, match="Invalid reduction 'avg'"):
        losses.MeanSquaredError(reduction="avg")


def test_rank_one_targets_against_single_unit_predictions():
    # y_true (batch,) and y_pred (batch, 1) line up instead of broadcasting to (batch, batch)
    y_true = rng.integers(0, 2, 6).astype(float)
    y_pred = rng.random((6, 1)) * 0.98 + 0.01
    expected = np_bce(y_true[:, None], y_pred).mean()
    np.testing.assert_allclose(losses.BinaryCrossentropy()(y_true, y_pred), expected, rtol=1e-5)
    np.testing.assert_allclose(
        losses.MeanSquaredError()(y_true, y_pred), np_mse(y_true[:, None], y_pred).mean(), rtol=1e-5
    )


# ---------------------------------------------------------------- crossentropy specifics
def test_sparse_ignore_class_contributes_nothing_and_leaves_the_mean():
    y_true = np.array([0, 2, -1, 1, -1, 3])
    y_pred = probs((6, 4))
    valid = y_true != -1
    per = np.zeros(6)
    per[valid] = np_scce(y_true[valid], y_pred[valid])
    loss = losses.SparseCategoricalCrossentropy(ignore_class=-1)
    np.testing.assert_allclose(loss(y_true, y_pred), per[valid].mean(), rtol=1e-5)
    summed = losses.SparseCategoricalCrossentropy(ignore_class=-1, reduction="sum")
    np.testing.assert_allclose(summed(y_true, y_pred), per.sum(), rtol=1e-5)
    none = losses.SparseCategoricalCrossentropy(ignore_class=-1, reduction="none")
    np.testing.assert_allclose(none(y_true, y_pred), per, rtol=1e-5, atol=1e-7)
    weight = rng.random(6) + 0.5
    np.testing.assert_allclose(
        loss(y_true, y_pred, sample_weight=weight), (per * weight)[valid].sum() / valid.sum(), rtol=1e-5
    )
    by_weight = losses.SparseCategoricalCrossentropy(ignore_class=-1, reduction="mean_with_sample_weight")
    np.testing.assert_allclose(
        by_weight(y_true, y_pred, sample_weight=weight), (per * weight).sum() / weight[valid].sum(), rtol=1e-5
    )
    jitted = tf.function(lambda t, p: loss(t, p), jit_compile=True)
    np.testing.assert_allclose(
        jitted(tf.constant(y_true), tf.constant(y_pred, tf.float32)), per[valid].mean(), rtol=1e-5
    )


def test_sparse_ignore_class_over_sequences():
    # segmentation-like: (batch, pixels) targets with a "void" class 255
    y_true = rng.integers(0, 3, (2, 5))
    y_true[0, 1] = y_true[1, 4] = 255
    logits = rng.normal(size=(2, 5, 3))
    valid = y_true != 255
    per = np_scce(np.where(valid, y_true, 0), logits, from_logits=True)
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=255)
    np.testing.assert_allclose(loss(y_true, logits), per[valid].mean(), rtol=1e-5)


def test_sparse_targets_with_trailing_unit_axis_and_integer_dtype():
    y_true, y_pred = sparse_data()
    expected = np_scce(y_true, y_pred).mean()
    loss = losses.SparseCategoricalCrossentropy()
    np.testing.assert_allclose(loss(y_true[:, None].astype(np.int64), y_pred), expected, rtol=1e-5)
    np.testing.assert_allclose(loss(y_true.astype(np.float32), y_pred), expected, rtol=1e-5)


def test_from_logits_is_stable_for_extreme_scores():
    logits = np.array([[80.0, -80.0, 0.0]])
    targets = np.array([[0.0, 1.0, 1.0]])
    value = losses.BinaryCrossentropy(from_logits=True, reduction="none")(targets, logits).numpy()
    np.testing.assert_allclose(value, np_bce(targets, logits, from_logits=True), rtol=1e-5)
    assert np.isfinite(losses.CategoricalCrossentropy(from_logits=True)(np.eye(3)[[1]], logits).numpy())


def test_probabilities_are_clipped_like_keras():
    value = losses.BinaryCrossentropy()(np.array([[1.0]]), np.array([[0.0]])).numpy()
    np.testing.assert_allclose(value, -np.log(EPS), rtol=1e-3)
    value = losses.CategoricalCrossentropy()(np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]])).numpy()
    np.testing.assert_allclose(value, -np.log(EPS), rtol=1e-3)


def test_sigmoid_and_softmax_outputs_use_their_logits_inside_tf_function():
    logits = tf.constant([[30.0, -30.0], [12.0, -25.0]])
    binary_targets = tf.constant([[0.0, 1.0], [0.0, 1.0]])
    exact = np_bce(binary_targets.numpy(), logits.numpy().astype(np.float64), from_logits=True).mean()
    graph = tf.function(lambda t, x: losses.BinaryCrossentropy()(t, tf.sigmoid(x)))(binary_targets, logits)
    np.testing.assert_allclose(graph, exact, rtol=1e-5)
    eager_clipped = losses.BinaryCrossentropy()(binary_targets, tf.sigmoid(logits))
    assert float(eager_clipped) < exact  # the eager path can only see the clipped probabilities
    onehot = tf.constant([[0.0, 1.0], [0.0, 1.0]])
    graph_cce = tf.function(lambda t, x: losses.CategoricalCrossentropy()(t, tf.nn.softmax(x)))(onehot, logits)
    np.testing.assert_allclose(
        graph_cce, np_cce(onehot.numpy(), logits.numpy().astype(np.float64), True).mean(), rtol=1e-5
    )


def test_categorical_crossentropy_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"y_true.shape=\(2, 3\) and y_pred.shape=\(2, 4\)"):
        losses.categorical_crossentropy(tf.zeros((2, 3)), tf.ones((2, 4)) / 4)


def test_sparse_crossentropy_rejects_wrong_target_rank():
    with pytest.raises(ValueError, match="y_true of shape y_pred.shape\\[:-1\\]"):
        losses.sparse_categorical_crossentropy(tf.zeros((2, 3, 4)), tf.ones((2, 3)) / 3)


# ---------------------------------------------------------------- masks and dtypes
def test_mask_on_predictions_excludes_padded_steps():
    y_true, y_pred = regression_data((2, 4, 3))
    mask = np.array([[True, True, False, False], [True, True, True, False]])
    p = tf.constant(y_pred, tf.float32)
    masking.set_mask(p, tf.constant(mask))
    per = np_mse(y_true, y_pred)
    np.testing.assert_allclose(losses.MeanSquaredError()(y_true, p), per[mask].mean(), rtol=1e-5)
    np.testing.assert_allclose(losses.MeanSquaredError(reduction="sum")(y_true, p), per[mask].sum(), rtol=1e-5)


def test_inputs_are_cast_to_the_loss_dtype():
    y_true, y_pred = regression_data((3, 2))
    half = losses.MeanSquaredError()(y_true.astype(np.int32), tf.constant(y_pred, tf.float16))
    assert half.dtype == tf.float32
    double = losses.MeanSquaredError(dtype="float64")(y_true, y_pred)
    assert double.dtype == tf.float64
    np.testing.assert_allclose(double, np_mse(y_true, y_pred).mean(), rtol=1e-12)


# ---------------------------------------------------------------- base class, wrapper, lookup, configs
def test_subclassing_loss_needs_only_call():
    class ScaledAbsolute(losses.Loss):
        def call(self, y_true, y_pred):
            return 2.0 * tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)

    y_true, y_pred = regression_data((4, 3))
    loss = ScaledAbsolute()
    assert loss.name == "scaled_absolute"
    np.testing.assert_allclose(loss(y_true, y_pred), 2 * np_mae(y_true, y_pred).mean(), rtol=1e-5)
    assert ScaledAbsolute.from_config(loss.get_config()).get_config() == loss.get_config()


def test_get_gives_functions_for_function_names_and_instances_for_class_names():
    # Keras 3: keras.losses.get("mean_squared_error") is the function, get("MeanSquaredError") an instance
    assert losses.get("mse") is losses.mean_squared_error
    assert losses.get("MSE") is losses.mean_squared_error
    assert losses.get("mean_squared_error") is losses.mean_squared_error
    assert losses.get("mae") is losses.mean_absolute_error
    assert losses.get("binary_crossentropy") is losses.binary_crossentropy
    assert losses.get("sparse_categorical_crossentropy") is losses.sparse_categorical_crossentropy
    assert losses.get("kld") is losses.kl_divergence and losses.get("bce") is losses.binary_crossentropy
    assert isinstance(losses.get("MeanSquaredError"), losses.MeanSquaredError)
    assert isinstance(losses.get(losses.Huber), losses.Huber)
    assert losses.get(None) is None
    bce = losses.BinaryCrossentropy(from_logits=True)
    assert losses.get(bce) is bce
    got = losses.get({"class_name": "CategoricalCrossentropy", "config": {"from_logits": True, "label_smoothing": 0.1}})
    assert got.from_logits is True and got.label_smoothing == 0.1


def test_get_matches_keras_for_every_keras_loss_name():
    keras = pytest.importorskip("keras")
    from keras.src.losses import ALL_OBJECTS_DICT

    for name, theirs in ALL_OBJECTS_DICT.items():
        if name in ("Loss", "LossFunctionWrapper"):  # base classes: Keras's get cannot build them either
            continue
        ours = losses.get(name)
        if isinstance(theirs, type):
            assert isinstance(ours, losses.Loss) and type(ours).__name__ == theirs.__name__, name
        else:
            assert ours is getattr(losses, theirs.__name__), name
            assert type(keras.losses.get(name)) is type(theirs)


def test_loss_object_gives_what_compile_uses():
    assert isinstance(losses.loss_object("mse"), losses.MeanSquaredError)
    assert isinstance(losses.loss_object("mean_squared_error"), losses.MeanSquaredError)
    assert isinstance(losses.loss_object("kld"), losses.KLDivergence)
    assert isinstance(losses.loss_object(losses.Huber), losses.Huber)
    assert losses.loss_object(None) is None
    wrapped = losses.loss_object(losses.mean_absolute_error)
    assert isinstance(wrapped, losses.LossFunctionWrapper) and wrapped.fn is losses.mean_absolute_error


def test_plain_functions_and_aliases():
    y_true, y_pred = regression_data((4, 3))
    assert losses.mse is losses.mean_squared_error and losses.mae is losses.mean_absolute_error
    np.testing.assert_allclose(losses.mse(y_true, y_pred), np_mse(y_true, y_pred), rtol=1e-5)
    assert losses.binary_crossentropy is losses.bce


def test_loss_object_wraps_a_plain_callable():
    def double_mae(y_true, y_pred):
        return 2.0 * tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1)

    assert losses.get(double_mae) is double_mae  # as Keras: a function comes back as it is
    loss = losses.loss_object(double_mae)
    assert isinstance(loss, losses.LossFunctionWrapper) and loss.name == "double_mae"
    y_true, y_pred = regression_data((4, 3))
    np.testing.assert_allclose(loss(y_true, y_pred), 2 * np_mae(y_true, y_pred).mean(), rtol=1e-5)


def test_unknown_names_are_clear_errors():
    with pytest.raises(ValueError, match="'mean_sqared_error'"):
        losses.get("mean_sqared_error")
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        losses.get(42)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_config_round_trip_is_plain_json(case):
    _, cls, kwargs, _, make = case
    loss = cls(**kwargs, name="my_loss")
    serialized = losses.serialize(loss)
    text = json.dumps(serialized)
    rebuilt = losses.deserialize(json.loads(text))
    assert type(rebuilt) is cls
    assert rebuilt.get_config() == loss.get_config()
    y_true, y_pred = make()
    np.testing.assert_allclose(rebuilt(y_true, y_pred), loss(y_true, y_pred), rtol=1e-6)


def test_function_wrapper_config_names_its_function():
    wrapper = losses.LossFunctionWrapper(losses.huber, name="robust", reduction="sum", delta=0.5)
    config = losses.serialize(wrapper)
    assert config["config"]["fn"] == "huber" and config["config"]["delta"] == 0.5
    rebuilt = losses.deserialize(json.loads(json.dumps(config)))
    y_true, y_pred = regression_data((3, 4))
    np.testing.assert_allclose(rebuilt(y_true, y_pred), np_huber(y_true, y_pred, 0.5).sum(), rtol=1e-5)
    assert losses.serialize(losses.mean_squared_error) == "mean_squared_error"


def test_custom_registered_function_serializes_by_its_registered_name():
    @registry.register_serializable(package="test_losses")
    def cubic_error(y_true, y_pred):
        return tf.reduce_mean(tf.abs(y_true - y_pred) ** 3, axis=-1)

    config = losses.serialize(losses.loss_object(cubic_error))
    assert config["config"]["fn"] == "test_losses>cubic_error"
    assert losses.deserialize(config).fn is cubic_error

    def unregistered(y_true, y_pred):
        return y_true - y_pred

    config = losses.serialize(losses.loss_object(unregistered))  # saved by its own name, as data
    assert config["config"]["fn"] == "unregistered"
    with pytest.raises(ValueError, match=r"custom_objects=\{'unregistered': unregistered\}"):
        losses.deserialize(config)
    with tfkit.saving.custom_object_scope({"unregistered": unregistered}):
        assert losses.deserialize(config).fn is unregistered


def test_is_loss_of_kind_recognizes_objects_functions_and_names():
    assert losses.is_loss_of_kind("binary_crossentropy", "binary")
    assert losses.is_loss_of_kind(losses.BinaryFocalCrossentropy(), "binary")
    assert losses.is_loss_of_kind(losses.sparse_categorical_crossentropy, "sparse")
    assert losses.is_loss_of_kind(losses.loss_object(losses.sparse_categorical_crossentropy), "sparse")
    assert losses.is_loss_of_kind("categorical_crossentropy", "categorical")
    assert not losses.is_loss_of_kind("mse", "binary")
    assert not losses.is_loss_of_kind(None, "sparse")
    assert not losses.is_loss_of_kind("no_such_loss", "sparse")


def test_gradients_flow_through_the_loss():
    y_true, y_pred = onehot_data(logits=True)
    logits = tf.Variable(y_pred, dtype=tf.float32)
    with tf.GradientTape() as tape:
        value = losses.CategoricalCrossentropy(from_logits=True)(y_true, logits)
    grad = tape.gradient(value, logits).numpy()
    softmax = np.exp(np_log_softmax(y_pred))
    np.testing.assert_allclose(grad, (softmax - y_true) / len(y_true), rtol=1e-4, atol=1e-6)


# ---------------------------------------------------------------- optional cross-check with Keras 3
def test_matches_keras_on_random_data():
    keras = pytest.importorskip("keras")
    checks = [
        (losses.MeanSquaredError(), keras.losses.MeanSquaredError(), regression_data),
        (losses.Huber(delta=0.7), keras.losses.Huber(delta=0.7), regression_data),
        (losses.LogCosh(), keras.losses.LogCosh(), regression_data),
        (
            losses.BinaryCrossentropy(label_smoothing=0.1),
            keras.losses.BinaryCrossentropy(label_smoothing=0.1),
            binary_data,
        ),
        (
            losses.BinaryFocalCrossentropy(apply_class_balancing=True, from_logits=True),
            keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, from_logits=True),
            binary_logit_data,
        ),
        (
            losses.CategoricalCrossentropy(from_logits=True),
            keras.losses.CategoricalCrossentropy(from_logits=True),
            lambda: onehot_data(logits=True),
        ),
        (losses.SparseCategoricalCrossentropy(), keras.losses.SparseCategoricalCrossentropy(), sparse_data),
        (losses.Hinge(), keras.losses.Hinge(), binary_logit_data),
        (losses.KLDivergence(), keras.losses.KLDivergence(), lambda: (probs((6, 4)), probs((6, 4)))),
        (losses.CosineSimilarity(), keras.losses.CosineSimilarity(), regression_data),
    ]
    for ours, theirs, make in checks:
        y_true, y_pred = make()
        weight = rng.random(len(y_true))
        t, p = y_true.astype(np.float32), y_pred.astype(np.float32)
        np.testing.assert_allclose(
            ours(t, p, sample_weight=weight),
            np.asarray(theirs(t, p, sample_weight=weight)),
            rtol=1e-5,
            atol=1e-6,
            err_msg=type(ours).__name__,
        )
