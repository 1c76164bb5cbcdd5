"""What loading a model file does per layer, kept small: no work whose result is thrown away.

model.save("m.h5"); tfkit.load_model("m.h5")   # add_weight's variables are sized from their declared shape
"""

import json

import h5py
import numpy as np
import pytest

import tfkit
from tfkit import layers
from tfkit.saving import guard


def test_the_variable_budget_sizes_add_weight_variables_without_tracing_their_initializers(tmp_path, monkeypatch):
    x = tfkit.Input((4,))
    model = tfkit.Model(x, layers.Dense(3)(layers.BatchNormalization()(x)))
    model.save(tmp_path / "m.h5")
    traced = []
    real = guard._static_size
    monkeypatch.setattr(guard, "_static_size", lambda value: traced.append(value) or real(value))
    loaded = tfkit.load_model(tmp_path / "m.h5")
    assert traced == []
    np.testing.assert_allclose(loaded(np.ones((2, 4), "float32")), model(np.ones((2, 4), "float32")), rtol=1e-6)


def test_a_config_asking_for_a_huge_weight_is_still_refused_before_it_is_made(tmp_path):
    x = tfkit.Input((4,))
    tfkit.Model(x, layers.Dense(3, name="d")(x)).save(tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r+") as f:
        config = json.loads(f.attrs["model_config"])
        config["config"]["layers"][1]["config"]["units"] = 10**9
        f.attrs["model_config"] = json.dumps(config)
    with pytest.raises(
        ValueError,
        match=r"would create variable 'kernel' with 4000000000 elements, more than the "
        r"largest array stored",
    ):
        tfkit.load_model(tmp_path / "m.h5")
