"""tfkit.distillation: the Distiller's loss by hand, training, configs, files, and Keras side by side."""

import numpy as np
import pytest

import tfkit
from tfkit import distillation as D

RNG = np.random.default_rng(11)
X = RNG.normal(size=(64, 8)).astype("float32")
Y = RNG.integers(0, 3, size=64)


def _model(name):
    inputs = tfkit.Input((8,))
    hidden = tfkit.layers.Dense(16, activation="relu", name=f"{name}_hidden")(inputs)
    return tfkit.Model(inputs, tfkit.layers.Dense(3, name=f"{name}_logits")(hidden), name=name)


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _distiller():
    teacher, student = _model("teacher"), _model("student")
    distiller = D.Distiller(
        teacher,
        student,
        [D.LogitsDistillation(3.0), D.FeatureDistillation("mse", "teacher_hidden", "student_hidden")],
        distillation_loss_weights=[1.0, 0.5],
        student_loss_weight=0.3,
    )
    distiller.compile("adam", loss=tfkit.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return distiller, teacher, student


def test_the_loss_equals_the_hand_computation():
    distiller, teacher, student = _distiller()
    loss = float(distiller.compute_loss(X, Y, distiller(X)))
    t_logits, s_logits = teacher(X).numpy(), student(X).numpy()
    soft_t, soft_s = _softmax(t_logits / 3), _softmax(s_logits / 3)
    kl = np.mean(np.sum(soft_t * np.log(soft_t / soft_s), -1)) * 9
    supervised = np.mean(-np.log(_softmax(s_logits)[np.arange(64), Y]))
    features = [tfkit.Model(m.inputs, m.get_layer(f"{m.name}_hidden").output)(X).numpy() for m in (teacher, student)]
    mse = np.mean((features[0] - features[1]) ** 2)
    np.testing.assert_allclose(loss, 0.3 * supervised + 0.7 * (kl + 0.5 * mse), rtol=1e-5)


def test_fit_trains_the_student_only_and_reports_the_parts(tmp_path):
    distiller, teacher, student = _distiller()
    before = [w.numpy() for w in teacher.weights]
    history = distiller.fit(X, Y, epochs=3, verbose=0)
    assert {"loss", "accuracy", "student_loss", "distillation_loss", "total_loss"} <= set(history.history)
    assert history.history["total_loss"][-1] < history.history["total_loss"][0]
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, teacher.weights))
    assert distiller.student is student and len(distiller.trainable_weights) == 4
    again = D.Distiller.from_config(distiller.get_config())
    assert [type(l).__name__ for l in again.distillation_losses] == ["LogitsDistillation", "FeatureDistillation"]
    assert again.student_loss_weight == 0.3 and again.distillation_loss_weights == [1.0, 0.5]
    distiller.save(tmp_path / "distiller.h5")
    loaded = tfkit.load_model(tmp_path / "distiller.h5", compile=False)
    np.testing.assert_allclose(loaded.predict(X, verbose=0), distiller.predict(X, verbose=0), rtol=1e-6)


def test_argument_errors():
    teacher, student = _model("t"), _model("s")
    with pytest.raises(ValueError, match="between 0.0 and 1.0"):
        D.Distiller(teacher, student, D.LogitsDistillation(), student_loss_weight=2.0)
    with pytest.raises(ValueError, match="must match number of distillation_losses"):
        D.Distiller(teacher, student, [D.LogitsDistillation()], distillation_loss_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="In teacher model"):
        D.Distiller(teacher, student, D.FeatureDistillation(teacher_layer_name="nope"))
    with pytest.raises(ValueError, match="temperature must be positive"):
        D.LogitsDistillation(temperature=0)
    with pytest.raises(ValueError, match="at least one non-`None`"):
        D.FeatureDistillation(loss=None)
    with pytest.raises(ValueError, match="'loss' cannot be `None`"):
        D.Distiller(teacher, student, D.LogitsDistillation()).compile("adam")


@pytest.fixture(scope="module")
def keras():
    return pytest.importorskip("keras")


def test_losses_equal_keras_and_the_default_kl_is_fixed(keras):
    teacher = RNG.normal(size=(5, 4)).astype("float32")
    student = RNG.normal(size=(5, 4)).astype("float32")
    theirs = keras.distillation.LogitsDistillation(2.0, loss=keras.losses.KLDivergence())
    np.testing.assert_allclose(
        D.LogitsDistillation(2.0, loss=tfkit.losses.KLDivergence()).compute_loss(teacher, student),
        theirs.compute_loss(teacher, student),
        rtol=1e-5,
    )
    # Keras 3.15's default loss="kl_divergence" skips the softmax (its bug); tfkit's default equals the KL object
    np.testing.assert_allclose(
        D.LogitsDistillation(2.0).compute_loss(teacher, student), theirs.compute_loss(teacher, student), rtol=1e-5
    )
    assert not np.isclose(
        float(keras.distillation.LogitsDistillation(2.0).compute_loss(teacher, student)),
        float(theirs.compute_loss(teacher, student)),
    )
    for loss in ("mse", "cosine_similarity"):
        np.testing.assert_allclose(
            D.FeatureDistillation(loss).compute_loss(teacher, student),
            keras.distillation.FeatureDistillation(loss).compute_loss(teacher, student),
            rtol=1e-5,
        )
