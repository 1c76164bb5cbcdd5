"""tfkit.datasets.pickle_data: pickled data and numpy arrays read without unpickling; hostile pickles refused."""

import io
import os
import pickle
import struct

import numpy as np
import pytest
from dataset_files import dumps_py2

from tfkit.datasets import pickle_data


def _ragged(rows):
    array = np.empty(len(rows), dtype=object)
    for index, row in enumerate(rows):
        array[index] = row
    return array


SAMPLE = {
    b"data": np.arange(2 * 3072, dtype=np.uint8).reshape(2, 3072),
    b"labels": [0, 9],
    "floats": np.linspace(-1, 1, 12).reshape(3, 4).T,  # Fortran-ordered view
    "ints": np.array([-(2**40), 5, 2**62], dtype=np.int64),
    "big_endian": np.arange(5, dtype=">i4"),
    "bools": np.array([True, False]),
    "scalars": (None, True, False, 1.5, -7, 2**100, "text", b"raw"),
    "nested": [[1, [2, {"k": (3,)}]], {}],
    "ragged": _ragged([[1, 2, 3], [4], []]),
}


def _assert_same(ours, reference):
    if isinstance(reference, np.ndarray):
        assert isinstance(ours, np.ndarray)
        assert ours.dtype == reference.dtype and ours.shape == reference.shape
        if reference.dtype == object:
            assert ours.tolist() == reference.tolist()
        else:
            np.testing.assert_array_equal(ours, reference)
    elif isinstance(reference, dict):
        assert isinstance(ours, dict) and set(ours) == set(reference)
        for key in reference:
            _assert_same(ours[key], reference[key])
    elif isinstance(reference, (list, tuple)):
        assert type(ours) is type(reference) and len(ours) == len(reference)
        for a, b in zip(ours, reference):
            _assert_same(a, b)
    else:
        assert type(ours) is type(reference) and ours == reference


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_matches_pickle_for_each_protocol(protocol):
    raw = pickle.dumps(SAMPLE, protocol=protocol)
    _assert_same(pickle_data.loads(raw), pickle.loads(raw))


def test_python2_strings_come_back_as_bytes():
    raw = dumps_py2({b"data": SAMPLE[b"data"], b"labels": [3, 1], b"batch_label": b"training batch 1 of 5"})
    assert b"U\x04data" in raw and b"_codecs" not in raw  # SHORT_BINSTRING, as Python 2 wrote it
    ours = pickle_data.loads(raw)
    _assert_same(ours, pickle.loads(raw, encoding="bytes"))
    assert set(ours) == {b"data", b"labels", b"batch_label"}


def test_python2_pickle_matches_keras_restricted_unpickler():
    npz_utils = pytest.importorskip("keras.src.datasets.npz_utils")
    raw = dumps_py2({b"data": SAMPLE[b"data"], b"labels": list(range(300)), b"x": np.arange(4.0)})
    reference = npz_utils.RestrictedUnpickler(io.BytesIO(raw), encoding="bytes").load()
    _assert_same(pickle_data.loads(raw), reference)


def test_memo_shares_one_array_and_one_dtype():
    array = np.arange(3, dtype=np.uint16)
    ours = pickle_data.loads(pickle.dumps([array, array, np.arange(2, dtype=np.uint16)], protocol=4))
    assert ours[0] is ours[1]
    np.testing.assert_array_equal(ours[2], [0, 1])


# --- hostile pickles -----------------------------------------------------------------------------


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_global_os_system_reduce_is_refused_and_nothing_runs(tmp_path):
    marker = tmp_path / "ran"
    raw = b"cos\nsystem\n(V" + f"touch {marker}".encode() + b"\ntR."
    with pytest.raises(ValueError, match=r"refusing the global os\.system.*GLOBAL at byte 0"):
        pickle_data.loads(raw, source="evil.pkl")
    assert not marker.exists()


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_reduce_object_is_refused_and_nothing_runs(tmp_path, protocol):
    marker = tmp_path / "ran"
    raw = pickle.dumps({b"data": _Evil(marker)}, protocol=protocol)
    with pytest.raises(ValueError, match=r"evil\.pkl: refusing the global (posix|os)\.system"):
        pickle_data.loads(raw, source="evil.pkl")
    assert not marker.exists()


def test_other_numpy_globals_are_refused():
    raw = pickle.dumps(np.load, protocol=4)
    with pytest.raises(ValueError, match=r"refusing the global numpy"):
        pickle_data.loads(raw)


def test_builtins_eval_and_class_instances_are_refused():
    with pytest.raises(ValueError, match=r"builtins\.eval"):
        pickle_data.loads(b"\x80\x02cbuiltins\neval\nX\x03\x00\x00\x001+1\x85R.")
    with pytest.raises(ValueError, match=r"refusing the global"):
        pickle_data.loads(pickle.dumps(ValueError("x"), protocol=2))


def test_non_data_opcodes_are_refused():
    # INST (protocol 0) and NEWOBJ name classes; PERSID asks the caller for an object
    with pytest.raises(ValueError, match=r"opcode INST"):
        pickle_data.loads(b"(ios\nsystem\nS'true'\n.")
    with pytest.raises(ValueError, match=r"opcode PERSID"):
        pickle_data.loads(b"Pabc\n.")


def test_reduce_of_allowed_global_with_wrong_arguments_is_refused():
    raw = b"\x80\x02c_codecs\nencode\nX\x01\x00\x00\x00aX\x05\x00\x00\x00utf-8\x86R."
    with pytest.raises(ValueError, match=r"_codecs\.encode with arguments other than"):
        pickle_data.loads(raw)


def test_too_deep_nesting_is_refused():
    value = []
    for _ in range(200):
        value = [value]
    raw = pickle.dumps(value, protocol=4)
    with pytest.raises(ValueError, match=r"nested more than 64 deep"):
        pickle_data.loads(raw, source="deep.pkl")
    shallow = pickle_data.loads(raw, limits=pickle_data.Limits(max_depth=500))
    assert isinstance(shallow, list)


def test_huge_declared_bytes_are_refused_without_allocating():
    # BINBYTES8 declaring 2**60 bytes, followed by 3
    raw = b"\x80\x04\x8e" + struct.pack("<Q", 2**60) + b"abc."
    with pytest.raises(ValueError, match=r"huge\.pkl: malformed pickle"):
        pickle_data.loads(raw, source="huge.pkl")


def test_huge_declared_array_shape_is_refused():
    # an array state declaring 10**12 uint8 elements with 4 bytes of data
    good = pickle.dumps(np.zeros(4, dtype=np.uint8), protocol=2)
    raw = good.replace(b"K\x04\x85", b"\x8a\x06" + (10**12).to_bytes(6, "little") + b"\x85", 1)
    assert raw != good
    with pytest.raises(ValueError, match=r"more than 100,000,000 elements"):
        pickle_data.loads(raw)


def test_element_and_byte_limits():
    with pytest.raises(ValueError, match=r"more than 10 elements"):
        pickle_data.loads(pickle.dumps(list(range(11)), protocol=4), limits=pickle_data.Limits(max_elements=10))
    with pytest.raises(ValueError, match=r"more than 100 bytes"):
        pickle_data.loads(pickle.dumps([b"x" * 60, b"y" * 60], protocol=4), limits=pickle_data.Limits(max_bytes=100))


def test_array_data_of_the_wrong_length_is_refused():
    raw = dumps_py2(np.arange(4, dtype=np.uint8)).replace(b"U\x04\x00\x01\x02\x03", b"U\x03\x00\x01\x02")
    with pytest.raises(ValueError, match=r"needs 4 bytes, the file has 3"):
        pickle_data.loads(raw)


def test_structured_dtype_is_refused():
    raw = pickle.dumps(np.zeros(2, dtype=[("a", "u1")]), protocol=2)
    with pytest.raises(ValueError, match=r"structured dtypes are refused|only numbers"):
        pickle_data.loads(raw)


def test_truncated_and_stopless_pickles_are_refused():
    raw = pickle.dumps({"a": [1, 2]}, protocol=4)
    with pytest.raises(ValueError, match=r"frame of \d+ bytes runs past the end of the pickle \(it is truncated\)"):
        pickle_data.loads(raw[:-1])  # protocol 4 frames its opcodes: the frame says so first
    with pytest.raises(ValueError, match=r"no STOP"):
        pickle_data.loads(pickle.dumps({"a": [1, 2]}, protocol=2)[:-1])
    with pytest.raises(ValueError, match=r"malformed"):
        pickle_data.loads(raw[:5])


@pytest.mark.parametrize("protocol", [2, 4])
def test_integer_runs_of_every_width(protocol):
    values = [0, 255, 256, 65535, 65536, -1, 2**31 - 1, -(2**31), 2**31, -(2**31) - 1, 7, 2**64]
    rows = [values, values[::-1], [], [3]]
    raw = pickle.dumps(rows, protocol=protocol)
    assert pickle_data.loads(raw) == rows
    cut = pickle.dumps([1, 300], protocol=2)
    cut = cut[: cut.index(b"M,\x01") + 2]  # a BININT2 missing its last byte
    with pytest.raises(ValueError, match=r"malformed pickle: an integer opcode at byte \d+ is cut short"):
        pickle_data.loads(cut)


def test_unknown_opcode_is_named():
    with pytest.raises(ValueError, match=r"an unknown opcode \(opcode byte 0xff at byte 2\)"):
        pickle_data.loads(b"\x80\x02\xff.")


def test_a_long_int_run_stops_at_the_stack_limit():
    raw = b"\x80\x02(" + b"K\x01" * 5000 + b"l."
    assert pickle_data.loads(raw) == [1] * 5000
    with pytest.raises(ValueError, match=r"more than 1,000 values on the stack"):
        pickle_data.loads(raw, limits=pickle_data.Limits(max_stack=1000))


def test_values_held_under_marks_count_towards_the_stack_limit():
    raw = b"\x80\x02" + (b"(" + b"K\x01" * 400) * 3 + b"l" * 3 + b"."
    with pytest.raises(ValueError, match=r"more than 1,000 values on the stack"):
        pickle_data.loads(raw, limits=pickle_data.Limits(max_stack=1000))


def test_python3_protocol2_empty_bytes_and_empty_arrays():
    import pickle

    import numpy as np

    from tfkit.datasets import pickle_data

    assert pickle_data.loads(pickle.dumps(b"", protocol=2)) == b""
    empty = pickle_data.loads(pickle.dumps(np.zeros((0, 3), "float32"), protocol=2))
    assert empty.shape == (0, 3) and empty.dtype == np.float32
    with pytest.raises(ValueError, match=r"bytes\(\) with arguments"):
        pickle_data.loads(b"\x80\x02c__builtin__\nbytes\nX\x01\x00\x00\x00a\x85R.")
