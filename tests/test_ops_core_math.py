"""The core and math names of keras.ops (not numpy, nn, image or linalg) in tfkit.ops: values, dtypes, saving."""

import math

import numpy as np
import pytest
import tensorflow as tf
from ops_crosscheck import check_op, check_saved_op, keras_op

from tfkit import ops

RNG = np.random.default_rng(4)
X = RNG.normal(size=(3, 4)).astype("float32")
X16 = tf.constant(X, "float16")
I = np.arange(12).reshape(3, 4).astype("int32")
DATA = np.array([1, 2, 10, 20, 100, 200], "float32")
IDS = np.array([0, 0, 1, 1, 2, 2])
UNSORTED = np.array([2, 0, 1, 0, 2, 1])
SIGNAL = RNG.normal(size=(2, 32)).astype("float32")
RE, IM = RNG.normal(size=(2, 3, 4)).astype("float32")
T3 = RNG.normal(size=(2, 3, 4)).astype("float32")
SPD = (X.T @ X + np.eye(4)).astype("float32")
POINTS_A = RNG.normal(size=(2, 5, 3)).astype("float32")
POINTS_B = RNG.normal(size=(2, 4, 3)).astype("float32")
BIG = np.array([-1e10, -3.5, 0.0, 3.5, 300.0, 1e10], "float32")


def _segments(reduce, data, ids, n):
    return np.stack([reduce(data[ids == i]) if (ids == i).any() else reduce(np.array([])) for i in range(n)])


def _stft_reference(x, length, stride, fft, window, center):
    if center:
        x = np.pad(x, [(0, 0), (fft // 2, fft // 2)], mode="reflect")
    w = np.zeros(fft)
    left = (fft - length) // 2
    w[left : left + length] = window
    frames = np.stack([x[:, i : i + fft] for i in range(0, x.shape[-1] - fft + 1, stride)], 1) * w
    z = np.fft.rfft(frames, axis=-1)
    return z.real, z.imag


HANN8 = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)

# name, args, kwargs, numpy reference (None: keras.ops only)
CASES = [
    ("segment_sum", (DATA, IDS), {}, lambda: [3, 30, 300]),
    ("segment_sum", (DATA, IDS), {"num_segments": 4, "sorted": True}, lambda: [3, 30, 300, 0]),
    ("segment_sum", (DATA, UNSORTED), {"num_segments": 3}, lambda: _segments(np.sum, DATA, UNSORTED, 3)),
    ("segment_max", (DATA, IDS), {"sorted": True}, lambda: [2, 20, 200]),
    ("segment_max", (I, np.array([1, 0, 1])), {}, lambda: np.stack([I[1], np.maximum(I[0], I[2])])),
    ("segment_min", (DATA, IDS), {}, lambda: [1, 10, 100]),
    ("segment_min", (DATA, UNSORTED), {"num_segments": 3}, lambda: _segments(np.min, DATA, UNSORTED, 3)),
    ("segment_min", (DATA.astype("int32"), IDS), {"sorted": True}, lambda: [1, 10, 100]),
    ("segment_prod", (DATA, IDS), {}, lambda: [2, 200, 20000]),
    ("segment_prod", (DATA, UNSORTED), {"num_segments": 4}, lambda: _segments(np.prod, DATA, UNSORTED, 4)),
    ("segment_prod", (I, np.array([0, 0, 1])), {"sorted": True}, lambda: np.stack([I[0] * I[1], I[2]])),
    ("top_k", (X, 2), {}, lambda: (-np.sort(-X, 1)[:, :2], np.argsort(-X, 1)[:, :2])),
    ("top_k", (I, 3), {"sorted": True}, lambda: (I[:, ::-1][:, :3], np.array([[3, 2, 1]] * 3))),
    (
        "in_top_k",
        (np.array([0, 3, 2]), X, 2),
        {},
        lambda: [np.argsort(-X[i])[:2].__contains__(t) for i, t in enumerate([0, 3, 2])],
    ),
    ("erf", (X,), {}, None),
    ("erf", (I,), {}, lambda: np.vectorize(math.erf)(I)),
    ("erf", (0.5,), {}, lambda: 0.5204998778),
    ("erfc", (X,), {}, None),
    ("erfc", (I,), {}, lambda: np.vectorize(math.erfc)(I)),
    ("erfc", (X16,), {}, None),
    ("erfinv", (np.tanh(X),), {}, None),
    ("erfinv", (tf.tanh(X16),), {}, None),
    ("erfinv", (np.array([0, 1, -1]),), {}, lambda: [0, np.inf, -np.inf]),
    ("rsqrt", (np.abs(X) + 1,), {}, lambda: 1 / np.sqrt(np.abs(X) + 1)),
    ("rsqrt", (I + 1,), {}, lambda: 1 / np.sqrt(I + 1)),
    ("logsumexp", (X,), {"axis": 0, "keepdims": True}, lambda: np.log(np.exp(X).sum(0, keepdims=True))),
    ("logdet", (SPD,), {}, lambda: np.linalg.slogdet(SPD)[1]),
    ("logdet", (np.stack([SPD, 2 * SPD]),), {}, lambda: np.linalg.slogdet(np.stack([SPD, 2 * SPD]))[1]),
    ("logdet", (tf.constant(SPD / 10, "float16"),), {}, lambda: np.linalg.slogdet(SPD / 10)[1]),
    ("logdet", (np.array([[0.0, 1.0], [1.0, 0.0]], "float32"),), {}, lambda: np.nan),
    ("cdist", (POINTS_A, POINTS_B), {}, lambda: np.sqrt(((POINTS_A[:, :, None] - POINTS_B[:, None]) ** 2).sum(-1))),
    (
        "cdist",
        (POINTS_A[0], POINTS_B),
        {},
        lambda: np.sqrt(((POINTS_A[0][None, :, None] - POINTS_B[:, None]) ** 2).sum(-1)),
    ),
    ("cdist", (I[:, :3], I[:2, :3]), {}, lambda: np.sqrt(((I[:, None, :3] - I[None, :2, :3]) ** 2).sum(-1))),
    ("view_as_complex", (np.stack([RE, IM], -1),), {}, lambda: RE + 1j * IM),
    ("view_as_complex", (np.array([[1, 2], [3, 4]]),), {}, lambda: np.array([1 + 2j, 3 + 4j])),
    ("view_as_real", (RE + 1j * IM,), {}, lambda: np.stack([RE, IM], -1)),
    ("view_as_real", (tf.constant(RE + 1j * IM, tf.complex64),), {}, lambda: np.stack([RE, IM], -1)),
    ("saturate_cast", (BIG, "uint8"), {}, lambda: [0, 0, 0, 3, 255, 255]),
    ("saturate_cast", (BIG, "float16"), {}, lambda: [-65504, -3.5, 0, 3.5, 300, 65504]),
    ("saturate_cast", (np.array([-300, 5, 300]), "int8"), {}, lambda: [-128, 5, 127]),
    ("saturate_cast", (np.array([2**40, -1]).astype("int64"), "int32"), {}, lambda: [2**31 - 1, -1]),
    ("saturate_cast", (np.array([-1.5, 0.0, 2.0], "float32"), "bool"), {}, lambda: [False, False, True]),
    ("fft", ((RE, IM),), {}, lambda: (np.fft.fft(RE + 1j * IM).real, np.fft.fft(RE + 1j * IM).imag)),
    ("fft2", ((RE, IM),), {}, lambda: (np.fft.fft2(RE + 1j * IM).real, np.fft.fft2(RE + 1j * IM).imag)),
    ("ifft2", ((RE, IM),), {}, lambda: (np.fft.ifft2(RE + 1j * IM).real, np.fft.ifft2(RE + 1j * IM).imag)),
    (
        "fft",
        ((I[:, :2], I[:, 2:]),),
        {},
        lambda: (np.fft.fft(I[:, :2] + 1j * I[:, 2:]).real, np.fft.fft(I[:, :2] + 1j * I[:, 2:]).imag),
    ),
    ("rfft", (SIGNAL,), {}, lambda: (np.fft.rfft(SIGNAL).real, np.fft.rfft(SIGNAL).imag)),
    ("rfft", (SIGNAL,), {"fft_length": 20}, lambda: (np.fft.rfft(SIGNAL, 20).real, np.fft.rfft(SIGNAL, 20).imag)),
    ("rfft", (I,), {}, lambda: (np.fft.rfft(I).real, np.fft.rfft(I).imag)),
    ("irfft", ((RE, IM),), {}, lambda: np.fft.irfft(RE + 1j * IM)),
    ("irfft", ((RE, IM),), {"fft_length": 7}, lambda: np.fft.irfft(RE + 1j * IM, 7)),
    ("extract_sequences", (SIGNAL, 8, 4), {}, lambda: np.stack([SIGNAL[:, i : i + 8] for i in range(0, 25, 4)], 1)),
    ("extract_sequences", (I, 2, 1), {}, lambda: np.stack([I[:, i : i + 2] for i in range(3)], 1)),
    ("stft", (SIGNAL, 8, 4, 8), {}, lambda: _stft_reference(SIGNAL, 8, 4, 8, HANN8, True)),
    ("stft", (SIGNAL, 6, 3, 8), {"window": "hamming", "center": False}, None),
    # no window: the whole fft_length frame, as Keras (not sequence_length samples)
    ("stft", (SIGNAL, 8, 2, 16), {"window": None}, lambda: _stft_reference(SIGNAL, 16, 2, 16, np.ones(16), True)),
    (
        "stft",
        (SIGNAL, 8, 4, 8),
        {"window": np.ones(8, "float32") * 0.5, "center": False},
        lambda: _stft_reference(SIGNAL, 8, 4, 8, 0.5 * np.ones(8), False),
    ),
    ("istft", (ops.stft(SIGNAL, 8, 2, 8), 8, 2, 8), {}, None),
    ("istft", (ops.stft(SIGNAL, 8, 4, 16), 8, 4, 16), {"length": 30}, None),
    (
        "istft",
        (ops.stft(SIGNAL, 6, 2, 8, window="hamming", center=False), 6, 2, 8),
        {"window": "hamming", "center": False},
        None,
    ),
    ("rearrange", (T3, "a b c -> c a b"), {}, lambda: T3.transpose(2, 0, 1)),
    ("rearrange", (T3, "a b c -> a (b c)"), {}, lambda: T3.reshape(2, 12)),
    ("rearrange", (T3, "a (h w) c -> a h w c"), {"h": 3}, lambda: T3.reshape(2, 3, 1, 4)),
    (
        "rearrange",
        (T3, "a b (c d) -> (d a) b c"),
        {"c": 2},
        lambda: T3.reshape(2, 3, 2, 2).transpose(3, 0, 1, 2).reshape(4, 3, 2),
    ),
    ("unstack", (X,), {}, lambda: list(X)),
    ("unstack", (X,), {"axis": 1}, lambda: list(X.T)),
    ("unstack", (I,), {"num": 4, "axis": -1}, lambda: list(I.T)),
    ("scatter_update", (X, [[0, 0], [2, 3], [0, 0]], [1.0, 2.0, 3.0]), {"reduction": "add"}, None),
    ("scatter_update", (X, [[0, 0], [2, 3]], [9.0, -9.0]), {"reduction": "max"}, None),
    ("scatter_update", (X, [[0, 0], [2, 3]], [9.0, -9.0]), {"reduction": "min"}, None),
    ("scatter_update", (X, [[0, 0], [2, 3], [0, 0]], [2.0, 3.0, 5.0]), {"reduction": "mul"}, None),
    ("scatter_update", (I, [[1], [0]], [[9, 9, 9, 9], [1, 1, 1, 1]]), {"reduction": "MUL"}, None),
    ("scatter", ([[0, 1], [2, 2], [0, 1]], [1.0, 2.0, 3.0], (3, 3)), {}, lambda: [[0, 4, 0], [0, 0, 0], [0, 0, 2]]),
    ("slice_update", (X, (1, 2), np.ones((2, 2), "float32")), {}, None),
    ("slice_update", (I, (0, 1), np.zeros((1, 2), "int32")), {}, None),
    ("slice", (X, (1, 0), (2, -1)), {}, lambda: X[1:3]),
    ("cast", (X, "int8"), {}, lambda: X.astype("int8")),
    ("cast", (1.7, "int32"), {}, lambda: 1),
    ("convert_to_tensor", (1.5,), {"dtype": "int32"}, lambda: 1),
    ("convert_to_tensor", ([1, 2],), {}, lambda: [1, 2]),
    ("convert_to_tensor", (tf.ragged.constant([[1], [2, 3]]),), {"ragged": False}, lambda: [[1, 0], [2, 3]]),
    ("stop_gradient", (I,), {}, lambda: I),
]


# Keras's TensorFlow backend answers these wrongly; numpy is the reference
NUMPY_ONLY = [
    # keras crops a centred signal with x[..., fft_length // 2:-(fft_length // 2)]: empty when fft_length is 1
    ("istft", (ops.stft(SIGNAL, 1, 1, 1), 1, 1, 1), {}, lambda: SIGNAL),
    # keras checks float32(2**31 - 1) > 2**31 - 1 in float32 (False), so 1e10 wraps to -2**31
    ("saturate_cast", (BIG, "int32"), {}, lambda: [-(2**31), -3, 0, 3, 300, 2**31 - 128]),
]


@pytest.mark.parametrize(
    "name, args, kwargs, reference", NUMPY_ONLY, ids=[f"{c[0]}-{i}" for i, c in enumerate(NUMPY_ONLY)]
)
def test_core_op_matches_numpy_where_keras_is_wrong(name, args, kwargs, reference):
    check_op(getattr(ops, name), None, args, kwargs, reference, atol=1e-5)


@pytest.mark.parametrize("name, args, kwargs, reference", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_core_op_matches_keras_and_numpy(name, args, kwargs, reference):
    half = any(a is X16 or getattr(a, "dtype", None) == tf.float16 for a in args)
    check_op(
        getattr(ops, name),
        keras_op(name),
        args,
        kwargs,
        reference,
        rtol=1e-2 if half else 1e-4,
        atol=1e-2 if half else 1e-4,
    )


def test_every_core_name_of_keras_ops_is_in_tfkit_ops():
    keras = pytest.importorskip("keras")
    public = lambda m: {n for n in dir(m) if not n.startswith("_")}  # noqa: E731
    core = (
        public(keras.ops)
        - public(keras.ops.numpy)
        - public(keras.ops.nn)
        - public(keras.ops.image)
        - public(keras.ops.linalg)
        - {"image"}
    )
    assert core <= public(ops), sorted(core - public(ops))


def test_segment_sum_counts_segments_up_to_the_largest_id():
    """Keras's TensorFlow backend counts distinct ids (2 here) and drops id 2; tfkit makes 3 segments, as JAX does."""
    np.testing.assert_allclose(ops.segment_sum(np.array([1.0, 2.0, 4.0]), np.array([0, 0, 2])).numpy(), [3, 0, 4])


def test_stft_round_trip_restores_the_signal_in_a_function():
    @tf.function
    def round_trip(x):
        return ops.istft(ops.stft(x, 16, 4, 16), 16, 4, 16, length=32)

    # the first and last samples lie under fewer windows than the inverse window assumes
    np.testing.assert_allclose(round_trip(tf.constant(SIGNAL)).numpy()[:, 8:-8], SIGNAL[:, 8:-8], atol=1e-5)


SAVED = [
    ("segment_max", [(4,)], lambda x: ops.segment_max(ops.transpose(x), np.array([0, 1, 1, 0]), num_segments=2)),
    ("segment_min", [(4,)], lambda x: ops.segment_min(ops.transpose(x), np.array([0, 1, 1, 0]), num_segments=2)),
    ("segment_prod", [(4,)], lambda x: ops.segment_prod(ops.transpose(x), np.array([0, 1, 1, 0]), num_segments=2)),
    ("top_k", [(4,)], lambda x: ops.top_k(x, 2)[0]),
    ("erfc", [(4,)], lambda x: ops.erfc(x)),
    ("erfinv", [(4,)], lambda x: ops.erfinv(ops.tanh(x))),
    ("cdist", [(4,)], lambda x: ops.cdist(ops.expand_dims(x, -1), ops.expand_dims(x, -1))),
    ("logdet", [(4,)], lambda x: ops.logdet(ops.matmul(ops.expand_dims(x, -1), ops.expand_dims(x, 1)) + ops.eye(4))),
    ("view_as_real", [(4,)], lambda x: ops.view_as_real(ops.view_as_complex(ops.reshape(x, (-1, 2, 2))))),
    ("saturate_cast", [(4,)], lambda x: ops.saturate_cast(x * 100, "int8")),
    ("fft", [(4,)], lambda x: ops.fft((x, x))[1]),
    ("fft2", [(4,)], lambda x: ops.fft2((x[:, None], x[:, None]))[0]),
    ("ifft2", [(4,)], lambda x: ops.ifft2((x[:, None], -x[:, None]))[1]),
    ("rfft", [(4,)], lambda x: ops.rfft(x, fft_length=6)[0]),
    ("irfft", [(4,)], lambda x: ops.irfft((x, x))),
    ("extract_sequences", [(4,)], lambda x: ops.extract_sequences(x, 2, 1)),
    ("stft", [(32,)], lambda x: ops.stft(x, 8, 4, 8)[0]),
    ("istft", [(32,)], lambda x: ops.istft(ops.stft(x, 8, 4, 8), 8, 4, 8, length=32)),
    ("rearrange", [(4,)], lambda x: ops.rearrange(x, "b (h w) -> w b h", w=2)),
    ("unstack", [(4,)], lambda x: ops.unstack(x, axis=1)[2]),
    ("scatter_update", [(4,)], lambda x: ops.scatter_update(x, [[0, 1], [1, 1]], [1.0, 2.0], reduction="mul")),
    ("slice_update", [(4,)], lambda x: ops.slice_update(x, (0, 1), ops.ones((2, 2)))),
    ("convert_to_tensor", [(4,)], lambda x: ops.convert_to_tensor(x, dtype="float16")),
]


@pytest.mark.parametrize("name, shapes, build", SAVED, ids=[s[0] for s in SAVED])
def test_core_op_in_a_saved_functional_model(tmp_path, name, shapes, build):
    data = [SIGNAL if shapes[0] == (32,) else X[:2] * 0.5]
    check_saved_op(tmp_path, build, shapes, data, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ops.segment_sum(DATA, IDS[:, None]), "segment_ids must be a vector"),
        (lambda: ops.segment_min(DATA, IDS[:4]), "same leading size"),
        (lambda: ops.segment_prod(DATA, IDS * 1.0), "segment_ids must be integers"),
        (lambda: ops.cdist(X, X[:, :3]), "same last"),
        (lambda: ops.cdist(X[0], X), "rank >= 2"),
        (lambda: ops.view_as_complex(X), "last axis of x must have size 2"),
        (lambda: ops.logdet(X), "square matrices"),
        (lambda: ops.fft(RE), "tuple"),
        (lambda: ops.fft((RE, IM[:1])), "same shape"),
        (lambda: ops.fft2((RE[0], IM[0])), "rank >= 2"),
        (lambda: ops.rfft(SIGNAL, fft_length=0), "fft_length must be a positive int"),
        (lambda: ops.stft(SIGNAL, 8, 0, 8), "sequence_stride must be a positive int"),
        (lambda: ops.stft(SIGNAL, 8, 2, 4), "at least sequence_length"),
        (lambda: ops.stft(SIGNAL, 8, 2, 8, window="box"), "window must be 'hann', 'hamming'"),
        (lambda: ops.stft(SIGNAL, 8, 2, 8, window=np.ones(5)), r"window must have shape \(8,\)"),
        (lambda: ops.extract_sequences(SIGNAL, 0, 1), "sequence_length must be a positive int"),
        (lambda: ops.rearrange(T3, "a b -> b a"), "has 2 axes but the tensor has rank 3"),
        (lambda: ops.rearrange(T3, "a b c -> a b"), "must name the same axes"),
        (lambda: ops.rearrange(T3, "a (b c) d -> a b c d"), "all but one of"),
        (lambda: ops.rearrange(T3, "a (b c) d -> a b c d", b=2), "cannot be split"),
        (lambda: ops.rearrange(T3, "a b c"), "must read 'in axes -> out axes'"),
        (lambda: ops.rearrange(T3, "a (b (c)) -> a b c"), "nested parentheses"),
        (lambda: ops.unstack(X, axis=2), "out of range"),
        (lambda: ops.scatter_update(X, [[0, 0]], [1.0], reduction="sum"), "reduction must be None, 'add'"),
        (lambda: ops.slice(X, (0,), (1,)), "one entry per axis"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_unstack_of_an_unknown_size_asks_for_num():
    @tf.function(input_signature=[tf.TensorSpec((None, 4))])
    def parts(x):
        return ops.unstack(x)

    with pytest.raises(ValueError, match="pass num"):
        parts.get_concrete_function()
