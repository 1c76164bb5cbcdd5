"""The save kinds that are not HDF5 on a full disk: one OSError, no litter, the previous save kept, a normal exit.

``test_saving_faults.py`` fills a small tmpfs to within a few KB of the end
for the HDF5 kinds; this does the same for TensorFlow checkpoints,
``BackupAndRestore``, SavedModel exports and the ONNX and TFLite files, each
of which TensorFlow or a converter writes, not tfkit's HDF5 writer.
"""

import json
import subprocess
import sys
import textwrap

import pytest
import time_limits
from test_saving_faults import small_tmpfs  # noqa: F401  (the fixture)

_SAVES = textwrap.dedent(r"""
    import json, os, shutil, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np, tfkit
    folder, kinds = sys.argv[1], sys.argv[2].split(",")
    model = tfkit.Sequential([tfkit.Input((30,)), tfkit.layers.Dense(120), tfkit.layers.Dense(3)])
    model.compile("adam", "mse")
    backup = tfkit.callbacks.BackupAndRestore(os.path.join(folder, "backup"))
    backup.set_model(model)
    backup.on_train_begin()
    saves = {
        "checkpoint": ("ckpt/w", lambda path: model.save_weights(path)),
        "backup": ("backup", lambda path: backup.on_epoch_end(0)),
        "export": ("models/vae/1", lambda path: model.export(path, verbose=False)),
        "onnx": ("m.onnx", lambda path: model.export(path, format="onnx", verbose=False)),
        "tflite": ("m.tflite", lambda path: model.export(path, format="tflite", verbose=False)),
    }
    filler = os.path.join(folder, "filler")

    def tree():
        listing = {}
        for root, _, files in os.walk(folder):
            for name in files:
                path = os.path.join(root, name)
                if path != filler:
                    listing[os.path.relpath(path, folder)] = open(path, "rb").read()
        return listing

    def fill_leaving(free_bytes):
        info = os.statvfs(folder)
        with open(filler, "wb") as handle:
            handle.write(b"\0" * max(0, info.f_bavail * info.f_frsize - free_bytes))

    results = []
    for kind in kinds:
        name, save = saves[kind]
        target = os.path.join(folder, name)
        save(target)                                   # the previous save, to be kept
        before = tree()
        size = sum(-(-len(data) // 4096) * 4096 for path, data in before.items()   # a tmpfs counts whole pages
                   if not os.path.basename(path).startswith("."))                  # what a save rewrites
        for weight in model.weights:
            weight.assign(weight + 1.0)                # a save that got through would change the files
        for free in (4096, 12288, size // 4, size // 2, size * 3 // 4):   # from a few KB to most of what it needs
            fill_leaving(free)
            try:
                save(target)
                outcome = "saved"
            except OSError as error:
                outcome = "OSError" if "Not enough disk space to save" in str(error) else f"OSError: {error}"
            except Exception as error:
                outcome = f"{type(error).__name__}: {error}"[:500]
            finally:
                os.remove(filler)
            after = tree()
            results.append({"kind": kind, "free": free, "outcome": outcome, "kept": after == before,
                            "litter": [path for path in after if ".tmp-" in path]})
            if outcome == "saved":                      # it fitted (a tmpfs rounds to pages): back to the old save
                for weight in model.weights:
                    weight.assign(weight - 1.0)
                save(target)
                before = tree()
                for weight in model.weights:
                    weight.assign(weight + 1.0)
        save(target)                                   # with room again, the next save completes
        results.append({"kind": kind, "free": None, "outcome": "saved", "kept": tree() != before})
        if os.path.isdir(target) and kind != "backup":
            shutil.rmtree(target)
        elif os.path.isfile(target):
            os.remove(target)
    print(json.dumps(results), flush=True)
""")


def _check(results):
    for result in results:
        if result["free"] is None:
            assert result["outcome"] == "saved" and result["kept"], result  # the save after the failures lands
        elif result["outcome"] == "saved":
            assert not result["kept"] and not result["litter"], result  # it fitted: a whole new save
        else:
            assert result["outcome"] == "OSError" and result["kept"], result  # nothing changed, nothing left over
    for kind in {result["kind"] for result in results}:
        failed = [result for result in results if result["kind"] == kind and result["outcome"] == "OSError"]
        assert len(failed) >= 4, (kind, results)  # the disk was full for most


@pytest.mark.slow
@pytest.mark.parametrize("kinds", ["checkpoint,backup,export", "onnx,tflite"])
def test_a_full_tmpfs_is_one_oserror_for_checkpoints_backups_and_exports(small_tmpfs, kinds):  # noqa: F811
    if "onnx" in kinds:
        pytest.importorskip("tf2onnx")
    done = subprocess.run(
        [sys.executable, "-c", _SAVES, str(small_tmpfs), kinds],
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(600),
    )
    assert done.returncode == 0, f"exit code {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    _check(json.loads(done.stdout.strip().splitlines()[-1]))
