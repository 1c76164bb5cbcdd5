"""tools/keras_signatures.py finds the arguments Keras accepts that tfkit would refuse."""

import importlib.util
import pathlib
import sys

TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools"
sys.path.insert(0, str(TOOLS))
spec = importlib.util.spec_from_file_location("keras_signatures", TOOLS / "keras_signatures.py")
signatures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(signatures)


class KerasNorm:  # stands in for a Keras class
    def __init__(self, axis=-1, renorm=False, name=None, dtype=None, *args, **kwargs):
        pass


class OurBase:
    def __init__(self, name=None, dtype=None, **kwargs):
        pass


class OurNorm(OurBase):  # names axis itself, name/dtype through its base, renorm nowhere
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)


class OurFactory:  # a class built in __new__ (tfkit.Variable is one)
    def __new__(cls, axis=-1, renorm=False, name=None, dtype=None):
        return object.__new__(cls)


def keras_scope(custom_objects=None):
    pass


def our_scope(*mappings):
    pass


def test_an_argument_no_tfkit_signature_names_is_a_gap_and_base_classes_count():
    assert signatures.argument_gaps(KerasNorm, OurNorm) == ["renorm"]


def test_a_constructor_in_new_is_read_and_parameter_names_count_for_functions():
    assert signatures.argument_gaps(KerasNorm, OurFactory) == []
    assert signatures.argument_gaps(keras_scope, our_scope) == ["custom_objects"]  # a keyword call would fail


def test_excluded_arguments_are_not_gaps():
    class KerasVariable:
        def __init__(self, initializer, layout=None):
            pass

    class OurVariable:
        def __init__(self, initializer):
            pass

    assert signatures.argument_gaps(KerasVariable, OurVariable, "Variable") == []
    assert signatures.argument_gaps(KerasVariable, OurVariable, "other.Variable") == ["layout"]
