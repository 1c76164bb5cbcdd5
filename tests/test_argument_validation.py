"""One home per helper: the shared argument checks and layout conversions, and no second copy of them.

``tfkit/base/argument_validation.py`` and ``tfkit/base/data_format.py`` hold the
checks every layer, op and loop uses; a layer reports a bad argument through
them with its own name and the argument's.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.base.argument_validation import as_int, is_positive_int, is_shape, positive_int
from tfkit.base.data_format import from_channels_last, standardize_data_format, to_channels_last

PACKAGE = Path(__file__).resolve().parents[1] / "tfkit"
HOMES = {"argument_validation.py", "data_format.py"}
# What the two homes define, under the names the copies they replaced had.
SHARED = {
    "positive_int",
    "_positive_int",
    "_positive_units",
    "is_shape",
    "_is_shape",
    "to_channels_last",
    "from_channels_last",
    "to_channels_first",
    "standardize_data_format",
    "check_data_format",
    "normalize_data_format",
    "_data_format",
    "_as_int",
}


@pytest.mark.parametrize("value", [3, np.int64(3), np.int32(1), tf.constant(2)])
def test_positive_int_returns_a_python_int(value):
    result = positive_int(value, "units", "Dense layer 'dense'")
    assert type(result) is int and result == int(value)


@pytest.mark.parametrize("value", [0, -2, 2.0, True, np.bool_(True), "3", None, np.float32(4)])
def test_positive_int_names_who_and_what(value):
    with pytest.raises(ValueError, match=r"^Dense layer 'dense' expected `units` to be a positive integer, got "):
        positive_int(value, "units", "Dense layer 'dense'")
    assert not is_positive_int(value)


def test_none_passes_only_where_allowed():
    assert positive_int(None, "value_dim", "MultiHeadAttention layer 'mha'", allow_none=True) is None
    with pytest.raises(ValueError, match="to be a positive integer or None, got 0"):
        positive_int(0, "value_dim", "MultiHeadAttention layer 'mha'", allow_none=True)


def test_as_int_refuses_what_is_not_an_integer():
    assert [as_int(v) for v in (5, np.uint8(7), tf.constant(4, tf.int64))] == [5, 7, 4]
    assert [as_int(v) for v in (5.0, False, "5", None, [5])] == [None] * 5


def test_is_shape_tells_one_shape_from_a_structure_of_shapes():
    assert is_shape((None, 28, 28)) and is_shape([3, np.int64(4)]) and is_shape(()) and is_shape(tf.TensorShape([2]))
    assert not is_shape([(None, 3), (None, 4)]) and not is_shape({"x": (3,)}) and not is_shape((True, 3))
    assert not is_shape(tf.TensorShape(None)) and not is_shape((2.0, 3))


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 5), (2, 3, 4, 5, 6)])
def test_channels_last_round_trip_matches_numpy(shape):
    x = np.random.default_rng(0).normal(size=shape).astype("float32")
    moved = to_channels_last(tf.constant(x), "channels_first")
    np.testing.assert_array_equal(moved.numpy(), np.moveaxis(x, 1, -1))
    np.testing.assert_array_equal(from_channels_last(moved, "channels_first").numpy(), x)
    np.testing.assert_array_equal(to_channels_last(tf.constant(x), "channels_last").numpy(), x)


def test_one_image_without_a_batch_axis():
    image = np.arange(24, dtype="float32").reshape(3, 2, 4)  # (channels, height, width)
    moved = to_channels_last(tf.constant(image), "channels_first", batched=False)
    np.testing.assert_array_equal(moved.numpy(), np.moveaxis(image, 0, -1))
    np.testing.assert_array_equal(from_channels_last(moved, "channels_first", batched=False).numpy(), image)


def test_data_format_reads_the_config_for_none_and_names_the_layer():
    assert standardize_data_format(None, "x") == tfkit.config.image_data_format()
    assert standardize_data_format("Channels_First", "x") == "channels_first"
    with pytest.raises(ValueError, match=r"Conv2D layer 'c' expected `data_format` to be one of .* got 'nchw'"):
        standardize_data_format("nchw", "Conv2D layer 'c'")


def test_layers_report_bad_arguments_through_the_shared_check():
    with pytest.raises(ValueError, match=r"Dense layer '\w+' expected `units` to be a positive integer, got 0"):
        tfkit.layers.Dense(0)
    with pytest.raises(ValueError, match=r"Embedding layer '\w+' expected `output_dim` to be a positive integer"):
        tfkit.layers.Embedding(4, -1)
    with pytest.raises(ValueError, match=r"layer '\w+' expected `data_format` to be one of"):
        tfkit.layers.MaxPooling2D(data_format="nchw")
    assert tfkit.layers.Dense(np.int64(3)).units == 3


def test_no_module_keeps_its_own_copy():
    """A second ``positive_int`` or ``to_channels_last`` with another signature is a bug waiting."""
    copies = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "base" and path.name in HOMES:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name in SHARED:
                copies.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
    assert copies == []
