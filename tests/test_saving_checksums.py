"""Every array in a tfkit HDF5 file carries a CRC-32: one flipped bit is a ValueError naming the dataset.

HDF5 keeps no checksum of raw data, so before this a bit flipped on disk loaded
as a silently different weight. Files written before checksums (no ``crc32``
attribute) still load, and ``tfkit inspect`` says how many arrays it verified.
"""

import shutil

import h5py
import numpy as np
import pytest

import tfkit
from tfkit import cli, layers
from tfkit.saving import h5_format


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A compiled, trained model saved as a model file and a weights file."""
    folder = tmp_path_factory.mktemp("checksums")
    model = tfkit.Sequential([tfkit.Input((5,)), layers.Dense(4, name="hidden"), layers.Dense(2, name="out")])
    model.compile("adam", "mse")
    model.fit(np.ones((8, 5), "float32"), np.zeros((8, 2), "float32"), verbose=0)
    model.save(str(folder / "m.h5"))
    model.save_weights(str(folder / "w_weights.h5"))
    return model, folder


def _flip(path, dataset, byte, bit):
    """Flip one bit of ``dataset``'s stored data, in the file's bytes, as a failing disk would."""
    with h5py.File(path, "r") as f:
        offset = f[dataset].id.get_offset()
        assert offset is not None and byte < f[dataset].id.get_storage_size()
    with open(path, "r+b") as handle:
        handle.seek(offset + byte)
        value = handle.read(1)[0]
        handle.seek(offset + byte)
        handle.write(bytes([value ^ (1 << bit)]))


# (dataset, byte, bit): a kernel's first and last float (low mantissa bit, sign bit), a bias's exponent,
# an Adam moment, the optimizer's step counter.
FLIPS = [
    ("weights/hidden/kernel", 0, 0),
    ("weights/hidden/kernel", 79, 7),
    ("weights/out/bias", 3, 3),
    ("optimizer/3", 5, 1),
    ("optimizer/0", 0, 0),
]


@pytest.mark.parametrize("dataset, byte, bit", FLIPS)
def test_a_flipped_bit_in_a_model_file_is_refused_naming_the_dataset(trained, tmp_path, dataset, byte, bit):
    _, folder = trained
    path = str(tmp_path / "m.h5")
    shutil.copy(folder / "m.h5", path)
    _flip(path, dataset, byte, bit)
    with pytest.raises(ValueError) as caught:
        tfkit.load_model(path)
    message = str(caught.value)
    assert path in message and f"/{dataset} do not match their checksum" in message, message


@pytest.mark.parametrize("dataset, byte, bit", [flip for flip in FLIPS if flip[0].startswith("weights/")])
def test_a_flipped_bit_in_a_weights_file_is_refused_and_changes_nothing(trained, tmp_path, dataset, byte, bit):
    model, folder = trained
    path = str(tmp_path / "w_weights.h5")
    shutil.copy(folder / "w_weights.h5", path)
    _flip(path, dataset, byte, bit)
    before = [w.numpy().copy() for w in model.weights]
    with pytest.raises(ValueError, match=f"{path} is damaged: the data of /{dataset} do not match their checksum"):
        model.load_weights(path)
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, model.weights))


def _strip_checksums(path):
    """What a file written before checksums looks like: no ``crc32`` attribute anywhere."""
    with h5py.File(path, "a") as f:

        def strip(name, item):
            if isinstance(item, h5py.Dataset) and "crc32" in item.attrs:
                del item.attrs["crc32"]

        f.visititems(strip)


def test_files_written_before_checksums_still_load(trained, tmp_path):
    model, folder = trained
    for name in ("m.h5", "w_weights.h5"):
        shutil.copy(folder / name, tmp_path / name)
        _strip_checksums(str(tmp_path / name))
    loaded = tfkit.load_model(str(tmp_path / "m.h5"))
    assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(loaded.weights, model.weights))
    twin = tfkit.Sequential([tfkit.Input((5,)), layers.Dense(4, name="hidden"), layers.Dense(2, name="out")])
    twin.load_weights(str(tmp_path / "w_weights.h5"))
    assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(twin.weights, model.weights))


def test_every_array_is_stored_with_the_crc32_of_its_bytes(trained):
    _, folder = trained
    arrays = {}

    def collect(name, item):
        if isinstance(item, h5py.Dataset):
            arrays[name] = item

    with h5py.File(folder / "m.h5", "r") as f:
        f.visititems(collect)
        assert arrays and {name.split("/")[0] for name in arrays} == {"weights", "optimizer", "training"}
        for name, dataset in arrays.items():
            assert dataset.attrs["crc32"] == h5_format.crc32(dataset[()]), name


def test_an_unreadable_checksum_is_refused(trained, tmp_path):
    _, folder = trained
    path = str(tmp_path / "m.h5")
    shutil.copy(folder / "m.h5", path)
    with h5py.File(path, "a") as f:
        f["weights/out/kernel"].attrs["crc32"] = "not a number"
    with pytest.raises(ValueError, match=r"the crc32 attribute of /weights/out/kernel cannot be read"):
        tfkit.load_model(path)


def test_inspect_reports_the_checksums_and_refuses_a_damaged_file(trained, tmp_path, capsys):
    _, folder = trained
    assert cli.main(["inspect", str(folder / "m.h5")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("checksums: all ") and line.endswith(" arrays verified (crc32)") for line in lines)
    old = tmp_path / "old.h5"
    shutil.copy(folder / "m.h5", old)
    _strip_checksums(str(old))
    assert cli.main(["inspect", str(old)]) == 0
    assert "checksums: none stored" in capsys.readouterr().out
    damaged = tmp_path / "damaged.h5"
    shutil.copy(folder / "m.h5", damaged)
    _flip(str(damaged), "weights/hidden/bias", 0, 0)
    assert cli.main(["inspect", str(damaged)]) == 1
    assert "/weights/hidden/bias do not match their checksum" in capsys.readouterr().err
