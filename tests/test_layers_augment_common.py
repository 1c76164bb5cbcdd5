"""The Keras 3 image augmentation layers, all at once: configs, the training switch, seeds, layouts,
``tf.data``, XLA, functional models, HDF5 files and SavedModel exports."""

import json

import numpy as np
import pytest
import tensorflow as tf
from long_checks import one_of_each_kind

import tfkit
from tfkit import layers

RNG = np.random.default_rng(0)
IMAGES = RNG.uniform(0, 255, (8, 12, 10, 3)).astype("float32")

# name -> (positional args, keyword args); the same call builds the Keras layer for the config check.
CATALOG = {
    "AugMix": ((), {}),
    "AutoContrast": ((), {}),
    "ContrastLimitedAdaptiveHistogramEqualization": ((), dict(tile_grid_size=(4, 4))),
    "CutMix": ((), {}),
    "Equalization": ((), {}),
    "MaxNumBoundingBoxes": ((3,), {}),
    "MixUp": ((), {}),
    "RandAugment": ((), {}),
    "RandomBrightness": ((0.3,), {}),
    "RandomColorDegeneration": ((0.5,), {}),
    "RandomColorJitter": ((), dict(brightness_factor=0.2, contrast_factor=0.2, saturation_factor=0.5, hue_factor=0.2)),
    "RandomElasticTransform": ((), {}),
    "RandomErasing": ((), {}),
    "RandomGaussianBlur": ((), dict(kernel_size=5)),
    "RandomGrayscale": ((), {}),
    "RandomHue": ((0.3,), {}),
    "RandomInvert": ((), {}),
    "RandomPerspective": ((), dict(scale=0.5)),
    "RandomPosterization": ((4,), {}),
    "RandomSaturation": ((0.6,), {}),
    "RandomSharpness": ((0.3,), {}),
    "RandomShear": ((), dict(x_factor=0.3, y_factor=0.2)),
    "Solarization": ((), dict(addition_factor=0.2, threshold_factor=0.5)),
}
UNSEEDED = {"AutoContrast", "ContrastLimitedAdaptiveHistogramEqualization", "Equalization", "MaxNumBoundingBoxes"}
AT_INFERENCE = {"AutoContrast", "ContrastLimitedAdaptiveHistogramEqualization", "MaxNumBoundingBoxes"}
UNCHANGED = {"MaxNumBoundingBoxes"}  # only touches bounding boxes


def make(name, seed=None, **extra):
    args, kwargs = CATALOG[name]
    if name not in UNSEEDED:
        kwargs = {**kwargs, "seed": seed}
    return getattr(layers, name)(*args, **kwargs, **extra)


def test_every_keras_image_preprocessing_layer_is_here():
    keras = pytest.importorskip("keras")
    image_layers = {
        n for n in dir(keras.layers) if "image_preprocessing" in getattr(getattr(keras.layers, n), "__module__", "")
    }
    missing = {n for n in image_layers | {"Pipeline"} if not hasattr(layers, n)}
    assert missing == set()
    assert set(CATALOG) | {"Pipeline"} >= image_layers - {
        "CenterCrop",
        "RandomContrast",
        "RandomCrop",
        "RandomFlip",
        "RandomRotation",
        "RandomTranslation",
        "RandomZoom",
        "Resizing",
    }


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_config_round_trips_and_reads_keras_configs(name):
    keras = pytest.importorskip("keras")
    layer = make(name, seed=3)
    config = json.loads(json.dumps(layer.get_config()))
    assert type(layer).from_config(config).get_config() == layer.get_config()
    args, kwargs = CATALOG[name]
    theirs = getattr(keras.layers, name)(*args, **kwargs).get_config()
    ignored = {"name", "trainable", "dtype", "seed", "fill_value" if name == "MaxNumBoundingBoxes" else ""}
    assert set(layer.get_config()) - ignored == set(theirs) - ignored
    from_keras = type(layer).from_config(theirs)  # a Keras-saved config (Keras's dtype policy included)
    for key in set(theirs) - ignored:
        got, want = from_keras.get_config()[key], theirs[key]
        if isinstance(want, (str, bool)) or want is None:
            assert got == want, key
        else:
            np.testing.assert_allclose(np.asarray(got, "float64"), np.asarray(want, "float64"), err_msg=key)


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_training_augments_and_inference_passes_through(name):
    layer = make(name, seed=1)
    trained = layer(IMAGES, training=True).numpy()
    inferred = layer(IMAGES, training=False).numpy()
    assert trained.shape == inferred.shape == IMAGES.shape
    if name in UNCHANGED:
        np.testing.assert_array_equal(trained, IMAGES)
    else:
        assert not np.allclose(trained, IMAGES)
    if name in AT_INFERENCE:  # Keras applies these at inference too
        np.testing.assert_array_equal(inferred, trained)
    else:
        np.testing.assert_array_equal(inferred, IMAGES)
    assert layer(IMAGES[0], training=True).shape == IMAGES[0].shape
    assert layer.weights == []


@pytest.mark.parametrize("name", sorted(set(CATALOG) - UNSEEDED))
def test_a_seed_replays_and_every_call_draws_anew(name):
    first = make(name, seed=11)(IMAGES, training=True).numpy()
    again = make(name, seed=11)
    np.testing.assert_array_equal(again(IMAGES, training=True).numpy(), first)
    assert not np.array_equal(again(IMAGES, training=True).numpy(), first)


# XLA for one layer of each kind (compiling all 23 takes a minute on a loaded 2-core machine).
XLA = {"RandomHue", "Equalization", "ContrastLimitedAdaptiveHistogramEqualization", "RandomShear", "RandomErasing"}
POLICIES = {"AugMix", "RandAugment"}  # eleven layers each: traced once per map, so mapped once here


def _module(name: str) -> str:
    return getattr(layers, name).__module__


@pytest.mark.parametrize(
    "name", one_of_each_kind(sorted(CATALOG), _module, "a layer whose module another one checks", keep=XLA)
)
def test_training_flag_tensor_and_xla(name):
    layer = make(name, seed=5)
    flagged = tf.function(lambda x, flag: layer(x, training=flag))
    expected_off = layer(IMAGES, training=False).numpy()
    np.testing.assert_allclose(flagged(IMAGES, tf.constant(False)).numpy(), expected_off, rtol=1e-6)
    assert flagged(IMAGES, tf.constant(True)).shape == IMAGES.shape
    if name not in XLA:
        return
    compiled = tf.function(lambda x: layer(x, training=True), jit_compile=True)
    out = compiled(IMAGES).numpy()
    assert out.shape == IMAGES.shape and np.isfinite(out).all()


@pytest.mark.parametrize("name", sorted(set(CATALOG) - {"MaxNumBoundingBoxes"}))
def test_channels_first_equals_transposed_channels_last(name):
    last = make(name, seed=7)(IMAGES, training=True).numpy()
    first = make(name, seed=7, data_format="channels_first")(IMAGES.transpose(0, 3, 1, 2), training=True).numpy()
    np.testing.assert_allclose(first, last.transpose(0, 3, 1, 2), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(
    "name", one_of_each_kind(sorted(CATALOG), _module, "a layer whose module another one maps", keep=POLICIES)
)
def test_tf_data_map_of_batches_single_images_and_dicts(name):
    layer = make(name, seed=2)
    batches = tf.data.Dataset.from_tensor_slices(IMAGES).batch(4).map(layer)
    assert [tuple(b.shape) for b in batches] == [(4, 12, 10, 3)] * 2
    if name in POLICIES:
        return
    singles = tf.data.Dataset.from_tensor_slices(IMAGES).map(layer)
    assert next(iter(singles)).shape == (12, 10, 3)
    labels = np.eye(4, dtype="float32")[np.arange(8) % 4]
    dicts = tf.data.Dataset.from_tensor_slices({"images": IMAGES, "labels": labels}).batch(4).map(layer)
    element = next(iter(dicts))
    assert set(element) == {"images", "labels"} and element["labels"].shape == (4, 4)
    np.testing.assert_allclose(element["labels"].numpy().sum(-1), 1.0, rtol=1e-5)  # mixed labels still sum to 1


GROUPS = {
    "colour": [
        "RandomBrightness",
        "RandomColorDegeneration",
        "RandomHue",
        "RandomSaturation",
        "RandomInvert",
        "RandomPosterization",
        "Solarization",
        "RandomColorJitter",
        "RandomGrayscale",
    ],
    "filters": [
        "AutoContrast",
        "Equalization",
        "ContrastLimitedAdaptiveHistogramEqualization",
        "RandomSharpness",
        "RandomGaussianBlur",
        "RandomErasing",
        "RandAugment",
    ],
    "geometry": ["RandomShear", "RandomPerspective", "RandomElasticTransform", "MixUp", "CutMix", "AugMix"],
}


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_models_train_save_and_export_with_the_layers(group, tmp_path):
    inputs = tfkit.Input((12, 10, 3), name="pixels")
    h = inputs
    for name in GROUPS[group]:
        h = make(name, seed=len(name))(h)
    outputs = layers.Dense(2)(layers.GlobalAveragePooling2D()(layers.Rescaling(1 / 255)(h)))
    model = tfkit.Model(inputs, outputs)
    model.compile("adam", "mse")
    model.fit(IMAGES, np.zeros((8, 2), "float32"), epochs=1, batch_size=4, verbose=0)
    expected = model.predict(IMAGES, verbose=0)
    served = tf.saved_model.load(model.export(str(tmp_path / "export"))).signatures["serving_default"]
    got = list(served(pixels=tf.constant(IMAGES)).values())[0].numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    model.save(tmp_path / "model.h5")
    np.testing.assert_allclose(
        tfkit.load_model(tmp_path / "model.h5").predict(IMAGES, verbose=0), expected, rtol=1e-5, atol=1e-5
    )


def test_pipeline_chains_layers_passes_training_and_round_trips():
    keras = pytest.importorskip("keras")
    pipeline = layers.Pipeline([layers.RandomHue(0.3, seed=1), layers.AutoContrast(), layers.MixUp(seed=2)])
    trained = pipeline({"images": IMAGES, "labels": np.eye(8, dtype="float32")}, training=True)
    assert set(trained) == {"images", "labels"} and not np.allclose(trained["images"], IMAGES)
    inferred = pipeline(IMAGES, training=False).numpy()
    np.testing.assert_allclose(inferred, layers.AutoContrast()(IMAGES).numpy(), rtol=1e-6)  # only AutoContrast
    config = json.loads(json.dumps(pipeline.get_config()))
    clone = layers.Pipeline.from_config(config)
    assert [type(l).__name__ for l in clone.layers] == ["RandomHue", "AutoContrast", "MixUp"]
    assert clone.get_config() == pipeline.get_config()
    theirs = keras.layers.Pipeline([keras.layers.RandomHue(0.3), keras.layers.AutoContrast()]).get_config()
    assert set(theirs) - {"dtype"} <= set(config)
    with pytest.raises(ValueError, match=r"layers\[1\] to be a tfkit layer"):
        layers.Pipeline([layers.AutoContrast(), "flip"])


BAD_ARGUMENTS = [
    (lambda: layers.RandomBrightness(1.5), "factor"),
    (lambda: layers.RandomBrightness(0.2, value_range=(0, 0)), "value_range"),
    (lambda: layers.RandomHue(-0.2), "factor"),
    (lambda: layers.RandomGrayscale(factor=2), "factor to be a probability"),
    (lambda: layers.RandomPosterization(9), "factor"),
    (lambda: layers.RandomPosterization(2.5), "whole numbers of bits"),
    (lambda: layers.Solarization(threshold_factor=(0.2, 1.5)), "threshold_factor"),
    (lambda: layers.RandomGaussianBlur(kernel_size=4), "odd positive integer"),
    (lambda: layers.RandomGaussianBlur(sigma=-1.0), "sigma"),
    (lambda: layers.RandomErasing(fill_value=(1, 2)), "fill_value"),
    (lambda: layers.RandomShear(x_factor=1.5), "x_factor"),
    (lambda: layers.RandomShear(fill_mode="mirror"), "fill_mode"),
    (lambda: layers.RandomPerspective(scale=2.0), "scale"),
    (lambda: layers.RandomElasticTransform(interpolation="bicubic"), "interpolation"),
    (lambda: layers.MixUp(alpha=0), "alpha"),
    (lambda: layers.AugMix(num_chains=0), "num_chains"),
    (lambda: layers.RandAugment(num_ops=1.5), "num_ops"),
    (lambda: layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(8,)), "tile_grid_size"),
    (lambda: layers.Equalization(bins=1), "bins"),
    (lambda: layers.MaxNumBoundingBoxes(0), "max_number"),
    (lambda: layers.AutoContrast(data_format="NHWC"), "data_format"),
    (lambda: layers.RandomShear(bounding_box_format="xyzw"), "bounding_box_format"),
    (lambda: layers.RandomHue(0.2, seed="one"), "seed"),
    (lambda: layers.RandomHue(0.2)(IMAGES[0, 0]), "rank 3"),
    (lambda: layers.RandomHue(0.2)({"pixels": IMAGES}), "the key 'images'"),
]


@pytest.mark.parametrize("index", range(len(BAD_ARGUMENTS)))
def test_bad_arguments_name_the_layer_and_the_argument(index):
    call, argument = BAD_ARGUMENTS[index]
    with pytest.raises(ValueError, match=argument) as raised:
        call()
    assert "layer '" in str(raised.value)
