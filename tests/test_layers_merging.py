"""tfkit.layers.merging: element-wise merges, Concatenate and Dot on lists of tensors."""

import json

import numpy as np
import pytest
import tensorflow as tf

from tfkit import layers
from tfkit.engine import masking

RNG = np.random.default_rng(3)


def _rand(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _roundtrip(layer):
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    assert clone.get_config() == layer.get_config()
    return clone


def _check(layer, inputs, expected):
    out = layer(inputs)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
    assert tuple(out.shape) == tuple(layer.compute_output_shape([x.shape for x in inputs])) == expected.shape
    np.testing.assert_allclose(_roundtrip(layer)(inputs).numpy(), expected, rtol=1e-5, atol=1e-6)


ELEMENTWISE = [
    (layers.Add, lambda xs: xs[0] + xs[1] + xs[2]),
    (layers.Multiply, lambda xs: xs[0] * xs[1] * xs[2]),
    (layers.Average, lambda xs: (xs[0] + xs[1] + xs[2]) / 3),
    (layers.Maximum, lambda xs: np.maximum(np.maximum(xs[0], xs[1]), xs[2])),
    (layers.Minimum, lambda xs: np.minimum(np.minimum(xs[0], xs[1]), xs[2])),
]


@pytest.mark.parametrize("cls, reference", ELEMENTWISE)
def test_elementwise_merges_match_numpy(cls, reference):
    xs = [_rand(2, 3, 4) for _ in range(3)]
    _check(cls(), xs, reference(xs))


def test_subtract_takes_exactly_two_inputs():
    a, b = _rand(2, 3), _rand(2, 3)
    _check(layers.Subtract(), [a, b], a - b)
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        layers.Subtract()([a, b, a])


def test_elementwise_merges_broadcast_and_align_ranks():
    a, b = _rand(2, 3, 4), _rand(2, 1, 4)
    _check(layers.Add(), [a, b], a + b)
    c = _rand(2, 4)  # rank 2: a new axis is inserted after the batch axis, as Keras does
    _check(layers.Multiply(), [a, c], a * c[:, None, :])
    assert layers.Add().compute_output_shape([(None, 3, 4), (None, 1, 4)]) == (None, 3, 4)
    assert layers.Add().compute_output_shape([(None, None, 4), (2, 3, 4)]) == (2, None, 4)


def test_elementwise_merge_gradients_match_numpy():
    a, b = tf.constant(_rand(2, 3)), tf.constant(_rand(2, 3))
    upstream = _rand(2, 3)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        product = tf.reduce_sum(layers.Multiply()([a, b]) * upstream)
        largest = tf.reduce_sum(layers.Maximum()([a, b]) * upstream)
    np.testing.assert_allclose(tape.gradient(product, a).numpy(), upstream * b.numpy(), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(largest, a).numpy(), upstream * (a.numpy() > b.numpy()), rtol=1e-6)


def test_merge_layers_agree_in_all_modes():
    xs = [tf.constant(_rand(2, 3, 4)) for _ in range(2)]
    for layer in (layers.Average(), layers.Concatenate(axis=1), layers.Dot(axes=(2, 2))):
        eager = layer(xs).numpy()
        graph = tf.function(lambda a, b: layer([a, b]))
        jit = tf.function(lambda a, b: layer([a, b]), jit_compile=True)
        np.testing.assert_allclose(graph(*xs).numpy(), eager, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(jit(*xs).numpy(), eager, rtol=1e-5, atol=1e-6)
        graph(*[tf.constant(_rand(2, 3, 4)) for _ in range(2)])
        assert graph.experimental_get_tracing_count() == 1


def test_elementwise_merge_errors():
    with pytest.raises(ValueError, match="'adder'.*list of tensors"):
        layers.Add(name="adder")(tf.ones((2, 3)))
    with pytest.raises(ValueError, match="incompatible shapes"):
        layers.Add()([tf.ones((2, 3)), tf.ones((2, 4))])
    with pytest.raises(ValueError, match="different batch sizes"):
        layers.Add().compute_output_shape([(2, 3), (4, 3)])


def test_elementwise_masks_are_ored_when_every_input_has_one():
    a, b = tf.constant(_rand(2, 3, 4)), tf.constant(_rand(2, 3, 4))
    mask_a = tf.constant([[True, False, False], [True, True, False]])
    mask_b = tf.constant([[False, True, False], [True, False, False]])
    masking.set_mask(a, mask_a)
    masking.set_mask(b, mask_b)
    out = layers.Add()([a, b])
    np.testing.assert_array_equal(masking.get_mask(out).numpy(), mask_a.numpy() | mask_b.numpy())
    plain = tf.constant(_rand(2, 3, 4))
    assert masking.get_mask(layers.Add()([a, plain])) is None


# -------------------------------------------------------------- Concatenate


def test_concatenate_matches_numpy():
    a, b, c = _rand(2, 3, 4), _rand(2, 3, 2), _rand(2, 5, 4)
    _check(layers.Concatenate(), [a, b], np.concatenate([a, b], axis=-1))
    _check(layers.Concatenate(axis=1), [a, c], np.concatenate([a, c], axis=1))
    assert layers.Concatenate().compute_output_shape([(None, 3, 4), (None, 3, None)]) == (None, 3, None)
    assert layers.Concatenate(axis=1).compute_output_shape([(None, None, 4), (None, 5, 4)]) == (None, None, 4)


def test_concatenate_gradient_splits_upstream():
    a, b = tf.constant(_rand(2, 3)), tf.constant(_rand(2, 2))
    upstream = _rand(2, 5)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        loss = tf.reduce_sum(layers.Concatenate()([a, b]) * upstream)
    grad_a, grad_b = tape.gradient(loss, [a, b])
    np.testing.assert_allclose(grad_a.numpy(), upstream[:, :3])
    np.testing.assert_allclose(grad_b.numpy(), upstream[:, 3:])


def test_concatenate_masks():
    a, b = tf.constant(_rand(2, 3, 4)), tf.constant(_rand(2, 2, 4))
    mask_a = tf.constant([[True, False, True], [False, False, True]])
    masking.set_mask(a, mask_a)
    along_time = layers.Concatenate(axis=1)([a, b])  # unmasked input counts as all true
    expected = np.concatenate([mask_a.numpy(), np.ones((2, 2), bool)], axis=1)
    np.testing.assert_array_equal(masking.get_mask(along_time).numpy(), expected)
    c = tf.constant(_rand(2, 3, 2))
    mask_c = tf.constant([[False, True, False], [False, False, True]])
    masking.set_mask(c, mask_c)
    along_features = layers.Concatenate()([a, c])
    np.testing.assert_array_equal(masking.get_mask(along_features).numpy(), mask_a.numpy() | mask_c.numpy())
    assert masking.get_mask(layers.Concatenate()([tf.ones((2, 3)), tf.ones((2, 3))])) is None


def test_concatenate_errors():
    with pytest.raises(ValueError, match="'cat'.*matching shapes"):
        layers.Concatenate(name="cat")([tf.ones((2, 3, 4)), tf.ones((2, 5, 4))])
    with pytest.raises(ValueError, match="same rank"):
        layers.Concatenate()([tf.ones((2, 3)), tf.ones((2, 3, 1))])
    with pytest.raises(ValueError, match="axis"):
        layers.Concatenate(axis="last")


# --------------------------------------------------------------------- Dot


def _batch_dot(x, y, ax, ay):
    out = np.stack([np.tensordot(x[i], y[i], axes=(ax - 1, ay - 1)) for i in range(x.shape[0])])
    return out[:, None] if out.ndim == 1 else out


@pytest.mark.parametrize(
    "shape1, shape2, axes",
    [
        ((2, 4), (2, 4), 1),
        ((2, 3, 4), (2, 5, 4), (2, 2)),
        ((2, 3, 4), (2, 3, 5), 1),
        ((2, 3, 4), (2, 4), (2, 1)),
        ((2, 3, 4), (2, 5, 4), -1),
    ],
)
def test_dot_matches_numpy_batch_dot(shape1, shape2, axes):
    x, y = _rand(*shape1), _rand(*shape2)
    pair = (axes, axes) if isinstance(axes, int) else axes
    ax, ay = (a % len(s) for a, s in zip(pair, (shape1, shape2)))
    _check(layers.Dot(axes=axes), [x, y], _batch_dot(x, y, ax, ay))


def test_dot_normalize_gives_cosine_similarity():
    x, y = _rand(3, 5), _rand(3, 5)
    cosine = (x * y).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)
    _check(layers.Dot(axes=1, normalize=True), [x, y], cosine[:, None])


def test_dot_gradients_match_numpy():
    x, y = tf.constant(_rand(2, 3, 4)), tf.constant(_rand(2, 5, 4))
    upstream = _rand(2, 3, 5)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        loss = tf.reduce_sum(layers.Dot(axes=2)([x, y]) * upstream)
    grad_x, grad_y = tape.gradient(loss, [x, y])
    np.testing.assert_allclose(grad_x.numpy(), np.einsum("bts,bsd->btd", upstream, y.numpy()), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad_y.numpy(), np.einsum("bts,btd->bsd", upstream, x.numpy()), rtol=1e-5, atol=1e-6)


def test_dot_errors_and_masks():
    with pytest.raises(ValueError, match="axes"):
        layers.Dot(axes=(1, 2, 3))
    with pytest.raises(ValueError, match="axes"):
        layers.Dot(axes="last")
    with pytest.raises(ValueError, match="'sim'.*incompatible input shapes"):
        layers.Dot(axes=1, name="sim")([tf.ones((2, 3)), tf.ones((2, 4))])
    with pytest.raises(ValueError, match="batch axis"):
        layers.Dot(axes=0)([tf.ones((2, 3)), tf.ones((2, 3))])
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        layers.Dot(axes=1)([tf.ones((2, 3))] * 3)
    x = tf.constant(_rand(2, 3, 4))
    masking.set_mask(x, tf.constant([[True, False, True], [True, True, False]]))
    assert masking.get_mask(layers.Dot(axes=2)([x, x])) is None


def test_merging_matches_keras():
    keras = pytest.importorskip("keras")
    xs = [_rand(2, 3, 4), _rand(2, 3, 4)]
    for name, kwargs in [
        ("Add", {}),
        ("Subtract", {}),
        ("Average", {}),
        ("Concatenate", {"axis": 1}),
        ("Dot", {"axes": (2, 2), "normalize": True}),
    ]:
        ours = getattr(layers, name)(**kwargs)(xs).numpy()
        theirs = np.asarray(getattr(keras.layers, name)(**kwargs)(xs))
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=name)
