"""One small, valid use of every built-in layer, shared by the config and saving tests.

for name, make_model in CATALOG.items():
    model = make_model()            # a functional model around a fresh layer
"""

from __future__ import annotations

from typing import Callable

import tensorflow as tf

import tfkit
from tfkit import activations, layers
from tfkit.applications import application_layers


def _single(
    layer_factory: Callable[[], tfkit.Layer], shape: tuple, dtype: str = "float32"
) -> Callable[[], tfkit.Model]:
    def make() -> tfkit.Model:
        x = tfkit.Input(shape, dtype=dtype)
        return tfkit.Model(x, layer_factory()(x))

    return make


def _merge(layer_factory: Callable[[], tfkit.Layer], shapes: list[tuple]) -> Callable[[], tfkit.Model]:
    def make() -> tfkit.Model:
        inputs = [tfkit.Input(s) for s in shapes]
        return tfkit.Model(inputs, layer_factory()(inputs))

    return make


def _attention() -> tfkit.Model:
    query, value = tfkit.Input((4, 6)), tfkit.Input((5, 6))
    return tfkit.Model([query, value], layers.MultiHeadAttention(num_heads=2, key_dim=3)(query, value))


def _grouped_attention() -> tfkit.Model:
    query, value = tfkit.Input((4, 6)), tfkit.Input((5, 6))
    attention = layers.GroupQueryAttention(head_dim=3, num_query_heads=4, num_key_value_heads=2)
    return tfkit.Model([query, value], attention(query, value, use_causal_mask=True))


def _operations() -> tfkit.Model:
    x = tfkit.Input((4,))
    return tfkit.Model(x, tf.nn.relu(x * 2.0 + 1.0)[:, 1:])


def _stacked_cells_step() -> tfkit.Model:
    x, h, c, g = tfkit.Input((3,)), tfkit.Input((2,)), tfkit.Input((2,)), tfkit.Input((4,))
    output, _ = layers.StackedRNNCells([layers.LSTMCell(2), layers.GRUCell(4)])(x, [[h, c], [g]])
    return tfkit.Model([x, h, c, g], output)


def _hashed_crossing() -> tfkit.Model:
    words, codes = tfkit.Input((1,), dtype="string"), tfkit.Input((1,), dtype="int32")
    return tfkit.Model([words, codes], layers.HashedCrossing(5)([words, codes]))


def _masked_lstm() -> tfkit.Model:
    tokens = tfkit.Input((5,), dtype="int32")
    x = layers.Embedding(20, 4, mask_zero=True)(tokens)
    return tfkit.Model(tokens, layers.Bidirectional(layers.LSTM(3, return_sequences=True))(x))


CATALOG: dict[str, Callable[[], tfkit.Model]] = {
    "Dense": _single(lambda: layers.Dense(3, activation="relu", kernel_regularizer="l2"), (4,)),
    "EinsumDense": _single(lambda: layers.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c"), (4,)),
    "Activation": _single(lambda: layers.Activation("tanh"), (4,)),
    "Identity": _single(lambda: layers.Identity(), (4,)),
    "Lambda": _single(lambda: layers.Lambda(activations.relu), (4,)),
    "Dropout": _single(lambda: layers.Dropout(0.3, seed=1), (4,)),
    "SpatialDropout1D": _single(lambda: layers.SpatialDropout1D(0.2), (5, 3)),
    "SpatialDropout2D": _single(lambda: layers.SpatialDropout2D(0.2), (4, 4, 3)),
    "GaussianNoise": _single(lambda: layers.GaussianNoise(0.1), (4,)),
    "ActivityRegularization": _single(lambda: layers.ActivityRegularization(l1=0.01), (4,)),
    "Flatten": _single(lambda: layers.Flatten(), (2, 3)),
    "Reshape": _single(lambda: layers.Reshape((3, 2)), (6,)),
    "Permute": _single(lambda: layers.Permute((2, 1)), (2, 3)),
    "RepeatVector": _single(lambda: layers.RepeatVector(3), (4,)),
    "UpSampling2D": _single(lambda: layers.UpSampling2D(2), (3, 3, 2)),
    "ZeroPadding2D": _single(lambda: layers.ZeroPadding2D(1), (3, 3, 2)),
    "Cropping2D": _single(lambda: layers.Cropping2D(1), (5, 5, 2)),
    "Embedding": _single(lambda: layers.Embedding(10, 4, mask_zero=True), (5,), "int32"),
    "Masking": _single(lambda: layers.Masking(0.0), (5, 3)),
    "BatchNormalization": _single(lambda: layers.BatchNormalization(), (4,)),
    "LayerNormalization": _single(lambda: layers.LayerNormalization(), (4,)),
    "GroupNormalization": _single(lambda: layers.GroupNormalization(groups=2), (3, 3, 4)),
    "Conv1D": _single(lambda: layers.Conv1D(3, 2, padding="causal"), (6, 2)),
    "Conv2D": _single(lambda: layers.Conv2D(3, 3, padding="same", activation="relu"), (5, 5, 2)),
    "Conv3D": _single(lambda: layers.Conv3D(2, 2), (3, 3, 3, 1)),
    "Conv2DTranspose": _single(lambda: layers.Conv2DTranspose(2, 3, strides=2), (3, 3, 2)),
    "DepthwiseConv2D": _single(lambda: layers.DepthwiseConv2D(3, depth_multiplier=2), (5, 5, 2)),
    "SeparableConv2D": _single(lambda: layers.SeparableConv2D(4, 3), (5, 5, 2)),
    "MaxPooling1D": _single(lambda: layers.MaxPooling1D(2), (6, 2)),
    "MaxPooling2D": _single(lambda: layers.MaxPooling2D(2), (4, 4, 2)),
    "AveragePooling1D": _single(lambda: layers.AveragePooling1D(2), (6, 2)),
    "AveragePooling2D": _single(lambda: layers.AveragePooling2D(2), (4, 4, 2)),
    "GlobalAveragePooling1D": _single(lambda: layers.GlobalAveragePooling1D(), (6, 2)),
    "GlobalAveragePooling2D": _single(lambda: layers.GlobalAveragePooling2D(), (4, 4, 2)),
    "GlobalMaxPooling1D": _single(lambda: layers.GlobalMaxPooling1D(), (6, 2)),
    "GlobalMaxPooling2D": _single(lambda: layers.GlobalMaxPooling2D(), (4, 4, 2)),
    "Conv1DTranspose": _single(lambda: layers.Conv1DTranspose(2, 3, strides=2), (4, 2)),
    "Conv3DTranspose": _single(lambda: layers.Conv3DTranspose(2, 2), (2, 2, 2, 1)),
    "MaxPooling3D": _single(lambda: layers.MaxPooling3D(2), (2, 2, 2, 1)),
    "AveragePooling3D": _single(lambda: layers.AveragePooling3D(2), (2, 2, 2, 1)),
    "GlobalAveragePooling3D": _single(lambda: layers.GlobalAveragePooling3D(), (2, 2, 2, 1)),
    "GlobalMaxPooling3D": _single(lambda: layers.GlobalMaxPooling3D(), (2, 2, 2, 1)),
    "Add": _merge(lambda: layers.Add(), [(3,), (3,)]),
    "Subtract": _merge(lambda: layers.Subtract(), [(3,), (3,)]),
    "Multiply": _merge(lambda: layers.Multiply(), [(3,), (3,)]),
    "Average": _merge(lambda: layers.Average(), [(3,), (3,)]),
    "Maximum": _merge(lambda: layers.Maximum(), [(3,), (3,)]),
    "Minimum": _merge(lambda: layers.Minimum(), [(3,), (3,)]),
    "Concatenate": _merge(lambda: layers.Concatenate(), [(3,), (2,)]),
    "Dot": _merge(lambda: layers.Dot(axes=1), [(3,), (3,)]),
    "SimpleRNN": _single(lambda: layers.SimpleRNN(3, return_sequences=True), (5, 2)),
    "LSTM": _single(lambda: layers.LSTM(3, return_state=True), (5, 2)),
    "GRU": _single(lambda: layers.GRU(3, go_backwards=True), (5, 2)),
    "RNN": _single(lambda: layers.RNN([layers.LSTMCell(3), layers.SimpleRNNCell(2)], return_sequences=True), (5, 2)),
    "StackedRNNCells": _stacked_cells_step,
    "Bidirectional": _masked_lstm,
    "TimeDistributed": _single(lambda: layers.TimeDistributed(layers.Dense(2)), (5, 3)),
    "MultiHeadAttention": _attention,
    "TFOpLambda": _operations,
    "CategoryEncoding": _single(
        lambda: layers.CategoryEncoding(num_tokens=12, output_mode="count"), (3,), dtype="int32"
    ),
    "Hashing": _single(lambda: layers.Hashing(num_bins=5, output_mode="one_hot"), (1,), dtype="string"),
    "Discretization": _single(lambda: layers.Discretization(bin_boundaries=[-0.5, 0.0, 0.5]), (4,)),
    "Normalization": _single(lambda: layers.Normalization(mean=[0.5, 1.0, 2.0], variance=[1.0, 4.0, 0.25]), (3,)),
    "IntegerLookup": _single(
        lambda: layers.IntegerLookup(vocabulary=[3, 7, 9], output_mode="one_hot"), (2,), dtype="int32"
    ),
    "StringLookup": _single(lambda: layers.StringLookup(vocabulary=["a", "b"], mask_token=""), (3,), dtype="string"),
    "TextVectorization": _single(
        lambda: layers.TextVectorization(vocabulary=["the", "cat"], output_sequence_length=4), (1,), dtype="string"
    ),
    "GaussianDropout": _single(lambda: layers.GaussianDropout(0.2), (5,)),
    "AlphaDropout": _single(lambda: layers.AlphaDropout(0.2), (5,)),
    "SpatialDropout3D": _single(lambda: layers.SpatialDropout3D(0.2), (2, 2, 2, 3)),
    "UpSampling1D": _single(lambda: layers.UpSampling1D(2), (3, 2)),
    "UpSampling3D": _single(lambda: layers.UpSampling3D((1, 2, 2)), (2, 2, 2, 1)),
    "ZeroPadding1D": _single(lambda: layers.ZeroPadding1D((1, 2)), (3, 2)),
    "ZeroPadding3D": _single(lambda: layers.ZeroPadding3D(1), (2, 2, 2, 1)),
    "Cropping1D": _single(lambda: layers.Cropping1D((1, 1)), (4, 2)),
    "Cropping3D": _single(lambda: layers.Cropping3D(((1, 0), (0, 1), (1, 0))), (3, 3, 3, 1)),
    "UnitNormalization": _single(lambda: layers.UnitNormalization(), (5,)),
    "RMSNormalization": _single(lambda: layers.RMSNormalization(), (3, 4)),
    "LayerScale": _single(lambda: application_layers.LayerScale(0.5, 4), (3, 4)),
    "StochasticDepth": _single(lambda: application_layers.StochasticDepth(0.25, seed=1), (3, 4)),
    "CustomScaleLayer": _merge(lambda: application_layers.CustomScaleLayer(0.17), [(3, 4), (3, 4)]),
    "Attention": _merge(lambda: layers.Attention(use_scale=True), [(3, 4), (5, 4)]),
    "AdditiveAttention": _merge(lambda: layers.AdditiveAttention(), [(3, 4), (5, 4), (5, 4)]),
    "ReLU": _single(lambda: layers.ReLU(max_value=6.0, negative_slope=0.1, threshold=0.5), (4,)),
    "LeakyReLU": _single(lambda: layers.LeakyReLU(0.2), (4,)),
    "PReLU": _single(lambda: layers.PReLU(alpha_initializer="ones", shared_axes=[1]), (3, 4)),
    "ELU": _single(lambda: layers.ELU(0.5), (4,)),
    "Softmax": _single(lambda: layers.Softmax(axis=[1, 2]), (3, 4)),
    "Rescaling": _single(lambda: layers.Rescaling(1 / 255, offset=-0.5), (4, 4, 3)),
    "Resizing": _single(lambda: layers.Resizing(3, 2, crop_to_aspect_ratio=True), (5, 4, 3)),
    "CenterCrop": _single(lambda: layers.CenterCrop(3, 2), (5, 4, 3)),
    "RandomFlip": _single(lambda: layers.RandomFlip("horizontal", seed=1), (4, 4, 3)),
    "RandomRotation": _single(lambda: layers.RandomRotation((-0.1, 0.2), fill_mode="constant", seed=1), (4, 4, 3)),
    "RandomZoom": _single(lambda: layers.RandomZoom(0.2, (-0.1, 0.1), interpolation="nearest"), (4, 4, 3)),
    "RandomTranslation": _single(lambda: layers.RandomTranslation(0.1, 0.2, fill_mode="wrap"), (4, 4, 3)),
    "RandomContrast": _single(lambda: layers.RandomContrast((0.2, 0.3), value_range=(0, 1)), (4, 4, 3)),
    "RandomCrop": _single(lambda: layers.RandomCrop(3, 2, seed=2), (5, 4, 3)),
    "DepthwiseConv1D": _single(lambda: layers.DepthwiseConv1D(3, depth_multiplier=2, padding="same"), (6, 2)),
    "SeparableConv1D": _single(lambda: layers.SeparableConv1D(3, 2, strides=2), (6, 2)),
    "AdaptiveAveragePooling1D": _single(lambda: layers.AdaptiveAveragePooling1D(4), (6, 2)),
    "AdaptiveAveragePooling2D": _single(lambda: layers.AdaptiveAveragePooling2D((2, 3)), (5, 4, 2)),
    "AdaptiveAveragePooling3D": _single(lambda: layers.AdaptiveAveragePooling3D(2), (3, 3, 3, 1)),
    "AdaptiveMaxPooling1D": _single(lambda: layers.AdaptiveMaxPooling1D(4), (6, 2)),
    "AdaptiveMaxPooling2D": _single(lambda: layers.AdaptiveMaxPooling2D((2, 3)), (5, 4, 2)),
    "AdaptiveMaxPooling3D": _single(lambda: layers.AdaptiveMaxPooling3D(2), (3, 3, 3, 1)),
    "ConvLSTM1D": _single(lambda: layers.ConvLSTM1D(2, 2, return_sequences=True), (3, 5, 2)),
    "ConvLSTM2D": _single(lambda: layers.ConvLSTM2D(2, 2, padding="same"), (3, 4, 4, 1)),
    "ConvLSTM3D": _single(lambda: layers.ConvLSTM3D(1, 2), (2, 3, 3, 3, 1)),
    "ReversibleEmbedding": _single(lambda: layers.ReversibleEmbedding(10, 4, mask_zero=True), (5,), "int32"),
    "SpectralNormalization": _single(lambda: layers.SpectralNormalization(layers.Conv2D(2, 2)), (4, 4, 1)),
    "HashedCrossing": _hashed_crossing,
    "STFTSpectrogram": _single(lambda: layers.STFTSpectrogram(mode="log", frame_length=8, frame_step=4), (40, 2)),
    "GroupQueryAttention": _grouped_attention,
    "MelSpectrogram": _single(lambda: layers.MelSpectrogram(fft_length=64, sequence_stride=16, num_mel_bins=8), (200,)),
}


def layer_module(name: str) -> str:
    """A sweep's kind for the built-in layer ``name``: the module that defines it (an entry that is not a
    ``tfkit.layers`` class is a kind of its own)."""
    layer = getattr(layers, name, None)
    return layer.__module__ if isinstance(layer, type) else name
