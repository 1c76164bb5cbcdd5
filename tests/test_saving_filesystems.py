"""Saves on awkward file systems: a read-only mount, a target that is a symbolic link.

Every save kind fails the same way on a read-only file system (one ``OSError``,
as an ``.h5`` save always did, never TensorFlow's ``PermissionDeniedError``), and
a save onto a symbolic link writes through it, keeping the link.
"""

import errno
import os
import subprocess

import numpy as np
import pytest

import tfkit


def _model(fill):
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(2)])
    for weight in model.weights:
        weight.assign(np.full(weight.shape, fill, "float32"))
    return model


SAVES = {
    "model .h5": ("m.h5", lambda model, path: model.save(path)),
    "tfkit .keras": ("m.keras", lambda model, path: model.save(path)),
    "weights .h5": ("w.weights.h5", lambda model, path: model.save_weights(path)),
    "checkpoint": ("ckpt/w", lambda model, path: model.save_weights(path)),
    "export": ("models/vae/1", lambda model, path: model.export(path)),
}


@pytest.fixture
def small_mount(tmp_path):
    """A tmpfs of its own (root in a container may mount one); unmounted after the test."""
    folder = tmp_path / "mount"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _listing(folder):
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.mark.parametrize("kind", list(SAVES))
def test_a_read_only_file_system_is_one_oserror_for_every_save_kind(small_mount, kind):
    name, save = SAVES[kind]
    target = str(small_mount / name)
    save(_model(1.0), target)
    before = _listing(small_mount)
    subprocess.run(["mount", "-o", "remount,ro", str(small_mount)], check=True)
    with pytest.raises(OSError) as raised:
        save(_model(2.0), target)
    assert raised.value.errno in (errno.EROFS, errno.EACCES), raised.value
    assert _listing(small_mount) == before


def test_an_export_onto_a_symlinked_folder_replaces_the_destination_and_keeps_the_link(tmp_path):
    import tensorflow as tf

    real = tmp_path / "storage" / "v1"
    _model(1.0).export(str(real))
    link = tmp_path / "models" / "vae" / "1"
    link.parent.mkdir(parents=True)
    link.symlink_to(real, target_is_directory=True)
    _model(2.0).export(str(link))
    assert link.is_symlink() and os.readlink(link) == str(real)
    served = tf.saved_model.load(str(link)).signatures["serving_default"](tf.ones((1, 3)))
    assert float(list(served.values())[0].numpy()[0, 0]) == 8.0  # 3 inputs x 2 + 2: the new weights
    assert sorted(os.listdir(link.parent)) == ["1"] and sorted(os.listdir(real.parent)) == ["v1"]


def test_a_model_file_saved_onto_a_symlink_writes_through_it(tmp_path):
    real = tmp_path / "storage" / "m.h5"
    real.parent.mkdir()
    _model(1.0).save(str(real))
    link = tmp_path / "m.h5"
    link.symlink_to(real)
    _model(2.0).save(str(link))
    assert link.is_symlink()
    assert np.unique(tfkit.load_model(str(real)).weights[0].numpy()).tolist() == [2.0]
    assert sorted(os.listdir(tmp_path)) == ["m.h5", "storage"] and os.listdir(real.parent) == ["m.h5"]
