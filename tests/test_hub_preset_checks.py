"""The checks tfkit.hub holds a preset to, one at a time: sizes against the weights, files inside the folder,
safetensors headers against Hugging Face's own reader, SentencePiece character maps walked as the kernel would.

The whole of them, on hostile copies of every family's presets and checkpoints: ``test_hostile_presets.py``.
"""

import io
import json
import os
import struct

import numpy as np
import pytest

from tfkit.hub.presets import config_budget, files, safetensors_files
from tfkit.hub.presets.config_budget import StoredSizes

SIZES = StoredSizes.of([(50, 8), (8,), (8, 16), (16,)])  # 4 arrays, the largest 400 elements


def test_stored_sizes_count_the_arrays_and_their_elements():
    assert (SIZES.count, SIZES.largest, SIZES.total) == (4, 400, 400 + 8 + 128 + 16)


def test_a_config_asking_for_more_than_the_weights_store_is_refused_naming_the_field():
    config_budget.check_arguments({"num_layers": 2, "hidden_dim": 8, "vocabulary_size": 50}, SIZES, "p: config.json")
    with pytest.raises(ValueError, match=r"p: config.json: num_layers=5, but the weights store only 4 arrays"):
        config_budget.check_arguments({"num_layers": 5}, SIZES, "p: config.json")
    with pytest.raises(ValueError, match=r"vocabulary_size=401, wider than the largest array .*\(400 elements\)"):
        config_budget.check_arguments({"vocabulary_size": 401}, SIZES, "p: config.json")
    with pytest.raises(ValueError, match=r"patch_size=\[4, 500\], wider"):
        config_budget.check_arguments({"patch_size": [4, 500]}, SIZES, "p: config.json")
    for value in (0, -1, "2", 2.0, True, []):
        with pytest.raises(ValueError, match=r"num_heads=.*expected a positive integer"):
            config_budget.check_arguments({"num_heads": value}, SIZES, "p: config.json")
    config_budget.check_arguments({"num_layers": 80, "head_dim": None, "vocabulary_size": 262144}, None, "p")
    with pytest.raises(ValueError, match=r"num_layers=1000000; without weights .* at most 4096"):
        config_budget.check_arguments({"num_layers": 10**6}, None, "p")  # no weights: fixed limits


def test_a_checkpoint_field_is_named_beside_the_argument_it_became():
    with pytest.raises(ValueError, match=r"num_layers=9 \(from its n_layer\), but the weights store only 4"):
        config_budget.check_arguments({"num_layers": 9}, SIZES, "p: config.json", origin={"n_layer": 9, "n_head": 2})


def test_numbers_no_real_preset_has_are_refused_anywhere_in_a_config():
    config_budget.check_values({"config": {"sequence_length": 8192, "dropout": 0.1, "seed": 2**31}}, "p")
    for bad, pattern in (
        (
            {"config": {"tokenizer": {"config": {"sequence_length": 2**21}}}},
            r"config.tokenizer.config.sequence_length=",
        ),
        (
            {"config": {"layer_norm_epsilon": float("nan")}},
            r"config.layer_norm_epsilon=nan; a preset.s numbers are finite",
        ),
        ({"config": {"rope_max_wavelength": float("inf")}}, r"rope_max_wavelength=inf"),
        ({"config": {"x": [1, 2**40]}}, r"config.x\[1\]=1099511627776"),
        ({"config": {"num_classes": 0}}, r"config.num_classes=0; expected a positive integer"),
    ):
        with pytest.raises(ValueError, match=pattern):
            config_budget.check_values(bad, "p")


def test_a_name_a_preset_gives_stays_inside_its_folder(tmp_path):
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "a.txt").write_text("a")
    assert files.preset_file(str(tmp_path), "assets/a.txt") == str(tmp_path / "assets" / "a.txt")
    for name in ("../x", "/etc/passwd", "assets/../../x", "a\\b", "", "assets//a.txt", "./a", 3, "a\0b"):
        with pytest.raises(ValueError, match="not a file name inside the preset|must be a string"):
            files.preset_file(str(tmp_path), name)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("secret")
    os.symlink(outside, tmp_path / "link.txt")
    with pytest.raises(ValueError, match="link.txt leads out of the preset folder"):
        files.has_file(str(tmp_path), "link.txt")  # not "missing": a link out is refused, never skipped
    with pytest.raises(files.MissingPresetFileError) as missing:
        files.preset_file(str(tmp_path), "model.weights.h5")
    assert isinstance(missing.value, FileNotFoundError) and isinstance(missing.value, ValueError)
    os.symlink(tmp_path.parent, tmp_path / "up")
    with pytest.raises(ValueError, match="leads out of the preset folder"):
        files.writable_file(str(tmp_path), "up/written.json")  # a folder on the way that links out
    assert files.writable_file(str(tmp_path), "assets/tokenizer/vocabulary.json").startswith(str(tmp_path))


def test_a_hugging_face_cache_snapshot_may_link_into_its_repository(tmp_path):
    repository = tmp_path / "models--org--name"
    (repository / "blobs").mkdir(parents=True)
    (repository / "blobs" / "abc123").write_text("{}")
    snapshot = repository / "snapshots" / "0123"
    snapshot.mkdir(parents=True)
    os.symlink("../../blobs/abc123", snapshot / "config.json")
    assert files.read_json(str(snapshot), "config.json") == {}
    (tmp_path / "outside.txt").write_text("secret")
    os.symlink(tmp_path, snapshot / "escape")
    with pytest.raises(ValueError, match="leads out of the preset folder"):  # out of the repository
        files.preset_file(str(snapshot), "escape/outside.txt")


def _safetensors(header: dict, data: bytes) -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + data


def test_safetensors_files_read_as_hugging_faces_reader_reads_them(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    tensors = {
        "w": np.arange(12, dtype=np.float32).reshape(3, 4),
        "i": np.arange(3, dtype=np.int64),
        "h": np.ones((2, 2), np.float16),
        "flag": np.array([True, False]),
        "e": np.zeros((0, 5), np.float32),
    }
    path = tmp_path / "model.safetensors"
    path.write_bytes(safetensors_numpy.save(tensors, metadata={"format": "pt"}))
    entries = safetensors_files.read_header(str(path), "m")
    for key, expected in tensors.items():
        np.testing.assert_array_equal(safetensors_files.read_tensor(str(path), entries[key], "m"), expected)
    path.write_bytes(_safetensors({"b": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}, b"\x80\x3f\x00\x40"))
    value = safetensors_files.read_tensor(str(path), safetensors_files.read_header(str(path), "m")["b"], "m")
    assert value.dtype.name == "bfloat16" and value.astype(np.float32).tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "data, pattern",
    [
        (b"\x01", r"too short"),
        (struct.pack("<Q", 2**62) + b"{}", r"header claims 4611686018427387904 bytes"),
        (_safetensors([], b""), r"not a JSON object but list"),
        (_safetensors({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, bytes(4)), r"span 4 bytes"),
        (_safetensors({"x": {"dtype": "PICKLE", "shape": [1], "data_offsets": [0, 1]}}, b"\x80"), r"dtype 'PICKLE'"),
        (_safetensors({"x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, bytes(4)), r"non-negative"),
        (
            _safetensors(
                {
                    "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                    "b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                },
                bytes(8),
            ),
            r"overlapping or gapped",
        ),
        (_safetensors({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, bytes(8)), r"bytes no tensor"),
        (_safetensors({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, bytes(2)), r"truncated"),
        (_safetensors({"__metadata__": {"a": 1}}, b""), r"__metadata__ must map names to strings"),
    ],
)
def test_a_damaged_safetensors_file_is_refused_naming_it(tmp_path, data, pattern):
    path = tmp_path / "model.safetensors"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=pattern) as refused:
        safetensors_files.read_header(str(path), "preset p: model.safetensors")
    assert "preset p: model.safetensors" in str(refused.value)


def test_a_safetensors_header_of_more_entries_than_the_limit_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "model.safetensors"
    path.write_bytes(_safetensors({f"t{i}": {} for i in range(safetensors_files.MAX_TENSORS_PER_FILE + 8)}, b""))
    with pytest.raises(ValueError, match=r"more than 131072 tensors"):
        safetensors_files.read_header(str(path), "m")


def _charsmap(units: dict[int, int], size: int, strings: bytes) -> bytes:
    """A character map of ``size`` units, ``units`` set and every other one a value unit (matches no byte)."""
    array = np.full(size, 1 << 31, "<u4")
    for index, unit in units.items():
        array[index] = unit
    return struct.pack("<I", array.nbytes) + array.tobytes() + strings


def _unit(label: int = 0, offset: int = 0, leaf: bool = False) -> int:
    return (offset << 10) | (int(leaf) << 8) | label  # darts-clone: offset (unshifted), has-leaf bit, label


def test_a_character_map_is_walked_as_the_kernel_walks_it():
    from tfkit.hub.tokenizers.sentence_piece_model import check_charsmap

    # "a" -> "x": the root's children at base 256; "a"'s node (256 ^ 97 = 353) has a leaf, its children's base
    # is 353 ^ 865 = 512, and the value unit there points at byte 0 of the replacements
    fine = _charsmap({0: _unit(offset=256), 353: _unit(97, 865, True)}, 1024, b"x\0")
    check_charsmap(fine, "m")
    with pytest.raises(ValueError, match=r"its trie reads unit 767 of 512"):  # a base whose children lie outside
        check_charsmap(_charsmap({0: _unit(offset=512)}, 512, b"\0"), "m")
    with pytest.raises(ValueError, match=r"past the last terminated one"):  # a replacement without its NUL
        check_charsmap(_charsmap({0: _unit(offset=256), 353: _unit(97, 865, True)}, 1024, b"x"), "m")
    cycle = _charsmap({0: _unit(offset=256), 353: _unit(97, 97)}, 512, b"\0")  # "a" leads back to the root's base
    with pytest.raises(ValueError, match=r"paths over 1024 bytes long, or too many"):
        check_charsmap(cycle, "m")
    matches = _charsmap({0: _unit(offset=256), 353: _unit(97, 97, True)}, 512, b"\0")
    with pytest.raises(ValueError, match=r"over 32 matches"):  # a leaf on a cycle: the kernel's 32 results overrun
        check_charsmap(matches, "m")
    with pytest.raises(ValueError, match=r"claims 4000 bytes"):
        check_charsmap(struct.pack("<I", 4000) + bytes(16), "m")


def test_trained_sentence_piece_models_pass_and_their_tries_are_checked():
    sentencepiece = pytest.importorskip("sentencepiece")
    from sentencepiece import sentencepiece_model_pb2

    from tfkit.hub.tokenizers.sentence_piece_model import check_model

    model = io.BytesIO()
    text = ["the quick brown fox", "ｆｕｌｌ ｗｉｄｔｈ ① ﬁ"] * 10
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(text), model_writer=model, vocab_size=40, minloglevel=2, hard_vocab_limit=False
    )
    check_model(model.getvalue(), "m")  # nmt_nfkc: a 240 KB map, every path walked
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model.getvalue())
    proto.normalizer_spec.precompiled_charsmap = _charsmap({0: _unit(offset=2**20)}, 256, b"\0")
    with pytest.raises(ValueError, match=r"m: normalizer_spec.precompiled_charsmap: its trie reads unit"):
        check_model(proto.SerializeToString(), "m")
    with pytest.raises(ValueError, match=r"m is not a SentencePiece model"):
        check_model(b"\x0a\xff\xff\xff\xff\x0f", "m")
