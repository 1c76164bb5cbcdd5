"""tfkit.distribution's objects as Keras 3 defines them (one device; the mesh runs are in test_distribution_mesh)."""

from __future__ import annotations

import numpy as np
import pytest

import tfkit
from tfkit import distribution
from tfkit.distribution import values


@pytest.fixture(autouse=True)
def _no_distribution_after():
    yield
    distribution.set_distribution(None)


def _mesh(shape=(1, 1), names=("batch", "model")):
    return distribution.DeviceMesh(shape, list(names), devices=["cpu:0"])


def test_list_devices_names_devices_as_keras():
    assert distribution.list_devices("cpu")[0] == "cpu:0"
    assert distribution.get_device_count("cpu") == len(distribution.list_devices("cpu"))


def test_device_mesh_errors_name_what_is_wrong():
    with pytest.raises(ValueError, match="cannot be empty"):
        distribution.DeviceMesh((), [])
    with pytest.raises(ValueError, match="same length"):
        distribution.DeviceMesh((1,), ["a", "b"], devices=["cpu:0"])
    with pytest.raises(ValueError, match=r"needs 8 devices, but 1"):
        distribution.DeviceMesh((2, 4), ["batch", "model"], devices=["cpu:0"])


def test_tensor_layout_checks_axis_names_against_the_mesh():
    with pytest.raises(ValueError, match=r"\['modle'\] are not axes"):
        distribution.TensorLayout((None, "modle"), _mesh())


def test_layout_map_matches_by_regex_exact_key_first():
    layout_map = distribution.LayoutMap(_mesh())
    layout_map["dense.*kernel"] = (None, "model")
    layout_map["dense_2/kernel"] = ("model", None)
    layout_map["bias"] = distribution.TensorLayout(("model",))
    assert layout_map["dense_1/kernel"].axes == (None, "model")
    assert layout_map["dense_2/kernel"].axes == ("model", None)  # exact key wins over the regex
    assert layout_map["dense_1/bias"].axes == ("model",)
    assert layout_map["dense_1/bias"].device_mesh is layout_map.device_mesh
    assert layout_map["conv/gamma"] is None
    assert len(layout_map) == 3 and set(layout_map) == {"dense.*kernel", "dense_2/kernel", "bias"}


def test_layout_map_refuses_ambiguity_duplicates_and_bad_values():
    layout_map = distribution.LayoutMap(_mesh())
    layout_map["dense"] = (None, "model")
    layout_map["kernel"] = ("model", None)
    with pytest.raises(ValueError, match="matches several LayoutMap keys"):
        layout_map["dense/kernel"]
    with pytest.raises(ValueError, match="already set"):
        layout_map["dense"] = (None, None)
    with pytest.raises(ValueError, match="expected a TensorLayout or a tuple"):
        layout_map["other"] = [None, "model"]


def test_data_parallel_and_model_parallel_answer_layouts():
    dp = distribution.DataParallel(devices=["cpu:0"])
    assert dp.get_data_layout((32, 4, 4)).axes == ("batch", None, None)
    assert dp.get_variable_layout(values.VariablePath("d/kernel", (3, 4))).axes == (None, None)
    assert dp.get_tensor_layout("d/output") is None
    layout_map = distribution.LayoutMap(_mesh())
    layout_map["d/kernel"] = (None, "model")
    mp = distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch")
    assert mp.get_variable_layout(values.VariablePath("d/kernel", (3, 4))).axes == (None, "model")
    assert mp.get_variable_layout(values.VariablePath("d/bias", (4,))).axes == (None,)
    with pytest.raises(ValueError, match="needs a 1-D mesh"):
        distribution.DataParallel(device_mesh=_mesh())
    with pytest.raises(ValueError, match="needs layout_map"):
        distribution.ModelParallel()
    with pytest.raises(ValueError, match="batch_dim_name 'data' is not an axis"):
        distribution.ModelParallel(layout_map=layout_map, batch_dim_name="data")


def test_scope_sets_the_distribution_for_a_block_only():
    dp = distribution.DataParallel(devices=["cpu:0"])
    assert distribution.distribution() is None
    with dp.scope():
        assert distribution.distribution() is dp
    assert distribution.distribution() is None
    with pytest.raises(ValueError, match="expected a Distribution"):
        distribution.set_distribution("data_parallel")


def test_variables_made_under_a_distribution_live_on_its_mesh_and_read_as_ordinary_ones():
    layout_map = distribution.LayoutMap(_mesh())
    layout_map["d/kernel"] = (None, "model")
    with distribution.ModelParallel(layout_map=layout_map).scope():
        model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2, name="d", kernel_initializer="ones")])
        assert all(values.is_sharded(w) for w in model.weights)
        assert model.weights[0].layout.sharding_specs == ["unsharded", "model"]
        np.testing.assert_array_equal(model.get_weights()[0], np.ones((3, 2)))
        model.set_weights([np.full((3, 2), 2.0), np.zeros(2)])  # NumPy values are laid out on assignment
        np.testing.assert_array_equal(model(np.ones((1, 3), "float32")), [[6.0, 6.0]])  # eager call: input split
    # a model built on one device stays there under a distribution
    plain = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    with distribution.DataParallel(devices=["cpu:0"]).scope():
        assert plain.predict(np.ones((2, 3)), verbose=0).shape == (2, 2)
        assert not values.is_sharded(plain.weights[0])


def test_a_layout_that_does_not_divide_a_weight_names_it():
    mesh = distribution.DeviceMesh((1,), ["model"], devices=["cpu:0"])
    layout = distribution.TensorLayout((None, "model"), mesh)
    with pytest.raises(ValueError, match=r"Variable 'w' has shape \(3,\) \(1 axes\), but its layout"):
        layout.check_shape((3,), "Variable 'w'")


def test_distribute_tensor_keeps_values():
    layout = distribution.TensorLayout(("batch", None), _mesh())
    tensor = distribution.distribute_tensor(np.arange(6, dtype="float32").reshape(2, 3), layout)
    np.testing.assert_array_equal(values.gather(tensor), np.arange(6).reshape(2, 3))


def test_initialize_with_one_process_does_nothing_and_checks_arguments():
    distribution.initialize(num_processes=1, process_id=0)
    with pytest.raises(ValueError, match="num_processes=2 but 1 job_addresses"):
        distribution.initialize(["localhost:1"], num_processes=2, process_id=0)
    with pytest.raises(ValueError, match=r"process_id must be in \[0, 2\)"):
        distribution.initialize(["localhost:1", "localhost:2"], num_processes=2, process_id=5)
