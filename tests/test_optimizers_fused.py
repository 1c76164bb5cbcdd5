"""Adam and SGD update plain variables with TensorFlow's fused kernels: the same numbers as the formulas."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit.optimizers import fused_kernels


def _run(make, fused, monkeypatch, steps=5, compiled=False):
    if not fused:
        monkeypatch.setattr(fused_kernels, "fusable", lambda *variables: False)
    rng = np.random.default_rng(0)
    variables = [tf.Variable(rng.normal(size=(4, 3)).astype("float32")), tf.Variable(np.zeros(3, "float32"))]
    grads = [[tf.constant(rng.normal(size=v.shape).astype("float32")) for v in variables] for _ in range(steps)]
    optimizer = make()

    def apply(g):
        optimizer.apply(g, variables)

    apply = tf.function(apply) if compiled else apply
    for g in grads:
        apply(g)
    monkeypatch.undo()
    return [v.numpy() for v in variables]


def _numpy_adam(w, grads, lr=0.01, b1=0.9, b2=0.999, eps=1e-7, decay=None):
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        if decay:
            w = w - w * lr * decay
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        w = w - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * m / (np.sqrt(v) + eps)
    return w


OPTIMIZERS = {
    "adam": lambda: tfkit.optimizers.Adam(0.01),
    "adamw": lambda: tfkit.optimizers.AdamW(0.01, weight_decay=0.1),
    "sgd": lambda: tfkit.optimizers.SGD(0.1),
    "momentum": lambda: tfkit.optimizers.SGD(0.1, momentum=0.9),
    "nesterov": lambda: tfkit.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tf.function"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_fused_kernels_give_the_numbers_of_the_written_out_formulas(monkeypatch, name, compiled):
    fused = _run(OPTIMIZERS[name], True, monkeypatch, compiled=compiled)
    written = _run(OPTIMIZERS[name], False, monkeypatch, compiled=compiled)
    for a, b in zip(fused, written):  # Adam's kernel takes 1 - beta in float32: one part in a million apart
        np.testing.assert_allclose(a, b, rtol=2e-5 if "adam" in name else 1e-6, atol=1e-6 if "adam" in name else 1e-7)


def test_fused_adam_matches_numpy():
    rng = np.random.default_rng(1)
    w0 = rng.normal(size=(5,)).astype("float32")
    grads = [rng.normal(size=(5,)).astype("float32") for _ in range(6)]
    variable = tf.Variable(w0)
    assert fused_kernels.fusable(variable)
    optimizer = tfkit.optimizers.Adam(0.01)
    for g in grads:
        optimizer.apply([tf.constant(g)], [variable])
    np.testing.assert_allclose(variable.numpy(), _numpy_adam(w0.astype("float64"), grads), rtol=1e-5, atol=1e-6)


def test_variables_of_a_strategy_take_the_written_out_path():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    with strategy.scope():
        variable = tf.Variable([1.0, 2.0])
        assert not fused_kernels.fusable(variable)
        optimizer = tfkit.optimizers.Adam(0.1)
        strategy.run(lambda: optimizer.apply([tf.constant([0.5, -0.5])], [variable]))
    np.testing.assert_allclose(variable.numpy(), [0.9, 2.1], rtol=1e-5)


@pytest.mark.parametrize("shape, fused", [((64,), True), ((64, 32), False), ((784, 64), False), ((512, 256), True)])
def test_adam_on_a_cpu_uses_its_fused_kernel_only_where_it_is_faster(shape, fused):
    # TensorFlow splits the kernel across threads from 512 elements; on 2 cores that pays from ~131k elements.
    with tf.device("/cpu:0"):
        variable = tf.Variable(tf.zeros(shape))
    optimizer = tfkit.optimizers.Adam(0.01)
    optimizer.build([variable])
    step = tf.function(lambda g: optimizer.apply([g], [variable]))
    graph = step.get_concrete_function(tf.TensorSpec(shape, tf.float32)).graph
    op_types = {op.type for op in graph.get_operations()}
    for function in graph.as_graph_def().library.function:
        op_types |= {node.op for node in function.node_def}
    assert ("ResourceApplyAdam" in op_types) is fused
    assert fused_kernels.adam_pays(variable) is fused
