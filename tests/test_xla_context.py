"""``in_xla_compilation`` tells a graph that XLA compiles from one that TensorFlow runs."""

import tensorflow as tf

from tfkit.base.xla_context import in_xla_compilation


def _trace_and_record(jit_compile, nested=False):
    seen = []

    def inner():
        seen.append(in_xla_compilation())
        return tf.constant(1)

    body = tf.function(inner) if nested else inner
    tf.function(lambda: body(), jit_compile=jit_compile)()
    return seen


def test_eager_code_is_not_compiled_by_xla():
    assert in_xla_compilation() is False


def test_a_jit_compiled_function_and_one_it_calls_are_compiled_by_xla():
    assert _trace_and_record(True) == [True]
    assert _trace_and_record(True, nested=True) == [True]


def test_a_plain_tf_function_is_not():
    assert _trace_and_record(False) == [False]
    assert _trace_and_record(None, nested=True) == [False]
