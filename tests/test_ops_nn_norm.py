"""Normalization, attention and CTC ops of tfkit.ops.nn against keras.ops and numpy."""

import numpy as np
import pytest
import tensorflow as tf
from ops_crosscheck import check_op, check_saved_op, keras_op

from tfkit import ops

RNG = np.random.default_rng(2)
X = RNG.normal(size=(2, 3, 4)).astype("float32")
X16 = tf.constant(X, "float16")
I = np.arange(24).reshape(2, 3, 4).astype("int32")
GAMMA = RNG.normal(size=(4,)).astype("float32")
BETA = RNG.normal(size=(4,)).astype("float32")
Q = RNG.normal(size=(2, 5, 4, 8)).astype("float32")  # (batch, length, heads, head_dim)
KV = RNG.normal(size=(2, 6, 4, 8)).astype("float32")
KV2 = RNG.normal(size=(2, 6, 2, 8)).astype("float32")  # grouped-query: 2 key/value heads for 4 query heads
MASK = RNG.random((2, 4, 5, 6)) > 0.3
LOGITS = RNG.normal(size=(2, 8, 5)).astype("float32")  # (batch, steps, classes)
LABELS = np.array([[1, 2, 2, 0], [3, 1, 0, 0]], "int32")


def _layer_norm(x, axes=(-1,), gamma=None, beta=None, eps=1e-7):
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    return y * (1 if gamma is None else gamma) + (0 if beta is None else beta)


def _attention(q, k, v, mask=None, causal=False, scale=None):
    groups = q.shape[2] // k.shape[2]
    k, v = np.repeat(k, groups, 2), np.repeat(v, groups, 2)
    logits = np.einsum("btnh,bsnh->bnts", q, k) * (scale or 1 / np.sqrt(q.shape[-1]))
    keep = np.ones(logits.shape, bool) if mask is None else np.broadcast_to(mask, logits.shape).copy()
    if causal:
        keep &= np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(keep, logits, -1e30)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", p, v)


CASES = [
    ("layer_normalization", (X,), {}, lambda: _layer_norm(X)),
    ("layer_normalization", (X, GAMMA, BETA), {}, lambda: _layer_norm(X, gamma=GAMMA, beta=BETA)),
    ("layer_normalization", (X,), {"axis": (1, 2), "epsilon": 1e-3}, lambda: _layer_norm(X, (1, 2), eps=1e-3)),
    ("layer_normalization", (X, GAMMA[:3], None), {"axis": 1}, lambda: _layer_norm(X, (1,), gamma=GAMMA[:3, None])),
    ("layer_normalization", (X16,), {}, None),
    ("layer_normalization", (I,), {}, None),
    ("rms_normalization", (X,), {}, lambda: X / np.sqrt((X**2).mean(-1, keepdims=True) + 1e-7)),
    (
        "rms_normalization",
        (X, GAMMA),
        {"epsilon": 0.1},
        lambda: X / np.sqrt((X**2).mean(-1, keepdims=True) + 0.1) * GAMMA,
    ),
    ("rms_normalization", (X,), {"axis": (0, 2)}, lambda: X / np.sqrt((X**2).mean((0, 2), keepdims=True) + 1e-7)),
    ("rms_normalization", (X16,), {}, None),
    ("normalize", (X,), {}, lambda: X / np.linalg.norm(X, axis=-1, keepdims=True)),
    ("normalize", (X,), {"order": 1, "axis": 1}, lambda: X / np.abs(X).sum(1, keepdims=True)),
    ("normalize", (I,), {"order": 3}, lambda: I / np.maximum((np.abs(I) ** 3).sum(-1, keepdims=True) ** (1 / 3), 1e-7)),
    ("normalize", (3.0,), {}, lambda: np.array([1.0])),
    ("psnr", (X, X + 0.1, 1.0), {}, lambda: 20 * np.log10(1.0) - 10 * np.log10(0.01)),
    ("psnr", (np.abs(X), np.abs(X) * 0.9, 4.0), {}, lambda: 10 * np.log10(16 / ((np.abs(X) * 0.1) ** 2).mean())),
    ("dot_product_attention", (Q, KV, KV), {}, lambda: _attention(Q, KV, KV)),
    ("dot_product_attention", (Q, KV, KV), {"mask": MASK}, lambda: _attention(Q, KV, KV, mask=MASK)),
    ("dot_product_attention", (Q, Q, Q), {"is_causal": True}, lambda: _attention(Q, Q, Q, causal=True)),
    ("dot_product_attention", (Q, KV2, KV2), {"scale": 0.5}, lambda: _attention(Q, KV2, KV2, scale=0.5)),
    ("dot_product_attention", (Q, KV, KV), {"bias": MASK * 1.0}, None),
    ("ctc_loss", (LABELS, LOGITS, np.array([4, 2]), np.array([8, 8])), {}, None),
    ("ctc_loss", (LABELS, LOGITS, np.array([3, 2]), np.array([8, 6])), {"mask_index": 4}, None),
    ("ctc_decode", (LOGITS, np.array([8, 6])), {}, None),
    ("ctc_decode", (LOGITS, np.array([8, 8])), {"merge_repeated": False, "mask_index": 4}, None),
    ("ctc_decode", (LOGITS, np.array([8, 7])), {"strategy": "beam_search", "beam_width": 4, "top_paths": 2}, None),
    ("ctc_decode", (LOGITS, np.array([8, 7])), {"strategy": "beam_search", "beam_width": 3, "mask_index": 2}, None),
]


@pytest.mark.parametrize("name, args, kwargs, reference", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_norm_attention_ctc_match_keras(name, args, kwargs, reference):
    half = any(a is X16 for a in args)
    check_op(
        getattr(ops, name),
        keras_op(name),
        args,
        kwargs,
        reference,
        rtol=1e-2 if half else 1e-4,
        atol=1e-2 if half else 1e-5,
    )


def test_attention_logit_soft_cap_squashes_the_logits():
    """Keras offers the soft cap on JAX/TPU only; tfkit computes cap * tanh(logits / cap) before the softmax."""
    got = ops.dot_product_attention(Q, KV, KV, attn_logits_soft_cap=0.5).numpy()
    logits = np.einsum("btnh,bsnh->bnts", Q, KV) / np.sqrt(8)
    p = np.exp(0.5 * np.tanh(logits / 0.5))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(got, np.einsum("bnts,bsnh->btnh", p, KV), rtol=1e-5, atol=1e-6)


def test_ctc_loss_is_the_negative_log_likelihood_of_the_only_path():
    """One step, one label: the loss is -log softmax(logits)[label]."""
    logits = np.log(np.array([[[0.2, 0.5, 0.3]]], "float32"))
    loss = ops.ctc_loss(np.array([[1]]), logits, np.array([1]), np.array([1]))
    np.testing.assert_allclose(loss.numpy(), [-np.log(0.5)], rtol=1e-5)


def test_ctc_greedy_decode_drops_blanks_and_repeats():
    steps = [1, 1, 0, 2, 2, 0, 1]  # blank is 0
    logits = np.log(np.eye(3)[steps][None] * 0.9 + 0.05).astype("float32")
    paths, scores = ops.ctc_decode(logits, np.array([7]))
    assert paths.shape == (1, 1, 7) and paths.dtype == tf.int32 and scores.shape == (1, 1)
    np.testing.assert_array_equal(paths.numpy()[0, 0], [1, 2, 1, -1, -1, -1, -1])


SAVED = [
    ("layer_normalization", [(3, 4)], lambda x: ops.layer_normalization(x, GAMMA, BETA)),
    ("rms_normalization", [(3, 4)], lambda x: ops.rms_normalization(x, GAMMA, axis=-1)),
    ("normalize", [(3, 4)], lambda x: ops.normalize(x, axis=1, order=1)),
    ("psnr", [(3, 4), (3, 4)], lambda a, b: ops.psnr(a, b, 2.0)),
    ("dot_product_attention", [(5, 4, 8), (6, 4, 8)], lambda q, k: ops.dot_product_attention(q, k, k, is_causal=True)),
    ("ctc_loss", [(8, 5)], lambda x: ops.ctc_loss(LABELS, x, np.array([4, 2]), np.array([8, 8]))),
    ("ctc_decode", [(8, 5)], lambda x: ops.ctc_decode(x, np.array([8, 6]))[0]),
]


@pytest.mark.parametrize("name, shapes, build", SAVED, ids=[s[0] for s in SAVED])
def test_norm_op_in_a_saved_functional_model(tmp_path, name, shapes, build):
    pool = {(3, 4): X, (5, 4, 8): Q, (6, 4, 8): KV, (8, 5): LOGITS}
    data = [pool[s] if i == 0 or s != shapes[0] else pool[s] + 0.1 for i, s in enumerate(shapes)]
    check_saved_op(tmp_path, build, shapes, data, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ops.layer_normalization(X, axis=3), "axis=3 is out of range"),
        (lambda: ops.layer_normalization(X, foo=1), "unexpected keyword"),
        (lambda: ops.normalize(X, order=0), "order must be an int >= 1"),
        (lambda: ops.psnr(X, X[0], 1.0), "x1 and x2 must have the same shape"),
        (lambda: ops.dot_product_attention(Q[0], KV, KV), "query must have rank 4"),
        (lambda: ops.dot_product_attention(Q, KV, KV, flash_attention=True), "flash_attention=True is not supported"),
        (lambda: ops.dot_product_attention(Q[:, :, :3], KV2, KV2), "must be a multiple"),
        (lambda: ops.ctc_loss(LABELS, LOGITS[0], np.array([4, 2]), np.array([8, 8])), "output rank 3"),
        (lambda: ops.ctc_loss(LABELS, LOGITS, np.array([4, 2, 1]), np.array([8, 8])), "share the batch size"),
        (lambda: ops.ctc_decode(LOGITS, np.array([8, 8]), strategy="best"), "strategy must be 'greedy'"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_rms_scaling_is_deprecated_but_works():
    with pytest.warns(UserWarning, match=r"rms_scaling=True\) is deprecated"):
        got = ops.layer_normalization(X, GAMMA, axis=-1, rms_scaling=True)
    np.testing.assert_allclose(got.numpy(), X / np.sqrt(X.var(-1, keepdims=True) + 1e-7) * GAMMA, rtol=1e-5)
