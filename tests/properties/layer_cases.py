"""Strategies of valid constructor arguments and input shapes for the built-in layers.

    case = data.draw(LAYER_CASES["Conv2D"])     # a LayerCase: class, kwargs, input shapes (batch first)
    layer = case.make(); outputs = case.call(layer, case.inputs(seed=0))

Each entry of ``LAYER_CASES`` draws arguments that Keras 3 accepts for the
class together with input shapes the layer can take (a valid convolution
never has a kernel wider than its padded input, a group count divides the
channels, ...). ``tests/layer_catalog.py`` holds one fixed example of every
layer; this table draws many, for the classes whose arguments shape the
output. The arguments cover what changes a layer's weights, its output shape
and its config: sizes, strides, paddings, data formats, activations, flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from tfkit import layers

ACTIVATIONS = st.sampled_from([None, "relu", "tanh", "sigmoid", "gelu", "softplus", "linear"])
FORMATS = st.sampled_from(["channels_last", "channels_first"])


@dataclass
class LayerCase:
    """A layer class, constructor arguments and full input shapes (batch first; several for merges)."""

    cls: type
    kwargs: dict
    shapes: list[tuple]
    dtype: str = "float32"
    high: int = 0  # > 0: integer inputs in [0, high)
    call_as: str = "single"  # "single": layer(x); "list": layer([x, y]); "args": layer(x, y)
    wrapped: Any = None  # the inner layer's case, for wrappers (Bidirectional, TimeDistributed)

    def make(self):
        kwargs = dict(self.kwargs)
        if self.wrapped is not None:
            kwargs["layer"] = self.wrapped.make()
        return self.cls(**kwargs)

    def inputs(self, seed: int) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        if self.high:
            return [rng.integers(0, self.high, size=s).astype(self.dtype) for s in self.shapes]
        return [rng.normal(size=s).astype(self.dtype) for s in self.shapes]

    def call(self, layer, values: list):
        if self.call_as == "single":
            return layer(values[0])
        if self.call_as == "list":
            return layer(list(values))
        return layer(*values)

    def output_shape(self, layer, shapes: list[tuple]):
        """``layer.compute_output_shape`` of ``shapes``: one shape, a list of them, or one argument each."""
        if self.call_as == "single":
            return layer.compute_output_shape(shapes[0])
        if self.call_as == "list":
            return layer.compute_output_shape(list(shapes))
        return layer.compute_output_shape(*shapes)


def _batch():
    return st.integers(1, 3)


def _spatial(draw, rank, low, high):
    return tuple(draw(st.integers(low, high)) for _ in range(rank))


def _image_shape(batch, spatial, channels, data_format):
    if data_format == "channels_first":
        return (batch, channels) + tuple(spatial)
    return (batch,) + tuple(spatial) + (channels,)


@st.composite
def conv(draw, cls, rank, kind="conv", formats=FORMATS):
    """Conv{1,2,3}D, their transposes, depthwise and separable convolutions."""
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    paddings = ["valid", "same"] + (["causal"] if cls is layers.Conv1D else [])
    padding = draw(st.sampled_from(paddings))
    strides = dilation = 1
    if draw(st.booleans()):  # Keras refuses strides > 1 together with dilation > 1
        strides = tuple(draw(st.integers(1, 2)) for _ in range(rank))
    elif kind != "transpose":
        dilation = tuple(draw(st.integers(1, 2)) for _ in range(rank))
    data_format = draw(formats) if kind in ("conv", "separable") and rank < 3 else "channels_last"
    channels = draw(st.integers(1, 3))
    kwargs = dict(
        kernel_size=kernel,
        strides=strides,
        padding=padding,
        data_format=data_format,
        activation=draw(ACTIVATIONS),
        use_bias=draw(st.booleans()),
    )
    if kind != "transpose":
        kwargs["dilation_rate"] = dilation
    if kind in ("depthwise", "separable"):
        kwargs["depth_multiplier"] = draw(st.integers(1, 2))
    if kind != "depthwise":
        groups = draw(st.sampled_from([1, channels])) if kind == "conv" else 1
        kwargs["filters"] = groups * draw(st.integers(1, 3))
        if groups > 1:
            kwargs["groups"] = groups
    dilation = dilation if isinstance(dilation, tuple) else (dilation,) * rank
    low = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]  # the smallest input a valid window fits
    spatial = tuple(draw(st.integers(lo, lo + 3)) for lo in low)
    return LayerCase(cls, kwargs, [_image_shape(draw(_batch()), spatial, channels, data_format)])


@st.composite
def pooling(draw, cls, rank):
    pool = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    strides = draw(st.none() | st.tuples(*[st.integers(1, 3)] * rank))
    data_format = draw(FORMATS)
    spatial = tuple(draw(st.integers(p, p + 3)) for p in pool)
    kwargs = dict(
        pool_size=pool, strides=strides, padding=draw(st.sampled_from(["valid", "same"])), data_format=data_format
    )
    return LayerCase(cls, kwargs, [_image_shape(draw(_batch()), spatial, draw(st.integers(1, 3)), data_format)])


@st.composite
def global_pooling(draw, cls, rank):
    data_format = draw(FORMATS)
    shape = _image_shape(draw(_batch()), _spatial(draw, rank, 1, 4), draw(st.integers(1, 3)), data_format)
    return LayerCase(cls, dict(data_format=data_format, keepdims=draw(st.booleans())), [shape])


@st.composite
def adaptive_pooling(draw, cls, rank):
    data_format = draw(FORMATS)
    spatial = _spatial(draw, rank, 1, 6)
    output_size = tuple(draw(st.integers(1, s)) for s in spatial)
    shape = _image_shape(draw(_batch()), spatial, draw(st.integers(1, 3)), data_format)
    return LayerCase(cls, dict(output_size=output_size, data_format=data_format), [shape])


def _feature_shape(draw, min_dims=1, max_dims=3):
    return (draw(_batch()),) + tuple(draw(st.lists(st.integers(1, 4), min_size=min_dims, max_size=max_dims)))


@st.composite
def dense(draw):
    kwargs = dict(units=draw(st.integers(1, 5)), activation=draw(ACTIVATIONS), use_bias=draw(st.booleans()))
    return LayerCase(layers.Dense, kwargs, [_feature_shape(draw)])


@st.composite
def einsum_dense(draw):
    equation, bias = draw(
        st.sampled_from([("ab,bc->ac", "c"), ("abc,cd->abd", "d"), ("abc,cde->abde", "de"), ("abc,cd->abd", None)])
    )
    rank = len(equation.split(",")[0])
    out_rank = len(equation.split("->")[1])
    output_shape = tuple(draw(st.integers(1, 4)) for _ in range(out_rank - 1))
    if out_rank > 2:  # "ab..": the axis after the batch is the input's own, left unknown (None)
        output_shape = (None,) + output_shape[1:]
    kwargs = dict(
        equation=equation,
        output_shape=output_shape if len(output_shape) > 1 else output_shape[0],
        bias_axes=bias,
        activation=draw(ACTIVATIONS),
    )
    return LayerCase(layers.EinsumDense, kwargs, [(draw(_batch()),) + _spatial(draw, rank - 1, 1, 4)])


@st.composite
def embedding(draw, cls=layers.Embedding):
    input_dim = draw(st.integers(2, 20))
    kwargs = dict(input_dim=input_dim, output_dim=draw(st.integers(1, 5)), mask_zero=draw(st.booleans()))
    return LayerCase(cls, kwargs, [_feature_shape(draw, 1, 2)], dtype="int32", high=input_dim)


@st.composite
def elementwise(draw, cls, kwargs_strategy, min_dims=1, max_dims=3):
    return LayerCase(cls, draw(kwargs_strategy), [_feature_shape(draw, min_dims, max_dims)])


@st.composite
def axis_layer(draw, cls, tuple_axis=True, **extra):
    shape = _feature_shape(draw)
    rank = len(shape)
    axis = draw(st.integers(1, rank - 1) | st.integers(-rank + 1, -1))
    if tuple_axis and rank > 2 and draw(st.booleans()):
        axis = sorted(draw(st.lists(st.integers(1, rank - 1), min_size=1, max_size=rank - 1, unique=True)))
    kwargs = {"axis": axis}
    kwargs.update({name: draw(strategy) for name, strategy in extra.items()})
    return LayerCase(cls, kwargs, [shape])


@st.composite
def batch_normalization(draw):
    shape = _feature_shape(draw)
    kwargs = dict(
        axis=draw(st.integers(1, len(shape) - 1)),
        momentum=draw(st.floats(0.5, 0.99)),
        epsilon=draw(st.floats(1e-5, 1e-2)),
        center=draw(st.booleans()),
        scale=draw(st.booleans()),
    )
    return LayerCase(layers.BatchNormalization, kwargs, [shape])


@st.composite
def group_normalization(draw):
    groups = draw(st.integers(1, 3))
    shape = (draw(_batch()),) + _spatial(draw, draw(st.integers(0, 2)), 1, 3) + (groups * draw(st.integers(1, 2)),)
    kwargs = dict(
        groups=groups, epsilon=draw(st.floats(1e-5, 1e-2)), center=draw(st.booleans()), scale=draw(st.booleans())
    )
    return LayerCase(layers.GroupNormalization, kwargs, [shape])


@st.composite
def recurrent(draw, cls):
    kwargs = dict(
        units=draw(st.integers(1, 4)),
        return_sequences=draw(st.booleans()),
        return_state=draw(st.booleans()),
        go_backwards=draw(st.booleans()),
        use_bias=draw(st.booleans()),
    )
    if cls is not layers.SimpleRNN:
        kwargs["recurrent_activation"] = draw(st.sampled_from(["sigmoid", "hard_sigmoid"]))
    if cls is layers.GRU:
        kwargs["reset_after"] = draw(st.booleans())
    shape = (draw(_batch()), draw(st.integers(1, 4)), draw(st.integers(1, 3)))
    return LayerCase(cls, kwargs, [shape])


@st.composite
def bidirectional(draw):
    inner = draw(recurrent(draw(st.sampled_from([layers.SimpleRNN, layers.LSTM, layers.GRU]))))
    inner.kwargs["return_state"] = False
    merge_mode = draw(st.sampled_from(["concat", "sum", "mul", "ave"]))
    return LayerCase(layers.Bidirectional, {"merge_mode": merge_mode}, inner.shapes, wrapped=inner)


@st.composite
def time_distributed(draw):
    inner = draw(st.one_of(dense(), conv(layers.Conv1D, 1, formats=st.just("channels_last"))))
    shape = inner.shapes[0]
    return LayerCase(layers.TimeDistributed, {}, [(shape[0], draw(st.integers(1, 3))) + shape[1:]], wrapped=inner)


@st.composite
def multi_head_attention(draw):
    batch, dim = draw(_batch()), draw(st.integers(1, 4))
    query, value = (batch, draw(st.integers(1, 4)), dim), (batch, draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    kwargs = dict(
        num_heads=draw(st.integers(1, 3)),
        key_dim=draw(st.integers(1, 3)),
        value_dim=draw(st.none() | st.integers(1, 3)),
        use_bias=draw(st.booleans()),
        output_shape=draw(st.none() | st.integers(1, 4)),
    )
    return LayerCase(layers.MultiHeadAttention, kwargs, [query, value], call_as="args")


@st.composite
def grouped_query_attention(draw):
    batch, dim = draw(_batch()), draw(st.integers(1, 4))
    kv_heads = draw(st.integers(1, 2))
    kwargs = dict(
        head_dim=draw(st.integers(1, 3)),
        num_query_heads=kv_heads * draw(st.integers(1, 2)),
        num_key_value_heads=kv_heads,
        use_bias=draw(st.booleans()),
    )
    # Keras 3's compute_output_shape wants query and value of one feature size (the call would take others)
    query, value = (batch, draw(st.integers(1, 4)), dim), (batch, draw(st.integers(1, 4)), dim)
    return LayerCase(layers.GroupQueryAttention, kwargs, [query, value], call_as="args")


@st.composite
def dot_attention(draw, cls):
    batch, dim = draw(_batch()), draw(st.integers(1, 4))
    shapes = [(batch, draw(st.integers(1, 4)), dim)]
    value_steps = draw(st.integers(1, 4))
    shapes += [(batch, value_steps, dim)] * draw(st.integers(1, 2))  # [query, value] or [query, value, key]
    kwargs = dict(use_scale=draw(st.booleans()))
    if cls is layers.Attention:
        kwargs["score_mode"] = draw(st.sampled_from(["dot", "concat"]))
    return LayerCase(cls, kwargs, shapes, call_as="list")


@st.composite
def merging(draw, cls):
    shape = _feature_shape(draw)
    count = draw(st.integers(2, 3)) if cls is not layers.Subtract else 2
    return LayerCase(cls, {}, [shape] * count, call_as="list")


@st.composite
def concatenate(draw):
    shape = _feature_shape(draw)
    axis = draw(st.integers(1, len(shape) - 1))
    shapes = [shape[:axis] + (draw(st.integers(1, 3)),) + shape[axis + 1 :] for _ in range(draw(st.integers(2, 3)))]
    return LayerCase(
        layers.Concatenate, {"axis": axis if draw(st.booleans()) else axis - len(shape)}, shapes, call_as="list"
    )


@st.composite
def dot(draw):
    batch, dim = draw(_batch()), draw(st.integers(1, 4))
    if draw(st.booleans()):
        shapes, axes = [(batch, dim), (batch, dim)], 1
    else:
        shapes, axes = [(batch, draw(st.integers(1, 3)), dim), (batch, draw(st.integers(1, 3)), dim)], (2, 2)
    return LayerCase(layers.Dot, dict(axes=axes, normalize=draw(st.booleans())), shapes, call_as="list")


@st.composite
def reshape(draw):
    shape = _feature_shape(draw)
    sizes = list(shape[1:])
    size = int(np.prod(sizes))
    factors = [f for f in range(1, size + 1) if size % f == 0]
    first = draw(st.sampled_from(factors))
    target = [first, size // first]
    if draw(st.booleans()):
        target[draw(st.integers(0, 1))] = -1
    return LayerCase(layers.Reshape, {"target_shape": tuple(target)}, [shape])


@st.composite
def permute(draw):
    shape = _feature_shape(draw)
    dims = tuple(draw(st.permutations(range(1, len(shape)))))
    return LayerCase(layers.Permute, {"dims": dims}, [shape])


@st.composite
def resampling(draw, cls, rank, argument):
    """UpSampling, ZeroPadding and Cropping in one to three dimensions."""
    data_format = draw(FORMATS) if rank > 1 else "channels_last"
    spatial = _spatial(draw, rank, 1, 4)
    if argument == "size":
        value = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    elif argument == "padding":
        value = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in range(rank))
    else:  # cropping leaves at least one element
        spatial = _spatial(draw, rank, 3, 6)
        value = []
        for side in spatial:
            left = draw(st.integers(0, side - 1))
            value.append((left, draw(st.integers(0, side - 1 - left))))
        value = tuple(value)
    if rank == 1:
        value = value[0]
    kwargs = {argument: value}
    if rank > 1:
        kwargs["data_format"] = data_format
    if cls is layers.UpSampling2D:
        kwargs["interpolation"] = draw(st.sampled_from(["nearest", "bilinear"]))
    shape = _image_shape(draw(_batch()), spatial, draw(st.integers(1, 3)), data_format)
    return LayerCase(cls, kwargs, [shape])


@st.composite
def image_preprocessing(draw, cls):
    data_format = draw(FORMATS)
    spatial = _spatial(draw, 2, 2, 6)
    kwargs = dict(data_format=data_format)
    if cls is layers.CenterCrop:
        kwargs.update(height=draw(st.integers(1, spatial[0])), width=draw(st.integers(1, spatial[1])))
    else:
        kwargs.update(
            height=draw(st.integers(1, 6)),
            width=draw(st.integers(1, 6)),
            interpolation=draw(st.sampled_from(["bilinear", "nearest", "bicubic"])),
            crop_to_aspect_ratio=draw(st.booleans()),
        )
    shape = _image_shape(draw(_batch()), spatial, draw(st.integers(1, 3)), data_format)
    return LayerCase(cls, kwargs, [shape])


@st.composite
def normalization_preprocessing(draw):
    shape = _feature_shape(draw)
    features = shape[-1]
    mean = draw(st.lists(st.floats(-2, 2), min_size=features, max_size=features))
    variance = draw(st.lists(st.floats(0.25, 4), min_size=features, max_size=features))
    return LayerCase(layers.Normalization, dict(mean=mean, variance=variance, invert=draw(st.booleans())), [shape])


@st.composite
def discretization(draw):
    bounds = sorted(set(draw(st.lists(st.floats(-2, 2).map(lambda v: round(v, 3)), min_size=1, max_size=5))))
    output_mode = draw(st.sampled_from(["int", "one_hot", "multi_hot", "count"]))
    shape = (
        (draw(_batch()), draw(st.integers(1, 4))) if output_mode in ("int", "multi_hot", "count") else (draw(_batch()),)
    )
    return LayerCase(layers.Discretization, dict(bin_boundaries=bounds, output_mode=output_mode), [shape])


@st.composite
def category_encoding(draw):
    tokens = draw(st.integers(1, 8))
    output_mode = draw(st.sampled_from(["one_hot", "multi_hot", "count"]))
    shape = (draw(_batch()),) if output_mode == "one_hot" else (draw(_batch()), draw(st.integers(1, 4)))
    return LayerCase(
        layers.CategoryEncoding, dict(num_tokens=tokens, output_mode=output_mode), [shape], dtype="int32", high=tokens
    )


@st.composite
def spectral_normalization(draw):
    inner = draw(st.one_of(dense(), conv(layers.Conv2D, 2, formats=st.just("channels_last"))))
    return LayerCase(
        layers.SpectralNormalization, {"power_iterations": draw(st.integers(1, 2))}, inner.shapes, wrapped=inner
    )


def _rate():
    return st.floats(0.0, 0.9)


LAYER_CASES: dict[str, st.SearchStrategy[LayerCase]] = {
    # core
    "Dense": dense(),
    "EinsumDense": einsum_dense(),
    "Embedding": embedding(),
    "Activation": elementwise(layers.Activation, st.fixed_dictionaries({"activation": ACTIVATIONS.filter(bool)})),
    "Identity": elementwise(layers.Identity, st.just({})),
    "Masking": elementwise(layers.Masking, st.fixed_dictionaries({"mask_value": st.sampled_from([0.0, 1.5])}), 2),
    # convolution
    "Conv1D": conv(layers.Conv1D, 1),
    "Conv2D": conv(layers.Conv2D, 2),
    "Conv3D": conv(layers.Conv3D, 3),
    "Conv1DTranspose": conv(layers.Conv1DTranspose, 1, "transpose"),
    "Conv2DTranspose": conv(layers.Conv2DTranspose, 2, "transpose"),
    "Conv3DTranspose": conv(layers.Conv3DTranspose, 3, "transpose"),
    "DepthwiseConv1D": conv(layers.DepthwiseConv1D, 1, "depthwise"),
    "DepthwiseConv2D": conv(layers.DepthwiseConv2D, 2, "depthwise"),
    "SeparableConv1D": conv(layers.SeparableConv1D, 1, "separable"),
    "SeparableConv2D": conv(layers.SeparableConv2D, 2, "separable"),
    # pooling
    "MaxPooling1D": pooling(layers.MaxPooling1D, 1),
    "MaxPooling2D": pooling(layers.MaxPooling2D, 2),
    "MaxPooling3D": pooling(layers.MaxPooling3D, 3),
    "AveragePooling1D": pooling(layers.AveragePooling1D, 1),
    "AveragePooling2D": pooling(layers.AveragePooling2D, 2),
    "AveragePooling3D": pooling(layers.AveragePooling3D, 3),
    "GlobalMaxPooling1D": global_pooling(layers.GlobalMaxPooling1D, 1),
    "GlobalMaxPooling2D": global_pooling(layers.GlobalMaxPooling2D, 2),
    "GlobalAveragePooling1D": global_pooling(layers.GlobalAveragePooling1D, 1),
    "GlobalAveragePooling3D": global_pooling(layers.GlobalAveragePooling3D, 3),
    "AdaptiveAveragePooling1D": adaptive_pooling(layers.AdaptiveAveragePooling1D, 1),
    "AdaptiveMaxPooling2D": adaptive_pooling(layers.AdaptiveMaxPooling2D, 2),
    "AdaptiveAveragePooling3D": adaptive_pooling(layers.AdaptiveAveragePooling3D, 3),
    # normalization
    "BatchNormalization": batch_normalization(),
    "LayerNormalization": axis_layer(
        layers.LayerNormalization, epsilon=st.floats(1e-5, 1e-2), center=st.booleans(), scale=st.booleans()
    ),
    "GroupNormalization": group_normalization(),
    "UnitNormalization": axis_layer(layers.UnitNormalization),
    "RMSNormalization": axis_layer(layers.RMSNormalization, epsilon=st.floats(1e-6, 1e-3)),
    "SpectralNormalization": spectral_normalization(),
    # recurrent
    "SimpleRNN": recurrent(layers.SimpleRNN),
    "LSTM": recurrent(layers.LSTM),
    "GRU": recurrent(layers.GRU),
    "Bidirectional": bidirectional(),
    "TimeDistributed": time_distributed(),
    # attention
    "MultiHeadAttention": multi_head_attention(),
    "GroupQueryAttention": grouped_query_attention(),
    "Attention": dot_attention(layers.Attention),
    "AdditiveAttention": dot_attention(layers.AdditiveAttention),
    # reshaping
    "Flatten": elementwise(layers.Flatten, st.just({}), 1, 3),
    "Reshape": reshape(),
    "Permute": permute(),
    "RepeatVector": st.builds(
        lambda n, b, f: LayerCase(layers.RepeatVector, {"n": n}, [(b, f)]),
        st.integers(1, 4),
        _batch(),
        st.integers(1, 4),
    ),
    "UpSampling1D": resampling(layers.UpSampling1D, 1, "size"),
    "UpSampling2D": resampling(layers.UpSampling2D, 2, "size"),
    "UpSampling3D": resampling(layers.UpSampling3D, 3, "size"),
    "ZeroPadding1D": resampling(layers.ZeroPadding1D, 1, "padding"),
    "ZeroPadding2D": resampling(layers.ZeroPadding2D, 2, "padding"),
    "ZeroPadding3D": resampling(layers.ZeroPadding3D, 3, "padding"),
    "Cropping1D": resampling(layers.Cropping1D, 1, "cropping"),
    "Cropping2D": resampling(layers.Cropping2D, 2, "cropping"),
    "Cropping3D": resampling(layers.Cropping3D, 3, "cropping"),
    # merging
    "Add": merging(layers.Add),
    "Subtract": merging(layers.Subtract),
    "Multiply": merging(layers.Multiply),
    "Average": merging(layers.Average),
    "Maximum": merging(layers.Maximum),
    "Minimum": merging(layers.Minimum),
    "Concatenate": concatenate(),
    "Dot": dot(),
    # regularization (inference: the identity, or a fixed scale)
    "Dropout": elementwise(layers.Dropout, st.fixed_dictionaries({"rate": _rate(), "seed": st.integers(0, 9)})),
    "SpatialDropout1D": elementwise(layers.SpatialDropout1D, st.fixed_dictionaries({"rate": _rate()}), 2, 2),
    "SpatialDropout2D": elementwise(
        layers.SpatialDropout2D, st.fixed_dictionaries({"rate": _rate(), "data_format": FORMATS}), 3, 3
    ),
    # Keras 3 refuses a standard deviation above 1
    "GaussianNoise": elementwise(layers.GaussianNoise, st.fixed_dictionaries({"stddev": st.floats(0.0, 1.0)})),
    "GaussianDropout": elementwise(layers.GaussianDropout, st.fixed_dictionaries({"rate": _rate()})),
    "AlphaDropout": elementwise(layers.AlphaDropout, st.fixed_dictionaries({"rate": _rate()})),
    "ActivityRegularization": elementwise(
        layers.ActivityRegularization, st.fixed_dictionaries({"l1": st.floats(0.0, 0.1), "l2": st.floats(0.0, 0.1)})
    ),
    # activations
    "ReLU": elementwise(
        layers.ReLU,
        st.fixed_dictionaries(
            {
                "max_value": st.none() | st.floats(0.5, 6.0),
                "negative_slope": st.floats(0.0, 1.0),
                "threshold": st.floats(0.0, 1.0),
            }
        ),
    ),  # Keras 3 refuses a negative threshold
    "LeakyReLU": elementwise(layers.LeakyReLU, st.fixed_dictionaries({"negative_slope": st.floats(0.0, 1.0)})),
    "ELU": elementwise(layers.ELU, st.fixed_dictionaries({"alpha": st.floats(0.1, 2.0)})),
    "PReLU": elementwise(
        layers.PReLU, st.fixed_dictionaries({"alpha_initializer": st.sampled_from(["zeros", "ones"])}), 2, 2
    ),
    "Softmax": axis_layer(layers.Softmax),
    # preprocessing that shapes values
    "Rescaling": elementwise(
        layers.Rescaling, st.fixed_dictionaries({"scale": st.floats(-2, 2), "offset": st.floats(-1, 1)})
    ),
    "Normalization": normalization_preprocessing(),
    "Discretization": discretization(),
    "CategoryEncoding": category_encoding(),
    "Resizing": image_preprocessing(layers.Resizing),
    "CenterCrop": image_preprocessing(layers.CenterCrop),
}
