"""tfkit.backend's Keras names: get_uid, standardize_dtype, is_float_dtype, is_int_dtype, clear_session."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit

keras = pytest.importorskip("keras")

DTYPES = [
    None,
    float,
    int,
    bool,
    str,
    complex,
    "int",
    "float16",
    "bfloat16",
    "uint8",
    "int64",
    "bool",
    np.float16,
    np.dtype("int8"),
    np.int32,
    tf.float64,
    tf.uint16,
    "float8_e5m2",
    "complex64",
]


@pytest.mark.parametrize("dtype", DTYPES, ids=repr)
def test_standardize_dtype_and_its_predicates_match_keras(dtype):
    assert tfkit.backend.standardize_dtype(dtype) == keras.backend.standardize_dtype(dtype)
    assert tfkit.utils.standardize_dtype(dtype) == keras.utils.standardize_dtype(dtype)
    assert tfkit.backend.is_float_dtype(dtype) == keras.backend.is_float_dtype(dtype)
    assert tfkit.backend.is_int_dtype(dtype) == keras.backend.is_int_dtype(dtype)


def test_unknown_dtypes_are_refused_with_the_list():
    with pytest.raises(ValueError, match="Invalid dtype: 'foo'; expected one of float16"):
        tfkit.backend.standardize_dtype("foo")


def test_get_uid_shares_the_layer_name_counters_as_in_keras():
    for backend, layers in ((tfkit.backend, tfkit.layers), (keras.backend, keras.layers)):
        backend.clear_session()
        assert backend.get_uid("dense") == 1
        layers.Dense(2), layers.Dense(2)
        assert backend.get_uid("dense") == 4
        assert layers.Dense(2).name == "dense_4"
        assert backend.get_uid("other") == 1
        backend.clear_session(free_memory=False)
        assert backend.get_uid("dense") == 1
    tfkit.backend.clear_session()
