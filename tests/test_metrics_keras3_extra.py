"""Keras 3's newer metrics (issue 19): the IoU family, R2Score, Pearson and concordance correlation,
PrecisionAtRecall / RecallAtPrecision / SensitivityAtSpecificity / SpecificityAtSensitivity:
hand-computed values, Keras side by side, configs, errors, compile/fit/save/load."""

import re

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers, metrics

RNG = np.random.default_rng(1)
SEG_TRUE = RNG.integers(0, 3, (4, 5))
SEG_PRED = RNG.integers(-1, 4, (4, 5))  # includes ids out of range: left out
SEG_WEIGHT = RNG.integers(0, 3, (4, 5))
ONE_HOT = np.eye(3, dtype="float32")[SEG_TRUE]
SEG_SCORES = RNG.random((4, 5, 3)).astype("float32")
REG_TRUE = RNG.normal(size=(6, 3)).astype("float32")
REG_PRED = REG_TRUE + 0.5 * RNG.normal(size=(6, 3)).astype("float32")
BIN_TRUE = RNG.integers(0, 2, 50)
BIN_PROB = np.clip(BIN_TRUE * 0.3 + RNG.random(50) * 0.7, 0, 1).astype("float32")
BIN_WEIGHT = RNG.random(50).astype("float32")
MULTI_TRUE = np.eye(3, dtype="float32")[RNG.integers(0, 3, 20)]
MULTI_PROB = RNG.random((20, 3)).astype("float32")

# (class name, args, kwargs, batches of update_state arguments)
CASES = [
    ("IoU", (3, [0, 2]), {}, [(SEG_TRUE, SEG_PRED), (SEG_TRUE[::-1], SEG_PRED)]),
    ("MeanIoU", (3,), {"ignore_class": 1}, [(SEG_TRUE, SEG_PRED, SEG_WEIGHT)]),
    ("MeanIoU", (3,), {"dtype": "float32"}, [(SEG_TRUE, SEG_PRED, SEG_WEIGHT * 0.5)]),
    ("BinaryIoU", (), {"threshold": 0.3}, [(BIN_TRUE, BIN_PROB)]),
    ("BinaryIoU", (), {"target_class_ids": [1]}, [(BIN_TRUE, BIN_PROB, (BIN_WEIGHT > 0.5).astype("int32"))]),
    ("OneHotIoU", (3, [1]), {}, [(ONE_HOT, SEG_SCORES)]),
    ("OneHotMeanIoU", (3,), {}, [(ONE_HOT, SEG_SCORES)]),
    ("OneHotMeanIoU", (3,), {"sparse_y_pred": True}, [(ONE_HOT, SEG_PRED)]),
    ("R2Score", (), {}, [(REG_TRUE, REG_PRED), (REG_PRED, REG_TRUE)]),
    (
        "R2Score",
        (),
        {"class_aggregation": "variance_weighted_average", "num_regressors": 2},
        [(REG_TRUE, REG_PRED, np.arange(6.0))],
    ),
    ("R2Score", (), {"class_aggregation": None}, [(REG_TRUE, REG_PRED)]),
    ("PearsonCorrelation", (), {}, [(REG_TRUE, REG_PRED), (REG_PRED, REG_TRUE)]),
    ("PearsonCorrelation", (), {"axis": 0}, [(REG_TRUE, REG_PRED)]),
    ("ConcordanceCorrelation", (), {}, [(REG_TRUE, REG_PRED, np.arange(6.0))]),
]
for _name, _value in [
    ("PrecisionAtRecall", 0.7),
    ("RecallAtPrecision", 0.6),
    ("SensitivityAtSpecificity", 0.5),
    ("SpecificityAtSensitivity", 0.8),
]:
    CASES += [
        (_name, (_value,), {}, [(BIN_TRUE, BIN_PROB, BIN_WEIGHT)]),
        (_name, (_value,), {"num_thresholds": 1}, [(BIN_TRUE, BIN_PROB)]),
        (_name, (_value,), {"num_thresholds": 7, "class_id": 1}, [(MULTI_TRUE, MULTI_PROB)]),
    ]


def _ids(case):
    return f"{case[0]}-{sorted(case[2])}"


# ------------------------------------------------------------------ hand-computed values


def test_iou_by_hand():
    # true [0, 0, 1, 1], pred [0, 1, 1, 1]: class 0 tp 1, fn 1 -> 1/2; class 1 tp 2, fp 1 -> 2/3
    miou = metrics.MeanIoU(num_classes=2)
    miou.update_state([0, 0, 1, 1], [0, 1, 1, 1])
    assert float(miou.result()) == pytest.approx((1 / 2 + 2 / 3) / 2, rel=1e-6)
    iou = metrics.IoU(num_classes=3, target_class_ids=[1, 2])
    iou.update_state([0, 0, 1, 1], [0, 1, 1, 1])
    assert float(iou.result()) == pytest.approx(2 / 3, rel=1e-6)  # class 2 never seen: left out of the mean
    binary = metrics.BinaryIoU(target_class_ids=[1], threshold=0.5)
    binary.update_state([1, 1, 0], [0.9, 0.4, 0.6])
    assert float(binary.result()) == pytest.approx(1 / 3, rel=1e-6)
    miou.reset_state()
    assert float(miou.result()) == 0.0


def test_r2_and_correlations_by_hand():
    r2 = metrics.R2Score()
    r2.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
    # SS_res = 2, mean 8/3, SS_tot = 26/3 - ... = 14/3
    assert float(r2.result()) == pytest.approx(1 - 2 / (14 / 3), rel=1e-6)
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    assert float(metrics.pearson_correlation(x, 2 * x + 1)[0]) == pytest.approx(1.0, abs=1e-6)
    assert float(metrics.pearson_correlation(x, -x)[0]) == pytest.approx(-1.0, abs=1e-6)
    assert float(metrics.concordance_correlation(x, x)[0]) == pytest.approx(1.0, abs=1e-5)


def test_operating_point_metrics_by_hand():
    # one threshold at 0.5: predictions > 0.5 are positive -> tp 2, fp 1, fn 1, tn 2
    y_true, y_prob = [1, 1, 1, 0, 0, 0], [0.9, 0.8, 0.3, 0.7, 0.2, 0.1]
    cases = [
        (metrics.PrecisionAtRecall(recall=0.6, num_thresholds=1), 2 / 3),
        (metrics.RecallAtPrecision(precision=0.6, num_thresholds=1), 2 / 3),
        (metrics.SensitivityAtSpecificity(specificity=0.6, num_thresholds=1), 2 / 3),
        (metrics.SpecificityAtSensitivity(sensitivity=0.7, num_thresholds=1), 0.0),  # recall 2/3 < 0.7
    ]
    for metric, expected in cases:
        metric.update_state(y_true, y_prob)
        assert float(metric.result()) == pytest.approx(expected, rel=1e-6), metric.name


# ------------------------------------------------------------------ Keras side by side


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_matches_keras(case):
    keras = pytest.importorskip("keras")
    name, args, kwargs, batches = case
    theirs, ours = getattr(keras.metrics, name)(*args, **kwargs), getattr(metrics, name)(*args, **kwargs)
    for batch in batches:
        theirs.update_state(*batch)
        ours.update_state(*batch)
    np.testing.assert_allclose(ours.result().numpy(), np.asarray(theirs.result()), rtol=1e-5, atol=1e-6)
    assert re.sub(r"_\d+$", "", theirs.name) == ours.name  # Keras numbers repeated default names
    keras_config = {**theirs.get_config(), "name": ours.name}
    assert ours.get_config() == keras_config
    twin = metrics.deserialize(metrics.serialize(ours))
    assert type(twin) is type(ours) and twin.get_config() == ours.get_config()


def test_function_forms_match_keras():
    keras = pytest.importorskip("keras")
    for fn in ("pearson_correlation", "concordance_correlation"):
        np.testing.assert_allclose(
            getattr(metrics, fn)(REG_TRUE, REG_PRED).numpy(),
            np.asarray(getattr(keras.metrics, fn)(REG_TRUE, REG_PRED)),
            rtol=1e-5,
        )
    np.testing.assert_allclose(
        metrics.categorical_focal_crossentropy(ONE_HOT[0], SEG_SCORES[0]).numpy(),
        np.asarray(keras.metrics.categorical_focal_crossentropy(ONE_HOT[0], SEG_SCORES[0])),
        rtol=1e-5,
    )


def test_compiled_and_xla_updates_match_eager():
    for name, args, kwargs, batches in CASES[::3]:
        eager, compiled = getattr(metrics, name)(*args, **kwargs), getattr(metrics, name)(*args, **kwargs)

        @tf.function(jit_compile=True)
        def update(*batch):
            compiled.update_state(*batch)
            return compiled.result()

        for batch in batches:
            eager.update_state(*batch)
            got = update(*[tf.constant(b) for b in batch])
        np.testing.assert_allclose(got.numpy(), eager.result().numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: metrics.IoU(3, [0, 3]), r"target class ids must be in \[0, 3\)"),
        (lambda: metrics.MeanIoU(num_classes=0), "num_classes must be an int >= 1"),
        (lambda: metrics.R2Score(class_aggregation="median"), "class_aggregation must be one of"),
        (lambda: metrics.R2Score(num_regressors=-1), "num_regressors must be an int >= 0"),
        (lambda: metrics.R2Score().update_state([1.0, 2.0], [1.0, 2.0]), r"R2Score 'r2_score' expects 2D inputs"),
        (lambda: metrics.PrecisionAtRecall(recall=1.5), r"recall must be a number in \[0, 1\]"),
        (lambda: metrics.SpecificityAtSensitivity(0.5, num_thresholds=0), "num_thresholds must be an int > 0"),
        (lambda: metrics.PearsonCorrelation(axis="last"), "axis must be an int"),
    ],
)
def test_bad_arguments_say_what_is_wrong(make, message):
    with pytest.raises(ValueError, match=message):
        make()


# ------------------------------------------------------------------ compile, fit, save, load, keep training


def _continue_after_reload(model, x, y, tmp_path):
    model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    path = str(tmp_path / "model.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    assert loaded.get_compile_config() == model.get_compile_config()
    expected = model.evaluate(x, y, batch_size=4, verbose=0, return_dict=True)
    got = loaded.evaluate(x, y, batch_size=4, verbose=0, return_dict=True)
    assert got == pytest.approx(expected, rel=1e-5)
    expected = model.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False).history
    got = loaded.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False).history
    assert set(got) == set(expected)
    for key, values in expected.items():
        assert got[key] == pytest.approx(values, rel=1e-5), key
    return expected


def test_segmentation_metrics_in_compile(tmp_path):
    x = RNG.random((16, 4)).astype("float32")
    y = (x[:, :1] > 0.5).astype("float32")
    model = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(1, activation="sigmoid")])
    model.compile(
        optimizer="adam",
        loss="binary_crossentropy",
        jit_compile=True,
        metrics=[
            metrics.BinaryIoU(),
            metrics.PrecisionAtRecall(0.5, num_thresholds=20),
            metrics.SensitivityAtSpecificity(0.5, num_thresholds=20),
        ],
    )
    history = _continue_after_reload(model, x, y, tmp_path)
    assert {"binary_io_u", "precision_at_recall", "sensitivity_at_specificity"} <= set(history)
    ids = RNG.integers(0, 3, 16)
    model = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(3, activation="softmax")])
    model.compile(
        optimizer="adam",
        loss="categorical_crossentropy",
        metrics=[metrics.OneHotMeanIoU(3), metrics.OneHotIoU(3, [0, 2], name="iou02")],
    )
    _continue_after_reload(model, x, np.eye(3, dtype="float32")[ids], tmp_path)


def test_regression_metrics_in_compile(tmp_path):
    x = RNG.random((16, 4)).astype("float32")
    y = x[:, :2] * 2.0 - 1.0
    model = tfkit.Sequential([tfkit.Input((4,)), layers.Dense(2)])
    model.compile(
        optimizer="sgd",
        loss="mse",
        jit_compile=True,
        metrics=["r2_score", "pearson_correlation", metrics.ConcordanceCorrelation()],
    )
    history = _continue_after_reload(model, x, y, tmp_path)
    assert {"r2_score", "pearson_correlation", "concordance_correlation"} <= set(history)
