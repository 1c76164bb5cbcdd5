"""tfkit.utils's Keras names: custom objects, data-only serialization, Progbar, Config, graph helpers."""

import io

import numpy as np
import pytest

import tfkit


class Scaled(tfkit.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor


def test_custom_object_scope_lets_a_config_name_an_unregistered_class():
    config = tfkit.utils.serialize_keras_object(Scaled(3.0, name="s"))
    assert config["class_name"] == "Scaled"
    with pytest.raises(ValueError, match="Scaled"):
        tfkit.utils.deserialize_keras_object(config)
    for scope in (tfkit.utils.custom_object_scope, tfkit.utils.CustomObjectScope):
        with scope({"Scaled": Scaled}):
            layer = tfkit.utils.deserialize_keras_object(config)
            assert tfkit.utils.get_registered_object("Scaled") is Scaled
        assert isinstance(layer, Scaled) and layer.factor == 3.0 and layer.name == "s"
    assert tfkit.utils.get_registered_object("Scaled") is None
    assert tfkit.utils.deserialize_keras_object(config, custom_objects={"Scaled": Scaled}).factor == 3.0


def test_registered_names_and_global_custom_objects():
    @tfkit.utils.register_keras_serializable(package="api_test")
    class Tripled(Scaled):
        pass

    assert tfkit.utils.get_registered_name(Tripled) == "api_test>Tripled"
    assert tfkit.utils.get_registered_name(Scaled) == "Scaled"
    assert tfkit.utils.get_registered_object("api_test>Tripled") is Tripled
    assert tfkit.utils.get_custom_objects()["api_test>Tripled"] is Tripled
    assert tfkit.utils.get_registered_name is not None and tfkit.saving.get_registered_name(
        Tripled
    ) == tfkit.utils.get_registered_name(Tripled)
    rebuilt = tfkit.utils.deserialize_keras_object(tfkit.utils.serialize_keras_object(tfkit.losses.Huber(0.5)))
    assert isinstance(rebuilt, tfkit.losses.Huber) and rebuilt.get_config()["delta"] == 0.5
    with pytest.raises(TypeError, match="unexpected keyword"):
        tfkit.utils.deserialize_keras_object({}, bogus=1)


def test_progbar_is_the_fit_progress_bar():
    from tfkit.callbacks.progbar import Progbar

    assert tfkit.utils.Progbar is Progbar
    stream = io.StringIO()
    bar = tfkit.utils.Progbar(3, stream=stream, verbose=1)
    for step in range(3):
        bar.update(step + 1, [("loss", 0.5)])
    assert "3/3" in stream.getvalue() and "loss: 0.5000" in stream.getvalue()


def test_config_behaves_like_kerass():
    keras = pytest.importorskip("keras")
    for Config in (tfkit.utils.Config, keras.utils.Config):
        config = Config(learning_rate=0.1)
        config.seed = 123
        config["momentum"] = 0.9
        assert config.seed == 123 and config["learning_rate"] == 0.1 and len(config) == 3
        assert list(config) == ["learning_rate", "momentum", "seed"] and "seed" in config
        assert config.as_dict() == {"learning_rate": 0.1, "seed": 123, "momentum": 0.9}
        assert config.to_json() == '{"learning_rate": 0.1, "seed": 123, "momentum": 0.9}'
        with pytest.raises(AttributeError, match="Did you mean 'seed'"):
            getattr(config, "sed")
        config.freeze()
        assert config.frozen
        with pytest.raises(ValueError, match="frozen"):
            config.other = 1
        with pytest.raises(ValueError, match="frozen"):
            config.update(a=1)
        config.unfreeze()
        config.other = 1
        assert config.pop("other") == 1


def test_get_source_inputs_and_is_keras_tensor():
    a, b = tfkit.Input((3,), name="a"), tfkit.Input((3,), name="b")
    merged = tfkit.layers.Add()([tfkit.layers.Dense(3)(a), b])
    out = tfkit.layers.Dense(1)(merged)
    assert tfkit.utils.get_source_inputs(out) == [a, b]
    assert tfkit.utils.get_source_inputs(a) == [a]
    assert tfkit.utils.is_keras_tensor(out) and not tfkit.utils.is_keras_tensor(np.ones(3))
    plain = np.ones(2)
    assert tfkit.utils.get_source_inputs(plain) is plain


def test_pack_and_unpack_x_y_sample_weight_match_keras():
    keras = pytest.importorskip("keras")
    x, y, w = np.ones(2), np.zeros(2), np.full(2, 0.5)
    for data in (x, (x,), (x, y), (x, y, w), [x, y]):
        ours, theirs = tfkit.utils.unpack_x_y_sample_weight(data), keras.utils.unpack_x_y_sample_weight(data)
        assert all((a is b) for a, b in zip(ours, theirs))
    for args in ((x,), (x, y), (x, y, w), ((x, x),)):
        ours, theirs = tfkit.utils.pack_x_y_sample_weight(*args), keras.utils.pack_x_y_sample_weight(*args)
        assert type(ours) is type(theirs) and len(tfkit.tree.flatten(ours)) == len(keras.tree.flatten(theirs))
    with pytest.raises(ValueError, match="found a tuple of 4 items"):
        tfkit.utils.unpack_x_y_sample_weight((x, y, w, w))


def test_clear_session_and_interactive_logging_toggles():
    tfkit.utils.clear_session()
    assert tfkit.layers.Dense(1).name == "dense"
    tfkit.utils.disable_interactive_logging()
    try:
        assert not tfkit.utils.is_interactive_logging_enabled() and not tfkit.config.is_interactive_logging_enabled()
    finally:
        tfkit.utils.enable_interactive_logging()
    assert tfkit.utils.is_interactive_logging_enabled()
