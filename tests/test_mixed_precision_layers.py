"""Every built-in layer under mixed_bfloat16: float32 weights, finite outputs, an .h5 round trip."""

import numpy as np
import pytest
import tensorflow as tf
from layer_catalog import layer_module
from long_checks import one_of_each_kind
from test_saving_layers import CASES, _data, _functional

import tfkit
from tfkit import mixed_precision


@pytest.fixture(autouse=True)
def restore_policy():
    yield
    mixed_precision.set_global_policy("float32")


# Layers whose dtype Keras 3 fixes whatever the global policy says: Hashing in output_mode="int" gives int64 ids.
KERAS_FIXED_POLICY = {"Hashing": "int64"}


# One layer of each module by default (the policy is applied by the shared base), every layer in the long mode.
SWEEP = one_of_each_kind(
    sorted(CASES), layer_module, "a layer whose module another layer checks", keep=KERAS_FIXED_POLICY
)


@pytest.mark.parametrize("name", SWEEP)
def test_builtin_layer_under_mixed_bfloat16(name, tmp_path):
    case = CASES[name]
    mixed_precision.set_global_policy("mixed_bfloat16")
    model, layer = _functional(case)
    mixed_precision.set_global_policy("float32")
    policy = KERAS_FIXED_POLICY.get(name, "mixed_bfloat16")
    assert layer.dtype_policy.name == policy
    assert all(w.dtype != tf.bfloat16 for w in model.weights)
    data = _data(case, np.random.RandomState(0))
    feed = data if len(data) > 1 else data[0]
    outputs = tf.nest.flatten(model.predict(feed, verbose=0))
    assert all(np.all(np.isfinite(np.asarray(o, np.float32))) for o in outputs if np.asarray(o).dtype.kind == "f")
    path = str(tmp_path / "m.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    twin = loaded.get_layer(layer.name)
    if isinstance(layer, tfkit.Model):  # a nested model's config (as Keras 3's) holds its layers' policies only
        twin, layer = twin.layers[-1], layer.layers[-1]
    assert twin.dtype_policy.name == layer.dtype_policy.name == policy
    for a, b in zip(outputs, tf.nest.flatten(loaded.predict(feed, verbose=0))):
        np.testing.assert_array_equal(np.asarray(b), np.asarray(a))
