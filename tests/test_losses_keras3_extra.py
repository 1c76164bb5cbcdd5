"""Keras 3's newer losses: Dice, Tversky, CategoricalFocalCrossentropy, CategoricalGeneralizedCrossEntropy,
Circle and CTC (issue 19): hand-computed values, Keras side by side, configs, compile/fit/save/load."""

import warnings

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers, losses

RNG = np.random.default_rng(0)
SEG_TRUE = RNG.integers(0, 2, (4, 3, 3, 1)).astype("float32")
SEG_PRED = RNG.random((4, 3, 3, 1)).astype("float32")
ONE_HOT = np.eye(4, dtype="float32")[RNG.integers(0, 4, 6)]
SCORES = RNG.random((6, 4)).astype("float32")
IDS = RNG.integers(0, 4, 6)
EMBEDDINGS = (lambda e: e / np.linalg.norm(e, axis=-1, keepdims=True))(RNG.normal(size=(8, 5)).astype("float32"))
EMB_LABELS = np.array([0, 0, 1, 1, 2, 2, 3, 4])
CTC_LABELS = np.array([[1, 2, 0], [3, 3, 1]])
CTC_LOGITS = RNG.normal(size=(2, 6, 5)).astype("float32")
WEIGHTS = np.array([1.0, 0.5, 0.0, 2.0], "float32")

# (class name, constructor kwargs, y_true, y_pred, sample_weight)
CASES = [
    ("Dice", {}, SEG_TRUE, SEG_PRED, None),
    ("Dice", {"axis": (1, 2, 3)}, SEG_TRUE, SEG_PRED, WEIGHTS),
    ("Tversky", {"alpha": 0.3, "beta": 0.7, "axis": (1, 2, 3)}, SEG_TRUE, SEG_PRED, WEIGHTS),
    ("CategoricalFocalCrossentropy", {}, ONE_HOT, SCORES, None),
    (
        "CategoricalFocalCrossentropy",
        {"alpha": [0.1, 0.2, 0.3, 0.4], "gamma": 1.5, "from_logits": True, "label_smoothing": 0.1},
        ONE_HOT,
        SCORES,
        np.linspace(0, 1, 6).astype("float32"),
    ),
    ("CategoricalGeneralizedCrossEntropy", {"q": 0.7}, IDS, tf.nn.softmax(SCORES).numpy(), None),
    ("Circle", {}, EMB_LABELS, EMBEDDINGS, None),
    ("Circle", {"gamma": 10.0, "margin": 0.25, "remove_diagonal": False}, EMB_LABELS, EMBEDDINGS, None),
    ("CTC", {}, CTC_LABELS, CTC_LOGITS, None),
]
REDUCTIONS = ["sum_over_batch_size", "sum", None, "mean_with_sample_weight"]


def _ids(case):
    return f"{case[0]}-{sorted(case[1])}"


# ------------------------------------------------------------------ hand-computed values


def test_dice_and_tversky_by_hand():
    y_true = np.array([[1.0, 1.0, 0.0, 0.0]])
    y_pred = np.array([[1.0, 0.5, 0.5, 0.0]])
    # intersection 1.5, sum(y_true) 2, sum(y_pred) 2 -> 1 - 3 / 4
    assert float(losses.dice(y_true, y_pred)) == pytest.approx(0.25, abs=1e-6)
    # fp = sum((1 - p) t) = 0.5, fn = sum(p (1 - t)) = 0.5 -> 1 - 1.5 / (1.5 + 0.2 * 0.5 + 0.8 * 0.5)
    assert float(losses.tversky(y_true, y_pred, alpha=0.2, beta=0.8)) == pytest.approx(1 - 1.5 / 2.0, abs=1e-6)
    per_sample = losses.Dice(axis=1, reduction=None)(
        np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])
    )
    np.testing.assert_allclose(per_sample.numpy(), [0.0, 1 - 2 * 1 / 3], atol=1e-6)


def test_focal_generalized_circle_and_ctc_by_hand():
    # one sample, probabilities [0.2, 0.8], true class 1: alpha (1 - p)^gamma * -log p
    value = losses.categorical_focal_crossentropy([[0.0, 1.0]], [[0.2, 0.8]], alpha=0.5, gamma=2.0)
    assert float(value[0]) == pytest.approx(0.5 * 0.2**2 * -np.log(0.8), rel=1e-5)
    gce = losses.categorical_generalized_cross_entropy([1], [[0.36, 0.64]], q=0.5)
    assert float(gce[0]) == pytest.approx((1 - 0.8) / 0.5, rel=1e-5)
    # Two identical embeddings of one class and one orthogonal of another: sample 0 has distance 0 to its
    # positive and 1 to its negative; Circle's terms are then computable by hand.
    emb = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], "float32")
    per_sample = losses.Circle(gamma=2.0, margin=0.25, reduction=None)([0, 0, 1], emb).numpy()
    pos = -2.0 * (0.25 + 0.0) * (0.25 - 0.0)  # -gamma * (m + d) * (m - d), d = 0
    neg = 2.0 * (1.25 - 1.0) * (0.75 - 1.0)  # gamma * (1 + m - d) * (1 - m - d), d = 1
    assert per_sample[0] == pytest.approx(np.log1p(np.exp(pos + neg)), rel=1e-5)
    assert per_sample[2] == 0.0  # no positive pair: masked out
    # CTC with one time step and one label: -log softmax(logits)[label]
    logits = np.array([[[0.0, 1.0, 2.0]]], "float32")
    expected = -np.log(np.exp(1.0) / np.exp([0.0, 1.0, 2.0]).sum())
    assert float(losses.ctc(np.array([[1]]), logits)[0]) == pytest.approx(expected, rel=1e-5)


# ------------------------------------------------------------------ Keras side by side


@pytest.mark.parametrize("case", CASES, ids=_ids)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_matches_keras(case, reduction):
    keras = pytest.importorskip("keras")
    name, kwargs, y_true, y_pred, weight = case
    expected = getattr(keras.losses, name)(reduction=reduction, **kwargs)(y_true, y_pred, sample_weight=weight)
    got = getattr(losses, name)(reduction=reduction, **kwargs)(y_true, y_pred, sample_weight=weight)
    np.testing.assert_allclose(got.numpy(), np.asarray(expected), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_config_matches_keras_and_round_trips(case):
    keras = pytest.importorskip("keras")
    name, kwargs, *_ = case
    ours = getattr(losses, name)(**kwargs)
    theirs = getattr(keras.losses, name)(**kwargs)
    config = ours.get_config()
    keras_config = {"dtype": "float32", **theirs.get_config()}  # tfkit's losses always write their dtype
    keras_config = {k: list(v) if isinstance(v, tuple) else v for k, v in keras_config.items()}
    assert config == keras_config
    twin = losses.deserialize(losses.serialize(ours))
    assert type(twin) is type(ours) and twin.get_config() == config


@pytest.mark.parametrize(
    "name, fn",
    [
        ("dice", "dice"),
        ("tversky", "tversky"),
        ("categorical_focal_crossentropy", "categorical_focal_crossentropy"),
        ("circle", "circle"),
        ("ctc", "ctc"),
        ("CategoricalGeneralizedCrossEntropy", "categorical_generalized_cross_entropy"),
    ],
)
def test_names_and_function_forms(name, fn):
    loss = losses.loss_object(name)
    assert isinstance(loss, losses.Loss)
    assert callable(getattr(losses, fn))
    assert losses.serialize(getattr(losses, fn)) == fn


def test_function_forms_match_keras():
    keras = pytest.importorskip("keras")
    pairs = [
        ("dice", (SEG_TRUE, SEG_PRED), {"axis": (1, 2)}),
        ("tversky", (SEG_TRUE, SEG_PRED), {"alpha": 0.1, "beta": 0.9}),
        ("categorical_focal_crossentropy", (ONE_HOT, SCORES), {"gamma": 3.0}),
        ("circle", (EMB_LABELS, EMBEDDINGS), {"ref_labels": EMB_LABELS[::-1], "ref_embeddings": EMBEDDINGS[::-1]}),
        ("ctc", (CTC_LABELS, CTC_LOGITS), {}),
    ]
    for fn, args, kwargs in pairs:
        expected = getattr(keras.losses, fn)(*args, **kwargs)
        np.testing.assert_allclose(
            getattr(losses, fn)(*args, **kwargs).numpy(), np.asarray(expected), rtol=2e-5, atol=1e-6, err_msg=fn
        )


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: losses.CategoricalGeneralizedCrossEntropy(q=1.5), "q must be in the interval"),
        (lambda: losses.Dice(axis="rows"), "axis must be None, an int or a tuple"),
        (lambda: losses.Tversky(alpha="a lot"), "alpha must be a number"),
        (lambda: losses.CategoricalFocalCrossentropy(label_smoothing=2.0), "label_smoothing must be in"),
        (lambda: losses.Circle(reduction="average"), "Invalid reduction 'average'"),
        (
            lambda: losses.CTC()(np.zeros((2, 3, 1)), CTC_LOGITS),
            r"ctc expects y_true of shape \(batch_size, max_length\)",
        ),
        (lambda: losses.CTC()(CTC_LABELS, CTC_LOGITS[0]), r"y_pred.shape=\(6, 5\)"),
    ],
)
def test_bad_arguments_say_what_is_wrong(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_focal_warns_about_a_single_class():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        losses.categorical_focal_crossentropy([[1.0]], [[0.9]])
    assert any("num_classes > 1" in str(w.message) for w in caught)


# ------------------------------------------------------------------ compile, fit, save, load, keep training


def _continue_after_reload(model, x, y, tmp_path, epochs=1):
    model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    path = str(tmp_path / "model.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert loaded.get_compile_config() == model.get_compile_config()
    expected = model.fit(x, y, epochs=epochs, batch_size=4, verbose=0, shuffle=False).history["loss"]
    got = loaded.fit(x, y, epochs=epochs, batch_size=4, verbose=0, shuffle=False).history["loss"]
    assert got == pytest.approx(expected, rel=1e-5)
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)
    return loaded


@pytest.mark.parametrize("loss", ["dice", losses.Tversky(alpha=0.3, beta=0.7, axis=(1,))])
def test_segmentation_losses_train_compiled_with_xla_and_reload(loss, tmp_path):
    model = tfkit.Sequential([tfkit.Input((6,)), layers.Dense(6, activation="sigmoid")])
    model.compile(optimizer="adam", loss=loss, jit_compile=True)
    x = RNG.random((16, 6)).astype("float32")
    y = (x > 0.5).astype("float32")
    _continue_after_reload(model, x, y, tmp_path)


def test_focal_and_generalized_losses_in_compile(tmp_path):
    x = RNG.random((16, 5)).astype("float32")
    ids = RNG.integers(0, 3, 16)
    model = tfkit.Sequential([tfkit.Input((5,)), layers.Dense(3, activation="softmax")])
    model.compile(
        optimizer="sgd",
        loss=losses.CategoricalFocalCrossentropy(alpha=[0.2, 0.3, 0.5]),
        metrics=["categorical_focal_crossentropy"],
    )
    _continue_after_reload(model, x, np.eye(3, dtype="float32")[ids], tmp_path)
    model = tfkit.Sequential([tfkit.Input((5,)), layers.Dense(3, activation="softmax")])
    model.compile(optimizer="sgd", loss="CategoricalGeneralizedCrossEntropy")
    _continue_after_reload(model, x, ids, tmp_path)


def test_circle_loss_in_compile(tmp_path):
    x = RNG.random((16, 5)).astype("float32")
    labels = np.repeat(np.arange(4), 4)
    model = tfkit.Sequential([tfkit.Input((5,)), layers.Dense(4), layers.UnitNormalization()])
    model.compile(optimizer="adam", loss="circle", jit_compile=True)
    _continue_after_reload(model, x, labels, tmp_path)


def test_ctc_loss_in_compile(tmp_path):
    x = RNG.random((8, 6, 3)).astype("float32")
    labels = np.array([[1, 2, 0], [3, 1, 1], [2, 0, 0], [1, 3, 2]] * 2)
    model = tfkit.Sequential([tfkit.Input((6, 3)), layers.Dense(4)])
    model.compile(optimizer="adam", loss=losses.CTC())
    _continue_after_reload(model, x, labels, tmp_path)
