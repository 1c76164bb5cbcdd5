"""Control flow of tfkit.ops (cond, switch, loops, scans, maps, custom_gradient) against keras.ops and Python."""

import numpy as np
import pytest
import tensorflow as tf
from ops_crosscheck import check_op, keras_op

import tfkit
from tfkit import ops

XS = np.arange(1.0, 8.0, dtype="float32")
M = np.arange(12, dtype="float32").reshape(3, 4)


def _running(values):
    out, total = [], 0.0
    for v in values:
        out.append(total)
        total += v
    return total, np.array(out)


CASES = [
    ("cond", (True, lambda: 1.0, lambda: 2.0), {}, lambda: 1.0),
    ("cond", (tf.constant(False), lambda: tf.ones(2), lambda: tf.zeros(2)), {}, lambda: [0.0, 0.0]),
    ("switch", (1, [lambda x: x + 1, lambda x: x * 10], M), {}, lambda: M * 10),
    ("switch", (7, [lambda x: x + 1, lambda x: x * 10], M), {}, lambda: M * 10),
    ("switch", (-2, [lambda a, b: a + b, lambda a, b: a - b], M, M), {}, lambda: 2 * M),
    ("while_loop", (lambda i: i < 5, lambda i: i + 1, 0), {}, lambda: 5),
    ("while_loop", (lambda i, s: i < 4, lambda i, s: (i + 1, s * 2.0), (0, 1.0)), {}, lambda: (4, 16.0)),
    ("while_loop", (lambda i: i < 100, lambda i: i + 1, 0), {"maximum_iterations": 7}, lambda: 7),
    ("fori_loop", (0, 4, lambda i, v: v + i, 0), {}, lambda: 6),
    ("fori_loop", (2, 5, lambda i, v: v * 2.0, tf.constant(1.5)), {}, lambda: 12.0),
    ("scan", (lambda c, x: (c + x, c), 0.0, XS), {}, lambda: _running(XS)),
    ("scan", (lambda c, x: (c + x, c), 0.0, XS), {"reverse": True}, lambda: (XS.sum(), _running(XS[::-1])[1][::-1])),
    ("scan", (lambda c, x: (c + 1, c * 3), 0), {"length": 3, "unroll": True}, lambda: (3, np.array([0, 3, 6]))),
    (
        "scan",
        (lambda c, x: ((c[0] + x["a"], c[1] * x["b"]), c[0]), (0.0, 1.0), {"a": XS, "b": XS}),
        {},
        lambda: ((XS.sum(), np.prod(XS)), _running(XS)[1]),
    ),
    ("associative_scan", (lambda a, b: a + b, XS), {}, lambda: np.cumsum(XS)),
    ("associative_scan", (lambda a, b: a + b, XS), {"reverse": True}, lambda: np.cumsum(XS[::-1])[::-1]),
    ("associative_scan", (lambda a, b: a * b, M + 1), {"axis": 1}, lambda: np.cumprod(M + 1, axis=1)),
    ("associative_scan", (lambda a, b: tf.maximum(a, b), np.sin(XS)), {}, lambda: np.maximum.accumulate(np.sin(XS))),
    (
        "associative_scan",
        (lambda a, b: (a[0] + b[0], a[1] * b[1]), (XS, XS / 4)),
        {},
        lambda: (np.cumsum(XS), np.cumprod(XS / 4)),
    ),
    ("map", (lambda x: x * 2, M), {}, lambda: M * 2),
    (
        "map",
        (lambda x: {"sum": tf.reduce_sum(x), "int": tf.cast(x, "int32")}, M),
        {},
        lambda: {"int": M.astype("int32"), "sum": M.sum(1)},
    ),
    ("map", (lambda xy: xy[0] + xy[1], (M, M)), {}, lambda: 2 * M),
    ("vectorized_map", (lambda x: tf.reduce_sum(x * x), M), {}, lambda: (M * M).sum(1)),
]


@pytest.mark.parametrize("name, args, kwargs, reference", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_control_flow_matches_keras_and_python(name, args, kwargs, reference):
    check_op(getattr(ops, name), keras_op(name), args, kwargs, reference)


def test_scan_without_outputs_returns_none_for_them():
    """As jax.lax.scan; Keras's TensorFlow backend stacks never-written zeros shaped like the carry instead."""
    carry, ys = ops.scan(lambda c, x: (c * 2.0, None), 1.0, length=5)
    assert float(carry) == 32.0 and ys is None


def test_associative_scan_of_unknown_length_in_a_function():
    @tf.function(input_signature=[tf.TensorSpec((None,))])
    def prefix(x):
        return ops.associative_scan(lambda a, b: a + b, x)

    for n in (1, 2, 5, 9):
        np.testing.assert_allclose(
            prefix(XS[:n] if n <= 7 else np.ones(n, "float32")).numpy(), np.cumsum(XS[:n] if n <= 7 else np.ones(n))
        )


def test_custom_gradient_replaces_the_gradient():
    @ops.custom_gradient
    def clipped_identity(x):
        def grad(upstream):
            return ops.clip(upstream, -0.5, 0.5)

        return x, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(clipped_identity(x) * 3.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 0.5])


def test_keras_style_custom_gradient_with_keyword_upstream():
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(*args, upstream=None):
            if upstream is None:
                (upstream,) = args
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))

        return ops.log(1 + e), grad

    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: ops.cond(x, lambda: 1.0, lambda: 2.0),
        lambda x: ops.switch(0, [lambda v: v], x),
        lambda x: ops.while_loop(lambda v: True, lambda v: v, x),
        lambda x: ops.fori_loop(0, 2, lambda i, v: v, x),
        lambda x: ops.scan(lambda c, v: (c, v), 0.0, x),
        lambda x: ops.associative_scan(lambda a, b: a + b, x),
        lambda x: ops.map(lambda v: v, x),
        lambda x: ops.vectorized_map(lambda v: v, x),
        lambda x: ops.custom_gradient(lambda v: (v, lambda g: g))(x),
        lambda x: ops.jvp(lambda v: v, (x,), (x,)),
    ],
    ids=[
        "cond",
        "switch",
        "while_loop",
        "fori_loop",
        "scan",
        "associative_scan",
        "map",
        "vectorized_map",
        "custom_gradient",
        "jvp",
    ],
)
def test_function_taking_ops_on_symbolic_tensors_say_what_to_do(call):
    """A functional model stores data, never Python functions: point to a custom layer instead."""
    x = tfkit.Input((3,))
    with pytest.raises(TypeError, match="inside a custom Layer's call"):
        call(x)


def test_control_flow_inside_a_layer_of_a_saved_model(tmp_path):
    @tfkit.saving.register_keras_serializable(package="test_ops_core_control")
    class PrefixSum(tfkit.layers.Layer):
        def call(self, x):
            summed = ops.associative_scan(lambda a, b: a + b, x, axis=1)
            _, ys = ops.scan(lambda c, v: (c + v, c), ops.zeros_like(x[:, 0]), ops.transpose(x))
            return summed + ops.transpose(ys) + ops.switch(1, [lambda v: v, lambda v: 2 * v], x)

    x = tfkit.Input((4,))
    model = tfkit.Model(x, PrefixSum()(x))
    expected = np.cumsum(M, 1) + (np.cumsum(M, 1) - M) + 2 * M
    np.testing.assert_allclose(model.predict(M, verbose=0), expected, rtol=1e-6)
    model.save(tmp_path / "m.h5")
    np.testing.assert_allclose(tfkit.load_model(tmp_path / "m.h5").predict(M, verbose=0), expected, rtol=1e-6)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ops.scan(lambda c, x: (c, x), 0.0), "give xs to scan over, or length"),
        (lambda: ops.scan(lambda c, x: (c, x), 0.0, XS, unroll=0), "unroll must be a positive int"),
        (lambda: ops.scan(3, 0.0, XS), "f must be callable"),
        (lambda: ops.switch(0, [], M), "at least one function"),
        (lambda: ops.associative_scan(lambda a, b: a + b, (XS, XS[:3])), "same size along axis 0"),
        (lambda: ops.associative_scan(lambda a, b: a + b, XS, axis=1), "axis=1 is out of range"),
        (lambda: ops.cond(True, 1.0, lambda: 2.0), "true_fn must be callable"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
