"""tfkit.config: Keras's global settings, the debugging caps fit honours, logging and the no-op switches."""

import io
import logging
import warnings

import numpy as np
import pytest

import tfkit
from tfkit.base import settings


@pytest.fixture(autouse=True)
def _restore_settings():
    saved = (dict(settings._config), dict(settings._caps), dict(settings._switches))
    policy = tfkit.config.dtype_policy()
    yield
    settings._config.update(saved[0])
    settings._caps.clear()
    settings._caps.update(saved[1])
    settings._switches.update(saved[2])
    tfkit.config.set_dtype_policy(policy)


def _model():
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model


def test_every_keras_config_name_is_there():
    keras = pytest.importorskip("keras")
    missing = [n for n in dir(keras.config) if not n.startswith("_") and not hasattr(tfkit.config, n)]
    assert missing == ["is_nnx_enabled"]  # JAX only: excluded in tools/keras_coverage.py


def test_global_values_match_keras_defaults_and_reach_the_backend():
    keras = pytest.importorskip("keras")
    for name in (
        "floatx",
        "epsilon",
        "image_data_format",
        "backend",
        "max_epochs",
        "max_steps_per_epoch",
        "is_interactive_logging_enabled",
        "is_flash_attention_enabled",
    ):
        assert getattr(tfkit.config, name)() == getattr(keras.config, name)(), name
    tfkit.config.set_epsilon(1e-5)
    assert tfkit.backend.epsilon() == 1e-5
    tfkit.config.set_floatx("float64")
    assert tfkit.layers.Dense(2).compute_dtype == "float64" or tfkit.backend.floatx() == "float64"
    with pytest.raises(ValueError, match="float16, bfloat16, float32 or float64"):
        tfkit.config.set_floatx("int8")
    with pytest.raises(ValueError, match="TensorFlow only.*'jax'"):
        tfkit.config.set_backend("jax")
    tfkit.config.set_backend("tensorflow")


def test_set_dtype_policy_is_the_policy_new_layers_take():
    tfkit.config.set_dtype_policy("mixed_float16")
    assert tfkit.config.dtype_policy().name == "mixed_float16"
    layer = tfkit.layers.Dense(2)
    assert layer.compute_dtype == "float16" and layer.variable_dtype == "float32"
    tfkit.config.set_dtype_policy(tfkit.DTypePolicy("float32"))
    assert tfkit.config.dtype_policy().name == "float32"


def test_max_epochs_caps_fit_with_a_warning():
    tfkit.config.set_max_epochs(2)
    x, y = np.ones((8, 3), "float32"), np.ones((8, 1), "float32")
    with pytest.warns(UserWarning, match="limiting epochs to 2"):
        history = _model().fit(x, y, epochs=5, batch_size=4, verbose=0)
    assert len(history.history["loss"]) == 2
    tfkit.config.set_max_epochs(None)
    assert len(_model().fit(x, y, epochs=3, batch_size=4, verbose=0).history["loss"]) == 3
    with pytest.raises(ValueError, match="set_max_epochs: max_epochs must be a positive integer"):
        tfkit.config.set_max_epochs(0)


def test_max_steps_per_epoch_caps_fit_evaluate_and_predict():
    tfkit.config.set_max_steps_per_epoch(1)
    x, y = np.ones((8, 3), "float32"), np.ones((8, 1), "float32")
    model = _model()
    steps = []
    counter = tfkit.callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: steps.append(batch))
    with pytest.warns(UserWarning, match="limiting steps_per_epoch to 1"):
        model.fit(x, y, epochs=2, batch_size=2, verbose=0, callbacks=[counter])
    assert steps == [0, 0]
    with pytest.warns(UserWarning, match="limiting steps to 1"):
        assert model.predict(x, batch_size=2, verbose=0).shape == (2, 1)


def test_environment_variables_set_the_caps(monkeypatch):
    settings._caps.clear()
    monkeypatch.setenv("KERAS_MAX_EPOCHS", "3")
    monkeypatch.setenv("KERAS_MAX_STEPS_PER_EPOCH", "many")
    assert tfkit.config.max_epochs() == 3
    with pytest.raises(ValueError, match="KERAS_MAX_STEPS_PER_EPOCH must be a positive integer, got 'many'"):
        tfkit.config.max_steps_per_epoch()


def test_disabled_interactive_logging_sends_the_progress_to_python_logging(capsys, caplog):
    x, y = np.ones((4, 3), "float32"), np.ones((4, 1), "float32")
    tfkit.config.disable_interactive_logging()
    assert not tfkit.config.is_interactive_logging_enabled()
    with caplog.at_level(logging.INFO, logger="tfkit"):
        _model().fit(x, y, epochs=2, batch_size=2, verbose=2)
    assert capsys.readouterr().out == ""
    assert any("Epoch 1/2" in r.getMessage() for r in caplog.records)
    assert any("loss:" in r.getMessage() for r in caplog.records)
    tfkit.config.enable_interactive_logging()
    _model().fit(x, y, epochs=2, batch_size=2, verbose=2)
    assert "Epoch 1/2" in capsys.readouterr().out
    stream = io.StringIO()  # an explicit stream is always honoured
    tfkit.config.disable_interactive_logging()
    tfkit.utils.Progbar(2, stream=stream).update(2, finalize=True)
    assert "2/2" in stream.getvalue()


def test_traceback_filtering_is_tensorflows_switch():
    import tensorflow as tf

    tfkit.config.disable_traceback_filtering()
    assert not tfkit.config.is_traceback_filtering_enabled() and not tf.debugging.is_traceback_filtering_enabled()
    tfkit.config.enable_traceback_filtering()
    assert tfkit.config.is_traceback_filtering_enabled()


def test_flash_attention_switch_is_recorded_and_attention_still_runs():
    assert tfkit.config.is_flash_attention_enabled() is None
    tfkit.config.enable_flash_attention()
    assert tfkit.config.is_flash_attention_enabled() is True
    q = np.ones((1, 2, 1, 4), "float32")
    assert tfkit.ops.nn.dot_product_attention(q, q, q).shape == (1, 2, 1, 4)
    tfkit.config.disable_flash_attention()
    assert tfkit.config.is_flash_attention_enabled() is False


@pytest.fixture
def unsafe_restored():
    yield
    settings.set_unsafe_deserialization(False)  # later tests in this process run in safe mode again


def test_unsafe_deserialization_warns_and_still_refuses_code(unsafe_restored):
    with pytest.warns(UserWarning, match="never deserializes code"):
        tfkit.config.enable_unsafe_deserialization()
    lambda_config = {
        "class_name": "__lambda__",
        "config": {"code": "print('pwned')", "defaults": None, "closure": None},
    }
    with pytest.raises(ValueError, match="holds Python code.*never loads code"):
        tfkit.utils.deserialize_keras_object(lambda_config, safe_mode=False)
    assert tfkit.config.enable_unsafe_deserialization is not None and settings.unsafe_deserialization()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tfkit.config.enable_unsafe_deserialization()  # warns once
