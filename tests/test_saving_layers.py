"""Every built-in layer round-trips through an .h5 model file, in a functional and a sequential model."""

import numpy as np
import pytest
import tensorflow as tf
from test_layers_augment_common import CATALOG as AUGMENT_CATALOG

import tfkit
from tfkit import layers
from tfkit.applications import application_layers
from tfkit.base import registry


@tfkit.saving.register_serializable(package="test_saving_layers")
def double_it(x):
    return x * 2.0


def single(factory, shape, dtype="float32", sequential=True):
    return {"factory": factory, "inputs": [(shape, dtype)], "call": "single", "sequential": sequential}


def merge(factory, *shapes):
    return {"factory": factory, "inputs": [(s, "float32") for s in shapes], "call": "list", "sequential": False}


def pair(factory, *shapes):
    return {"factory": factory, "inputs": [(s, "float32") for s in shapes], "call": "args", "sequential": False}


def nested_functional():
    x = tfkit.Input((4,))
    return tfkit.Model(x, layers.Dense(3, activation="relu")(x), name="inner_functional")


def nested_sequential():
    return tfkit.Sequential([tfkit.Input((4,)), layers.Dense(3)], name="inner_sequential")


CASES = {
    "CategoryEncoding": single(lambda: layers.CategoryEncoding(num_tokens=12, output_mode="count"), (3,), "int32"),
    "Hashing": single(lambda: layers.Hashing(num_bins=5, salt=3), (2,), "string"),
    "Discretization": single(lambda: layers.Discretization(bin_boundaries=[-0.5, 0.0, 0.5]), (4,)),
    "Normalization": single(lambda: layers.Normalization(mean=[0.5, 1.0, 2.0], variance=[1.0, 4.0, 0.25]), (3,)),
    "IntegerLookup": single(lambda: layers.IntegerLookup(vocabulary=[3, 7, 9], output_mode="one_hot"), (2,), "int32"),
    "StringLookup": single(lambda: layers.StringLookup(vocabulary=["a", "b"], mask_token=""), (3,), "string"),
    "TextVectorization": single(
        lambda: layers.TextVectorization(vocabulary=["the", "cat"], output_sequence_length=4), (1,), "string"
    ),
    "ReLU": single(lambda: layers.ReLU(max_value=2.0, negative_slope=0.1), (5,)),
    "LeakyReLU": single(lambda: layers.LeakyReLU(0.2), (5,)),
    "PReLU": single(lambda: layers.PReLU(), (4, 3)),
    "ELU": single(lambda: layers.ELU(0.5), (5,)),
    "Softmax": single(lambda: layers.Softmax(axis=-1), (5,)),
    "Rescaling": single(lambda: layers.Rescaling(1 / 255, offset=-0.5), (4, 4, 3)),
    "Resizing": single(lambda: layers.Resizing(3, 5), (6, 6, 2)),
    "CenterCrop": single(lambda: layers.CenterCrop(2, 3), (5, 5, 1)),
    "RandomFlip": single(lambda: layers.RandomFlip("horizontal", seed=1), (4, 4, 2)),
    "RandomRotation": single(lambda: layers.RandomRotation(0.1, seed=1), (5, 5, 1)),
    "RandomZoom": single(lambda: layers.RandomZoom(0.2, seed=1), (5, 5, 1)),
    "RandomTranslation": single(lambda: layers.RandomTranslation(0.1, 0.2, seed=1), (5, 5, 1)),
    "RandomContrast": single(lambda: layers.RandomContrast(0.3, seed=1), (4, 4, 3)),
    "RandomCrop": single(lambda: layers.RandomCrop(3, 3, seed=1), (5, 5, 2)),
    "GaussianDropout": single(lambda: layers.GaussianDropout(0.2), (5,)),
    "AlphaDropout": single(lambda: layers.AlphaDropout(0.2), (5,)),
    "SpatialDropout3D": single(lambda: layers.SpatialDropout3D(0.2), (2, 2, 2, 3)),
    "UpSampling1D": single(lambda: layers.UpSampling1D(2), (3, 2)),
    "UpSampling3D": single(lambda: layers.UpSampling3D((1, 2, 2)), (2, 2, 2, 1)),
    "ZeroPadding1D": single(lambda: layers.ZeroPadding1D((1, 2)), (3, 2)),
    "ZeroPadding3D": single(lambda: layers.ZeroPadding3D(1), (2, 2, 2, 1)),
    "Cropping1D": single(lambda: layers.Cropping1D((1, 1)), (4, 2)),
    "Cropping3D": single(lambda: layers.Cropping3D(((1, 0), (0, 1), (1, 0))), (3, 3, 3, 1)),
    "UnitNormalization": single(lambda: layers.UnitNormalization(), (5,)),
    "RMSNormalization": single(lambda: layers.RMSNormalization(), (3, 4)),
    "Attention": merge(lambda: layers.Attention(use_scale=True), (3, 4), (5, 4)),
    "AdditiveAttention": merge(lambda: layers.AdditiveAttention(), (3, 4), (5, 4), (5, 4)),
    "TFOpLambda": single(
        lambda: layers.TFOpLambda("tf.math.multiply", {"args": [{"__input__": 0}, 3.0], "kwargs": {}}), (4,)
    ),
    "Activation": single(lambda: layers.Activation("relu"), (5,)),
    "ActivityRegularization": single(lambda: layers.ActivityRegularization(l1=0.01), (5,)),
    "Add": merge(layers.Add, (4,), (4,)),
    "Average": merge(layers.Average, (4,), (4,)),
    "Maximum": merge(layers.Maximum, (4,), (4,)),
    "Minimum": merge(layers.Minimum, (4,), (4,)),
    "Multiply": merge(layers.Multiply, (4,), (4,)),
    "Subtract": merge(layers.Subtract, (4,), (4,)),
    "Concatenate": merge(lambda: layers.Concatenate(axis=-1), (3,), (2,)),
    "Dot": merge(lambda: layers.Dot(axes=1), (4,), (4,)),
    "AveragePooling1D": single(layers.AveragePooling1D, (6, 3)),
    "AveragePooling2D": single(layers.AveragePooling2D, (4, 4, 2)),
    "AveragePooling3D": single(layers.AveragePooling3D, (4, 4, 4, 2)),
    "MaxPooling1D": single(layers.MaxPooling1D, (6, 3)),
    "MaxPooling2D": single(layers.MaxPooling2D, (4, 4, 2)),
    "MaxPooling3D": single(layers.MaxPooling3D, (4, 4, 4, 2)),
    "GlobalAveragePooling1D": single(layers.GlobalAveragePooling1D, (6, 3)),
    "GlobalAveragePooling2D": single(layers.GlobalAveragePooling2D, (4, 4, 2)),
    "GlobalAveragePooling3D": single(layers.GlobalAveragePooling3D, (3, 3, 3, 2)),
    "GlobalMaxPooling1D": single(layers.GlobalMaxPooling1D, (6, 3)),
    "GlobalMaxPooling2D": single(layers.GlobalMaxPooling2D, (4, 4, 2)),
    "GlobalMaxPooling3D": single(layers.GlobalMaxPooling3D, (3, 3, 3, 2)),
    "BatchNormalization": single(layers.BatchNormalization, (5,)),
    "GroupNormalization": single(lambda: layers.GroupNormalization(groups=2), (4,)),
    "LayerNormalization": single(layers.LayerNormalization, (5,)),
    "Bidirectional": single(lambda: layers.Bidirectional(layers.LSTM(3)), (4, 2)),
    "TimeDistributed": single(lambda: layers.TimeDistributed(layers.Dense(2)), (3, 4)),
    "Conv1D": single(lambda: layers.Conv1D(2, 3), (6, 3)),
    "Conv1DTranspose": single(lambda: layers.Conv1DTranspose(2, 3), (5, 3)),
    "Conv2D": single(lambda: layers.Conv2D(2, 3), (5, 5, 2)),
    "Conv2DTranspose": single(lambda: layers.Conv2DTranspose(2, 3), (4, 4, 2)),
    "Conv3D": single(lambda: layers.Conv3D(2, 2), (3, 3, 3, 1)),
    "Conv3DTranspose": single(lambda: layers.Conv3DTranspose(2, 2), (3, 3, 3, 1)),
    "DepthwiseConv2D": single(lambda: layers.DepthwiseConv2D(3), (5, 5, 2)),
    "ConvLSTM1D": single(lambda: layers.ConvLSTM1D(2, 2, return_sequences=True), (3, 5, 2)),
    "ConvLSTM2D": single(lambda: layers.ConvLSTM2D(2, 2, padding="same"), (3, 4, 4, 1)),
    "ConvLSTM3D": single(lambda: layers.ConvLSTM3D(1, 2, go_backwards=True), (2, 3, 3, 3, 1)),
    "ReversibleEmbedding": single(lambda: layers.ReversibleEmbedding(10, 4, tie_weights=False), (5,), "int32"),
    "SpectralNormalization": single(lambda: layers.SpectralNormalization(layers.Dense(3), power_iterations=2), (4,)),
    "HashedCrossing": {
        "factory": lambda: layers.HashedCrossing(6, output_mode="one_hot"),
        "inputs": [((1,), "string"), ((1,), "int32")],
        "call": "list",
        "sequential": False,
    },
    "STFTSpectrogram": single(lambda: layers.STFTSpectrogram(mode="stft", frame_length=8, expand_dims=True), (40, 2)),
    "MelSpectrogram": single(lambda: layers.MelSpectrogram(fft_length=64, sequence_stride=16, num_mel_bins=8), (200,)),
    "DepthwiseConv1D": single(lambda: layers.DepthwiseConv1D(3, depth_multiplier=2), (5, 2)),
    "SeparableConv1D": single(lambda: layers.SeparableConv1D(3, 2, padding="same"), (5, 2)),
    **{
        f"Adaptive{kind}Pooling{rank}D": single(
            lambda kind=kind, rank=rank: getattr(layers, f"Adaptive{kind}Pooling{rank}D")(2), (3,) * rank + (2,)
        )
        for kind in ("Average", "Max")
        for rank in (1, 2, 3)
    },
    "SeparableConv2D": single(lambda: layers.SeparableConv2D(2, 3), (5, 5, 2)),
    "Cropping2D": single(lambda: layers.Cropping2D(((1, 0), (0, 1))), (4, 4, 2)),
    "UpSampling2D": single(lambda: layers.UpSampling2D(2), (3, 3, 2)),
    "ZeroPadding2D": single(lambda: layers.ZeroPadding2D(1), (3, 3, 2)),
    "Dense": single(
        lambda: layers.Dense(3, activation="tanh", kernel_regularizer="l2", kernel_constraint="max_norm"), (5,)
    ),
    "EinsumDense": single(lambda: layers.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c"), (5,)),
    "Embedding": single(lambda: layers.Embedding(10, 3), (4,), dtype="int32"),
    "Dropout": single(lambda: layers.Dropout(0.5, seed=1), (5,)),
    "GaussianNoise": single(lambda: layers.GaussianNoise(0.1, seed=1), (5,)),
    "LayerScale": single(lambda: application_layers.LayerScale(0.5, 5), (5,)),
    "StochasticDepth": single(lambda: application_layers.StochasticDepth(0.25, seed=1), (4, 5)),
    "CustomScaleLayer": merge(lambda: application_layers.CustomScaleLayer(0.17), (5,), (5,)),
    "SpatialDropout1D": single(lambda: layers.SpatialDropout1D(0.5), (4, 3)),
    "SpatialDropout2D": single(lambda: layers.SpatialDropout2D(0.5), (4, 4, 2)),
    "Flatten": single(layers.Flatten, (3, 2)),
    "Identity": single(layers.Identity, (4,)),
    "Lambda": single(lambda: layers.Lambda(double_it), (4,)),
    "Masking": single(lambda: layers.Masking(0.0), (4, 2)),
    "Permute": single(lambda: layers.Permute((2, 1)), (3, 4)),
    "RepeatVector": single(lambda: layers.RepeatVector(3), (4,)),
    "Reshape": single(lambda: layers.Reshape((2, 3)), (6,)),
    "GRU": single(lambda: layers.GRU(3), (4, 2)),
    "LSTM": single(lambda: layers.LSTM(3, return_sequences=True), (4, 2)),
    "SimpleRNN": single(lambda: layers.SimpleRNN(3), (4, 2)),
    "RNN+GRUCell": single(lambda: layers.RNN(layers.GRUCell(3)), (4, 2)),
    "RNN+LSTMCell": single(lambda: layers.RNN(layers.LSTMCell(3)), (4, 2)),
    "RNN+SimpleRNNCell": single(lambda: layers.RNN(layers.SimpleRNNCell(3)), (4, 2)),
    "RNN+StackedRNNCells": single(lambda: layers.RNN([layers.LSTMCell(3), layers.GRUCell(2)]), (4, 2)),
    "MultiHeadAttention": pair(lambda: layers.MultiHeadAttention(num_heads=2, key_dim=3), (4, 5), (4, 5)),
    "GroupQueryAttention": pair(lambda: layers.GroupQueryAttention(2, 4, 2, use_gate=True), (4, 5), (3, 5)),
    "Functional": single(nested_functional, (4,)),
    "Sequential": single(nested_sequential, (4,)),
}

# Classes a case covers beyond the one it is named after (cells inside RNN, the Input of every model).
ALSO_COVERED = {
    "RNN+GRUCell": ["RNN", "GRUCell"],
    "RNN+LSTMCell": ["LSTMCell"],
    "RNN+SimpleRNNCell": ["SimpleRNNCell"],
    "RNN+StackedRNNCells": ["StackedRNNCells"],
    "Dense": ["InputLayer"],
}


def _randomize(model, rng):
    for weight in model.weights:
        if weight.dtype.is_floating:
            weight.assign(rng.uniform(-0.5, 0.5, weight.shape).astype(weight.dtype.as_numpy_dtype))


def _data(case, rng):
    out = []
    for shape, dtype in case["inputs"]:
        if dtype == "int32":
            out.append(rng.randint(0, 10, (3, *shape)).astype("int32"))
        elif dtype == "string":
            words = np.array(["the", "cat", "a", "", "dog sat"])
            out.append(words[rng.randint(0, len(words), (3, *shape))])
        else:
            out.append(rng.uniform(-1, 1, (3, *shape)).astype("float32"))
    return out


def _functional(case):
    inputs = [tfkit.Input(shape, dtype=dtype) for shape, dtype in case["inputs"]]
    layer = case["factory"]()
    if case["call"] == "single":
        output = layer(inputs[0])
    elif case["call"] == "list":
        output = layer(inputs)
    else:
        output = layer(*inputs)
    return tfkit.Model(inputs if len(inputs) > 1 else inputs[0], output), layer


def _round_trip(model, data, tmp_path, name):
    path = str(tmp_path / f"{name}.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    feed = data if len(data) > 1 else data[0]
    expected = model(feed, training=False)
    got = loaded(feed, training=False)
    for e, g in zip(tf.nest.flatten(expected), tf.nest.flatten(got)):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6, atol=1e-6)
    assert list(loaded.weight_paths()) == list(model.weight_paths())
    return loaded


@pytest.mark.parametrize("name", sorted(CASES))
def test_builtin_layer_round_trips_in_functional_model(name, tmp_path):
    case = CASES[name]
    rng = np.random.RandomState(0)
    model, layer = _functional(case)
    _randomize(model, rng)
    loaded = _round_trip(model, _data(case, rng), tmp_path, "functional")
    twin = loaded.get_layer(layer.name)
    assert type(twin) is type(layer)
    assert twin.get_config() == layer.get_config()


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c["sequential"]))
def test_builtin_layer_round_trips_in_sequential_model(name, tmp_path):
    case = CASES[name]
    rng = np.random.RandomState(1)
    ((shape, dtype),) = case["inputs"]
    model = tfkit.Sequential([tfkit.Input(shape, dtype=dtype), case["factory"]()])
    _randomize(model, rng)
    loaded = _round_trip(model, _data(case, rng), tmp_path, "sequential")
    assert isinstance(loaded, tfkit.Sequential)
    assert [type(l) for l in loaded.layers] == [type(l) for l in model.layers]


def test_every_registered_builtin_layer_has_a_case():
    covered = set()
    for name in CASES:
        for cls_name in [name.split("+")[0], *ALSO_COVERED.get(name, [])]:
            covered.add(registry.lookup("layers", cls_name))
    builtin = {registry.lookup("layers", n) for n in registry.builtin_names("layers")}
    augment = {registry.lookup("layers", n) for n in [*AUGMENT_CATALOG, "Pipeline"]}  # test_layers_augment_common
    elsewhere = {
        layers.TFSMLayer,  # a SavedModel folder, loaded with safe_mode=False: test_layers_tfsm.py
        tfkit.utils.FeatureSpace,  # models hold its inner layers, never itself: test_feature_space*.py
        tfkit.distillation.Distiller,
    }  # a teacher-and-student model: test_distillation.py
    missing = sorted(cls.__name__ for cls in builtin - covered - augment - elsewhere)
    assert not missing, f"add a round-trip case to CASES for the built-in layer(s) {missing}"
