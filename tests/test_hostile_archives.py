"""Hostile Keras ``.keras`` archives built by hand (no Keras needed): refused before anything is inflated.

Two zip-level bombs the archive reader once let through:

* bzip2 or LZMA members: ``zipfile`` hands their data to a decompressor with no
  output limit, so 1.5 KB of bzip2 became 2 GB in the loading process in one read;
* a forged compressed size: the ratio check compared the declared sizes, so a
  1.9 MB archive declaring ``compress_size = file_size / 64`` inflated its
  weights member 1,000-fold (3.3 GB peak in ``load_model``).
"""

import json
import struct
import zipfile

import pytest

import tfkit

CONFIG = {"module": "keras", "class_name": "Sequential", "config": {"name": "s", "layers": []}}


def _archive(path, weights_method=zipfile.ZIP_DEFLATED, weights_size=1024):
    """A .keras-shaped zip whose model.weights.h5 member (zeros) is compressed with ``weights_method``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "3.0.0"}))
        archive.writestr("config.json", json.dumps(CONFIG))
        info = zipfile.ZipInfo("model.weights.h5")
        info.compress_type = weights_method
        with archive.open(info, "w") as member:
            chunk = bytes(2**20)
            for start in range(0, weights_size, len(chunk)):
                member.write(chunk[: weights_size - start])


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_bzip2_and_lzma_members_are_refused_before_inflating(tmp_path, method):
    target = tmp_path / "bomb.keras"
    _archive(target, method, 8 * 2**20)
    with pytest.raises(
        ValueError,
        match=rf"model.weights.h5 is compressed with zip method {method}; tfkit reads "
        r"only stored or deflate members",
    ):
        tfkit.load_model(target)


def test_a_forged_compressed_size_does_not_pass_the_ratio_check(tmp_path):
    target = tmp_path / "forged.keras"
    declared = 256 * 2**20
    _archive(target, zipfile.ZIP_DEFLATED, declared)  # ~250 KB of deflate data
    with zipfile.ZipFile(target, "a", zipfile.ZIP_STORED) as archive:  # room for zipfile's read-ahead
        archive.writestr("assets/padding.bin", bytes(3 * 2**19))
    data = bytearray(target.read_bytes())
    with zipfile.ZipFile(target) as archive:
        info = archive.getinfo("model.weights.h5")
    forged = declared // 64 + 1  # what the old check compared against: a ratio of just under 64
    struct.pack_into("<I", data, info.header_offset + 18, forged)  # local header
    central = data.find(b"PK\x01\x02")
    while central >= 0:  # central directory entry
        name_length = struct.unpack_from("<H", data, central + 28)[0]
        if data[central + 46 : central + 46 + name_length] == b"model.weights.h5":
            struct.pack_into("<I", data, central + 20, forged)
        central = data.find(b"PK\x01\x02", central + 4)
    target.write_bytes(bytes(data))
    assert target.stat().st_size < declared // 20
    with pytest.raises(ValueError, match=r"model.weights.h5 would inflate \d+-fold .* a ratio above 64 is refused"):
        tfkit.load_model(target)
