"""Every Keras 3 image augmentation name is in ``tfkit.layers``, and Keras snippets run with only the import
changed (a Sequential of random layers, MixUp on a dict ``tf.data`` pipeline)."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit

NAMES = [
    "AugMix",
    "AutoContrast",
    "CutMix",
    "MixUp",
    "RandAugment",
    "Equalization",
    "Solarization",
    "RandomBrightness",
    "RandomColorJitter",
    "RandomErasing",
    "RandomGaussianBlur",
    "RandomGrayscale",
    "RandomHue",
    "RandomSaturation",
    "RandomSharpness",
    "RandomShear",
    "RandomPerspective",
    "RandomElasticTransform",
    "RandomInvert",
    "RandomPosterization",
    "RandomColorDegeneration",
    "ContrastLimitedAdaptiveHistogramEqualization",
    "MaxNumBoundingBoxes",
    "Pipeline",
]
X = np.random.default_rng(3).uniform(0, 255, (4, 16, 16, 3)).astype("float32")


def test_every_name_is_exported_and_registered():
    from tfkit.base import registry

    assert [n for n in NAMES if not hasattr(tfkit.layers, n)] == []
    assert set(NAMES) <= set(registry.builtin_names("layers"))


def test_keras_sequential_snippet_runs_with_the_import_changed():
    keras = pytest.importorskip("keras")
    for lib in (keras, tfkit):
        augment = lib.Sequential(
            [lib.layers.RandomFlip("horizontal"), lib.layers.RandomRotation(0.1), lib.layers.MixUp()]
        )
        assert tuple(augment(X).shape) == X.shape
        model = lib.Sequential(
            [
                lib.Input((16, 16, 3)),
                augment,
                lib.layers.Rescaling(1 / 255),
                lib.layers.GlobalAveragePooling2D(),
                lib.layers.Dense(2),
            ]
        )
        model.compile(optimizer="adam", loss="mse")
        model.fit(X, np.zeros((4, 2), "float32"), epochs=1, verbose=0)
        assert model.predict(X, verbose=0).shape == (4, 2)


def test_keras_tf_data_snippet_with_dicts_runs_with_the_import_changed():
    labels = np.eye(4, dtype="float32")
    augment = tfkit.layers.Pipeline(
        [tfkit.layers.RandomFlip("horizontal"), tfkit.layers.RandomHue(0.2), tfkit.layers.CutMix()]
    )
    ds = tf.data.Dataset.from_tensor_slices({"images": X, "labels": labels}).batch(2).map(augment)
    ds = ds.map(lambda d: (d["images"], d["labels"]))
    model = tfkit.Sequential(
        [tfkit.Input((16, 16, 3)), tfkit.layers.GlobalAveragePooling2D(), tfkit.layers.Dense(4, activation="softmax")]
    )
    model.compile(optimizer="adam", loss="categorical_crossentropy")
    assert len(model.fit(ds, epochs=1, verbose=0).history["loss"]) == 1
