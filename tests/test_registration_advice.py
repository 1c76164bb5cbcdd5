"""Errors at load time and save time name one registration route: custom_objects, or Keras's decorator name.

The route is ``custom_objects={"MyLayer": MyLayer}`` or
``@tfkit.saving.register_keras_serializable(...)`` (Keras's name; tfkit's
``register_serializable`` is the same function). The advice must also be true:
registering a class under the default package does not resolve a name a file
saved without one, so the message says which name to register, or that only
later saves change.
"""

import ast
import pathlib

import pytest

import tfkit

PACKAGE = pathlib.Path(tfkit.__file__).resolve().parent


def _message_strings(tree):
    """String constants of a module that are not docstrings (error messages, warnings, f-string parts)."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node


def test_no_message_names_another_registration_function():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in _message_strings(ast.parse(path.read_text(), str(path))):
            text = node.value.replace("register_keras_serializable", "")
            if "register_serializable" in text or "custom_object_scope)" in text:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value[:80]!r}")
    assert not found, "\n".join(found)


class Halve(tfkit.Layer):
    def call(self, x):
        return x / 2.0


def _model_with(layer):
    inputs = tfkit.Input((2,))
    return tfkit.Model(inputs, layer(inputs))


def test_load_time_advice_for_a_class_saved_unregistered(tmp_path):
    _model_with(Halve(name="halve")).save(str(tmp_path / "m.h5"))
    with pytest.raises(ValueError) as info:
        tfkit.load_model(str(tmp_path / "m.h5"))
    message = str(info.value)
    assert "custom_objects={'Halve': Halve}" in message
    assert (
        "@tfkit.saving.register_keras_serializable() names it 'Custom>Halve' in what is saved from then on" in message
    )
    # what the message says: registering now does not resolve this file; custom_objects does
    tfkit.saving.register_keras_serializable()(Halve)
    try:
        with pytest.raises(ValueError, match="Unknown layer 'Halve'"):
            tfkit.load_model(str(tmp_path / "m.h5"))
        tfkit.load_model(str(tmp_path / "m.h5"), custom_objects={"Halve": Halve})
        _model_with(Halve(name="halve")).save(str(tmp_path / "again.h5"))  # saved registered: no dict needed
        assert isinstance(tfkit.load_model(str(tmp_path / "again.h5")).get_layer("halve"), Halve)
    finally:
        tfkit.saving.get_custom_objects().pop("Custom>Halve", None)


def test_load_time_advice_for_a_registered_class_names_its_package(tmp_path):
    class Third(tfkit.Layer):
        def call(self, x):
            return x / 3.0

    registered = tfkit.saving.register_keras_serializable(package="advice_test", name="third")(Third)
    try:
        _model_with(registered()).save(str(tmp_path / "m.h5"))
    finally:
        tfkit.saving.get_custom_objects().pop("advice_test>third", None)
    with pytest.raises(ValueError) as info:
        tfkit.load_model(str(tmp_path / "m.h5"))
    advice = "@tfkit.saving.register_keras_serializable(package='advice_test', name='third')"
    assert "custom_objects={'third': third}" in str(info.value) and advice in str(info.value)
    tfkit.saving.register_keras_serializable(package="advice_test", name="third")(Third)  # what it says to do
    try:
        assert tfkit.load_model(str(tmp_path / "m.h5")).layers[-1].__class__ is Third
    finally:
        tfkit.saving.get_custom_objects().pop("advice_test>third", None)


def test_save_time_advice_names_the_same_route():
    layer = tfkit.layers.Lambda(lambda x: x + 1.0)
    with pytest.raises(ValueError) as info:
        layer.get_config()
    assert "custom_objects" in str(info.value)
    assert "@tfkit.saving.register_keras_serializable()" in str(info.value)
