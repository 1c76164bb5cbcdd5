"""Models of every ordinary kind, written once for both frameworks: ``build(k)`` with ``k`` Keras 3 or tfkit.

    for case in CASES:
        model = case.build(keras)          # or case.build(tfkit): the same layers, the same graph
        x = case.inputs(np.random.default_rng(0))

tfkit names its API as Keras 3 does, so one builder makes the Keras model and
its tfkit twin; ``tests/test_keras_zoo.py`` saves each with one framework and
loads it with the other. Custom classes and functions are made per framework
by ``custom_objects(k)`` and registered under the package ``zoo`` in both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import tensorflow as tf


@dataclass
class Case:
    name: str
    build: Callable[[Any], Any]
    inputs: Callable[[np.random.Generator], Any]
    custom: bool = False  # needs custom_objects(k) when loading
    compiled: bool = False  # compiled and trained a step before saving
    adapt: Callable[[Any], None] | None = None  # adapt(model) before saving: preprocessing state
    tolerance: float = 1e-5
    directions: tuple[str, ...] = ("keras_to_tfkit", "tfkit_to_keras")
    notes: list[str] = field(default_factory=list)


def _floats(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.normal(size=shape).astype("float32")


def _ints(high: int, *shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.integers(0, high, size=shape).astype("int32")


# ------------------------------------------------------------------ custom classes and functions, per framework

_CUSTOM: dict[str, dict[str, Any]] = {}


def custom_objects(k: Any) -> dict[str, Any]:
    """The zoo's custom layer classes and functions for framework ``k``, registered under ``zoo`` once."""
    key = k.__name__
    if key in _CUSTOM:
        return _CUSTOM[key]
    register = k.saving.register_keras_serializable(package="zoo")

    @register
    class Scale(k.layers.Layer):
        """A learned per-feature scale; ``get_config`` starts from ``super().get_config()`` (the guide's pattern)."""

        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape):
            self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="scale")

        def call(self, inputs):
            return inputs * self.scale * self.factor

        def get_config(self):
            config = super().get_config()
            config.update({"factor": self.factor})
            return config

    @register
    class ResidualBlock(k.layers.Layer):
        """Sub-layers held as attributes, built in ``build``: weights stored under their attribute names."""

        def __init__(self, units=8, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.inner = k.layers.Dense(units, activation="relu")
            self.outer = k.layers.Dense(units)
            self.norm = k.layers.LayerNormalization()

        def build(self, input_shape):
            self.inner.build(input_shape)
            self.outer.build((*input_shape[:-1], self.units))
            self.norm.build((*input_shape[:-1], self.units))

        def call(self, inputs):
            return self.norm(inputs + self.outer(self.inner(inputs)))

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    @register
    def double(x):
        return x * 2.0

    def square_plus_one(x):
        return x * x + 1.0

    _CUSTOM[key] = {
        "Scale": Scale,
        "ResidualBlock": ResidualBlock,
        "double": double,
        "square_plus_one": square_plus_one,
    }
    return _CUSTOM[key]


# ------------------------------------------------------------------ the builders


def _mlp(k):
    return k.Sequential(
        [
            k.Input((8,)),
            k.layers.Dense(16, activation="relu"),
            k.layers.Dropout(0.3),
            k.layers.Dense(3, activation="softmax"),
        ],
        name="mlp",
    )


def _cnn(k):
    return k.Sequential(
        [
            k.Input((12, 12, 2)),
            k.layers.Conv2D(6, 3, activation="relu"),
            k.layers.BatchNormalization(),
            k.layers.MaxPooling2D(),
            k.layers.Flatten(),
            k.layers.Dense(4),
        ],
        name="cnn",
    )


def _convolutions(k):
    x = k.Input((10, 10, 3))
    h = k.layers.SeparableConv2D(4, 3, padding="same")(x)
    h = k.layers.DepthwiseConv2D(3, depth_multiplier=2)(h)
    h = k.layers.Conv2DTranspose(3, 3, strides=2)(h)
    h = k.layers.ZeroPadding2D(1)(k.layers.Cropping2D(2)(h))
    h = k.layers.UpSampling2D(2)(k.layers.AveragePooling2D(2)(h))
    return k.Model(x, k.layers.GlobalMaxPooling2D()(h), name="convolutions")


def _conv1d(k):
    return k.Sequential(
        [
            k.Input((16, 3)),
            k.layers.Conv1D(4, 3, dilation_rate=2, padding="causal"),
            k.layers.SeparableConv1D(5, 3),
            k.layers.MaxPooling1D(2),
            k.layers.GlobalAveragePooling1D(),
        ],
        name="conv1d",
    )


def _conv3d(k):
    return k.Sequential(
        [
            k.Input((6, 6, 6, 1)),
            k.layers.Conv3D(2, 3, activation="tanh"),
            k.layers.AveragePooling3D(2),
            k.layers.Flatten(),
            k.layers.Dense(2),
        ],
        name="conv3d",
    )


def _lstm_masked(k):
    return k.Sequential(
        [k.Input((7,), dtype="int32"), k.layers.Embedding(20, 6, mask_zero=True), k.layers.LSTM(5), k.layers.Dense(2)],
        name="lstm_masked",
    )


def _bidirectional_gru(k):
    x = k.Input((6, 4))
    h = k.layers.Bidirectional(k.layers.GRU(3, return_sequences=True))(x)
    h = k.layers.TimeDistributed(k.layers.Dense(2))(h)
    return k.Model(x, k.layers.SimpleRNN(3)(h), name="bidirectional_gru")


def _attention(k):
    x = k.Input((5, 8))
    attended = k.layers.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)
    h = k.layers.LayerNormalization()(k.layers.Add()([x, attended]))
    return k.Model(x, k.layers.GlobalAveragePooling1D()(h), name="attention")


def _two_in_two_out(k):
    image, meta = k.Input((4, 4, 1), name="image"), k.Input((3,), name="meta")
    h = k.layers.Concatenate()([k.layers.Flatten()(image), meta])
    h = k.layers.Dense(8, activation="gelu")(h)
    return k.Model(
        {"image": image, "meta": meta},
        {"score": k.layers.Dense(1, name="score")(h), "label": k.layers.Dense(3, name="label")(h)},
        name="two_in_two_out",
    )


def _two_in_two_out_inputs(rng):
    return {"image": rng.normal(size=(3, 4, 4, 1)).astype("float32"), "meta": rng.normal(size=(3, 3)).astype("float32")}


def _shared_layer(k):
    a, b = k.Input((4,)), k.Input((4,))
    shared = k.layers.Dense(3, activation="tanh")
    return k.Model([a, b], k.layers.Subtract()([shared(a), shared(b)]), name="shared_layer")


def _nested(k):
    inner = k.Sequential([k.Input((6,)), k.layers.Dense(5, activation="relu"), k.layers.Dense(4)], name="inner")
    x = k.Input((6,))
    return k.Model(x, k.layers.Dense(2)(inner(x) + inner(x * 0.5)), name="nested")


def _operations(k):
    ops = k.ops
    x = k.Input((6,))
    h = k.layers.Dense(4)(x)
    sliced = h[:, 1:3] * 2.0 - ops.sum(h, axis=-1, keepdims=True)
    joined = ops.concatenate([sliced, ops.abs(h[..., :1]), ops.mean(x, axis=1, keepdims=True)], axis=-1)
    outer = ops.reshape(ops.einsum("bi,bj->bij", joined, joined), (-1, 16))
    return k.Model(x, ops.where(outer > 0.1, outer, ops.square(outer)) / (1.0 + ops.max(outer)), name="operations")


def _merging(k):
    a, b = k.Input((4,)), k.Input((4,))
    merged = [
        k.layers.Average()([a, b]),
        k.layers.Maximum()([a, b]),
        k.layers.Multiply()([a, b]),
        k.layers.Dot(axes=1)([a, b]),
    ]
    h = k.layers.Concatenate()(merged)
    h = k.layers.Reshape((13, 1))(h)
    h = k.layers.Permute((2, 1))(h)
    return k.Model([a, b], k.layers.Flatten()(k.layers.RepeatVector(2)(k.layers.Flatten()(h))), name="merging")


def _activations(k):
    return k.Sequential(
        [
            k.Input((6,)),
            k.layers.Dense(6),
            k.layers.LeakyReLU(negative_slope=0.2),
            k.layers.Dense(6),
            k.layers.PReLU(),
            k.layers.ELU(),
            k.layers.Dense(4),
            k.layers.ReLU(max_value=1.0),
            k.layers.Softmax(),
        ],
        name="activations",
    )


def _normalizations(k):
    return k.Sequential(
        [
            k.Input((8, 4)),
            k.layers.LayerNormalization(),
            k.layers.GroupNormalization(groups=2),
            k.layers.UnitNormalization(),
            k.layers.BatchNormalization(momentum=0.5),
            k.layers.Flatten(),
            k.layers.EinsumDense("ab,bc->ac", output_shape=3),
        ],
        name="normalizations",
    )


def _custom_layers(k):
    custom = custom_objects(k)
    x = k.Input((8,))
    h = custom["ResidualBlock"](units=8)(custom["Scale"](factor=0.5)(x))
    return k.Model(x, k.layers.Dense(2)(h), name="custom_layers")


def _custom_in_sequential(k):
    custom = custom_objects(k)
    inner = k.Sequential([k.Input((4,)), custom["Scale"](factor=3.0), k.layers.Dense(4)], name="inner_custom")
    x = k.Input((4,))
    return k.Model(x, custom["Scale"]()(inner(x)), name="custom_in_sequential")


def _lambda_named(k):
    custom = custom_objects(k)
    return k.Sequential(
        [
            k.Input((5,)),
            k.layers.Lambda(custom["double"]),
            k.layers.Lambda(custom["square_plus_one"]),
            k.layers.Dense(2),
        ],
        name="lambda_named",
    )


def _custom_activation(k):
    custom = custom_objects(k)
    return k.Sequential(
        [k.Input((5,)), k.layers.Dense(4, activation=custom["double"]), k.layers.Dense(2)], name="custom_activation"
    )


def _normalization_adapted(k):
    return k.Sequential([k.Input((3,)), k.layers.Normalization(), k.layers.Dense(2)], name="normalization_adapted")


def _adapt_first(data: np.ndarray) -> Callable[[Any], None]:
    return lambda model: model.layers[0].adapt(data)


def _discretization(k):
    return k.Sequential(
        [
            k.Input((4,)),
            k.layers.Discretization(num_bins=4),
            k.layers.CategoryEncoding(num_tokens=4, output_mode="count"),
        ],
        name="discretization",
    )


def _string_lookup(k):
    return k.Sequential(
        [k.Input((2,), dtype="string"), k.layers.StringLookup(output_mode="multi_hot")], name="string_lookup"
    )


def _text_to_lstm(k):
    return k.Sequential(
        [
            k.Input((), dtype="string"),
            k.layers.TextVectorization(max_tokens=30, output_sequence_length=5),
            k.layers.Embedding(30, 4, mask_zero=True),
            k.layers.LSTM(3),
        ],
        name="text_to_lstm",
    )


WORDS = np.array(["the cat sat on the mat", "a dog ran far", "the dog sat", "zebra"])
TOKENS = np.array([["a", "b"], ["c", "a"], ["b", "b"], ["d", "a"]])


def _integer_lookup(k):
    return k.Sequential(
        [k.Input((3,), dtype="int64"), k.layers.IntegerLookup(output_mode="one_hot"), k.layers.Flatten()],
        name="integer_lookup",
    )


def _hashing(k):
    return k.Sequential(
        [k.Input((3,), dtype="int64"), k.layers.Hashing(num_bins=7), k.layers.Embedding(7, 2), k.layers.Flatten()],
        name="hashing",
    )


def _image_preprocessing(k):
    return k.Sequential(
        [
            k.Input((12, 10, 3)),
            k.layers.Rescaling(1 / 255.0, offset=-0.5),
            k.layers.Resizing(8, 8),
            k.layers.CenterCrop(6, 6),
            k.layers.Conv2D(2, 3),
        ],
        name="image_preprocessing",
    )


def _quantized_int8(k):
    model = k.Sequential(
        [k.Input((6,)), k.layers.Dense(8, activation="relu"), k.layers.Dense(3)], name="quantized_int8"
    )
    model.quantize("int8")
    return model


def _quantized_int4(k):
    model = k.Sequential(
        [k.Input((8,)), k.layers.Dense(8, activation="relu"), k.layers.Dense(4)], name="quantized_int4"
    )
    model.quantize("int4")
    return model


def _mixed_precision(k):
    return k.Sequential(
        [k.Input((6,)), k.layers.Dense(8, dtype="mixed_float16"), k.layers.Dense(2, dtype="float32")],
        name="mixed_precision",
    )


def _compiled_adam(k):
    model = k.Sequential([k.Input((5,)), k.layers.Dense(6, activation="relu"), k.layers.Dense(1)], name="compiled_adam")
    model.compile(optimizer=k.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return model


def _compiled_sgd_momentum(k):
    model = k.Sequential([k.Input((5,)), k.layers.Dense(3, activation="softmax")], name="compiled_sgd")
    model.compile(optimizer=k.optimizers.SGD(0.05, momentum=0.9), loss="categorical_crossentropy", metrics=["accuracy"])
    return model


def _embedding_pooling(k):
    return k.Sequential(
        [
            k.Input((6,), dtype="int32"),
            k.layers.Embedding(12, 4, mask_zero=True),
            k.layers.GlobalAveragePooling1D(),
            k.layers.Dense(2),
        ],
        name="embedding_pooling",
    )


def _conv_lstm(k):
    return k.Sequential([k.Input((3, 6, 6, 1)), k.layers.ConvLSTM2D(2, 3), k.layers.Flatten()], name="conv_lstm")


def _mobilenet_v3(k):
    return k.applications.MobileNetV3Small(
        input_shape=(32, 32, 3), weights=None, classes=4, include_preprocessing=True, minimalistic=True
    )


def _regularized(k):
    return k.Sequential(
        [
            k.Input((4,)),
            k.layers.Dense(
                3,
                kernel_regularizer=k.regularizers.L2(0.01),
                kernel_constraint=k.constraints.MaxNorm(2.0),
                kernel_initializer=k.initializers.HeNormal(seed=1),
            ),
            k.layers.ActivityRegularization(l1=0.01),
            k.layers.GaussianNoise(0.1),
            k.layers.Dense(2),
        ],
        name="regularized",
    )


CASES = [
    Case("mlp", _mlp, _floats(4, 8)),
    Case("cnn", _cnn, _floats(3, 12, 12, 2)),
    Case("convolutions", _convolutions, _floats(2, 10, 10, 3)),
    Case("conv1d", _conv1d, _floats(3, 16, 3)),
    Case("conv3d", _conv3d, _floats(2, 6, 6, 6, 1)),
    Case(
        "lstm_masked",
        _lstm_masked,
        lambda rng: np.concatenate([rng.integers(1, 20, size=(3, 4)), np.zeros((3, 3))], axis=1).astype("int32"),
    ),
    Case("bidirectional_gru", _bidirectional_gru, _floats(3, 6, 4)),
    Case("attention", _attention, _floats(2, 5, 8)),
    Case("two_in_two_out", _two_in_two_out, _two_in_two_out_inputs),
    Case("shared_layer", _shared_layer, lambda rng: [_floats(3, 4)(rng), _floats(3, 4)(rng)]),
    Case("nested", _nested, _floats(3, 6)),
    Case("operations", _operations, _floats(3, 6)),
    Case("merging", _merging, lambda rng: [_floats(3, 4)(rng), _floats(3, 4)(rng)]),
    Case("activations", _activations, _floats(4, 6)),
    Case("normalizations", _normalizations, _floats(3, 8, 4)),
    Case("custom_layers", _custom_layers, _floats(3, 8), custom=True),
    Case("custom_in_sequential", _custom_in_sequential, _floats(3, 4), custom=True),
    Case("lambda_named", _lambda_named, _floats(3, 5), custom=True),
    Case("custom_activation", _custom_activation, _floats(3, 5), custom=True),
    Case(
        "normalization_adapted",
        _normalization_adapted,
        _floats(4, 3),
        adapt=_adapt_first(np.random.default_rng(5).normal(3.0, 2.0, size=(32, 3)).astype("float32")),
    ),
    Case(
        "discretization",
        _discretization,
        _floats(4, 4),
        adapt=_adapt_first(np.random.default_rng(6).normal(size=(64, 4)).astype("float32")),
    ),
    Case("string_lookup", _string_lookup, lambda rng: TOKENS, adapt=_adapt_first(TOKENS), tolerance=0),
    Case("text_to_lstm", _text_to_lstm, lambda rng: WORDS, adapt=_adapt_first(WORDS)),
    Case(
        "integer_lookup",
        _integer_lookup,
        lambda rng: np.array([[4, 9, 4], [7, 7, 1]], "int64"),
        adapt=_adapt_first(np.array([[4, 9, 7], [9, 9, 4]], "int64")),
        tolerance=0,
    ),
    Case("hashing", _hashing, lambda rng: rng.integers(0, 100, size=(3, 3)).astype("int64")),
    Case(
        "image_preprocessing", _image_preprocessing, lambda rng: rng.uniform(0, 255, (2, 12, 10, 3)).astype("float32")
    ),
    Case("quantized_int8", _quantized_int8, _floats(3, 6), tolerance=1e-4),
    Case("quantized_int4", _quantized_int4, _floats(3, 8), tolerance=1e-4),
    Case("mixed_precision", _mixed_precision, _floats(3, 6), tolerance=1e-2),
    Case("compiled_adam", _compiled_adam, _floats(8, 5), compiled=True),
    Case("compiled_sgd_momentum", _compiled_sgd_momentum, _floats(8, 5), compiled=True),
    Case(
        "embedding_pooling", _embedding_pooling, lambda rng: np.array([[3, 4, 0, 0, 0, 0], [1, 2, 3, 4, 5, 6]], "int32")
    ),
    Case("conv_lstm", _conv_lstm, _floats(2, 3, 6, 6, 1)),
    Case(
        "mobilenet_v3_small",
        _mobilenet_v3,
        lambda rng: rng.uniform(0, 255, (2, 32, 32, 3)).astype("float32"),
        tolerance=1e-4,
    ),
    Case("regularized", _regularized, _floats(3, 4)),
]


def randomize(model: Any, seed: int) -> None:
    """Random trainable weights and batch statistics, so zeros and ones hide no mistake."""
    rng = np.random.default_rng(seed)
    for weight in model.weights:
        name = (getattr(weight, "path", None) or weight.name).split("/")[-1].split(":")[0]
        dtype = tf.as_dtype(weight.dtype)
        if not dtype.is_floating or not (weight.trainable or name in ("moving_mean", "moving_variance")):
            continue
        values = rng.uniform(-0.5, 0.5, size=tuple(weight.shape))
        if name in ("moving_variance", "gamma"):
            values = np.abs(values) + 0.5
        weight.assign(values.astype(dtype.as_numpy_dtype))
