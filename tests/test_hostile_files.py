"""A corpus of hostile and broken files: every one is a clear ValueError, none runs code, crashes or hangs.

One case per class of Keras loader CVE, adapted to tfkit's format:

* Lambda bytecode (marshalled code objects in a Lambda config, Keras 2 and 3 styles);
* module and function names injected into configs (``module`` keys, dotted class names,
  an importable module that would create the marker on import);
* configs that try to switch safe mode off (``safe_mode`` keys, an "enable unsafe" call);
* ``.h5`` files in the legacy (Keras 2) layout that other loaders read without safe mode;
* pickles hidden in datasets and attributes;

plus broken files (truncated, not HDF5, wrong version, huge shapes, dtype and shape
mismatches, links to other files). Every payload would create a marker file if any of
its code ran; the test asserts the markers never appear. All loads run in one separate
process (a crash there fails the test instead of killing pytest), each in a thread with
a time limit (a hang fails the test).
"""

import base64
import json
import marshal
import os
import pathlib
import pickle
import re
import shutil
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest
import time_limits

import tfkit
from tfkit import layers

pytestmark = pytest.mark.slow  # one separate loading process for the whole corpus

CASE_TIMEOUT_S = 60  # a case not refused within this is a hang (a quiet machine's limit: time_limits scales it)
WORKER = textwrap.dedent(
    """
    import importlib.util, json, os, sys, threading, time
    cases_file, results_file, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    spec = importlib.util.spec_from_file_location("time_limits", sys.argv[4])   # tests/ stays off sys.path
    time_limits = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(time_limits)
    import tfkit
    from tfkit import layers

    def target():
        return tfkit.Sequential([tfkit.Input((4,), name="x"), layers.Dense(3, name="dense_a")])

    def run(case):
        action = case["action"]
        if action == "load_model":
            tfkit.load_model(case["path"])
        elif action == "load_model_unsafe":
            tfkit.load_model(case["path"], safe_mode=False)
        elif action == "load_weights":
            target().load_weights(case["path"])
        elif action == "inspect":
            from tfkit.saving.file_description import describe
            describe(case["path"])
        else:
            raise RuntimeError("unknown action " + action)

    with open(cases_file) as handle:
        cases = json.load(handle)
    for case in cases:
        result = {"name": case["name"]}
        with open(results_file, "a") as out:
            out.write(json.dumps({"name": case["name"], "started": True}) + "\\n")
        outcome = {}
        def body():
            try:
                run(case)
                outcome["status"] = "loaded"
            except BaseException as error:
                outcome["status"] = type(error).__name__
                outcome["message"] = str(error)
        deadline = time_limits.Deadline(timeout)    # grows with the machine's load while the case runs
        thread = threading.Thread(target=body, daemon=True)
        thread.start()
        while thread.is_alive() and not deadline.passed():
            thread.join(min(max(deadline.remaining(), 0.01), 5.0))
        if thread.is_alive():
            outcome = {"status": "timeout"}
        result.update(outcome, seconds=deadline.elapsed(), limit=deadline.limit, new_modules=sorted(
            m for m in sys.modules if m.startswith("evil_module")))
        with open(results_file, "a") as out:
            out.write(json.dumps(result) + "\\n")
        if outcome["status"] == "timeout":
            break
    os._exit(0)
    """
)

EVIL_MODULE = (
    "open({marker!r}, 'w').write('imported')\ndef run(*args, **kwargs):\n    open({marker!r}, 'w').write('ran')\n"
)


class _PickledPayload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _code_b64(marker):
    code = compile(f"open({marker!r}, 'w').write('bytecode ran')", "<payload>", "exec")
    return base64.b64encode(marshal.dumps(code)).decode("ascii")


def _baseline(path):
    model = tfkit.Sequential([tfkit.Input((4,), name="x"), layers.Dense(3, name="dense_a")], name="victim")
    model.compile("adam", "mse")
    model.train_on_batch(np.ones((2, 4), "float32"), np.zeros((2, 3), "float32"))
    model.save(path)


def _config(f):
    return json.loads(f.attrs["model_config"])


def _layer_entry(class_name, config=None, **extra):
    return {"class_name": class_name, "config": config or {"name": "evil"}, **extra}


def _with_layer(entry):
    def mutate(f, marker):
        config = _config(f)
        config["config"]["layers"].append(entry(marker) if callable(entry) else entry)
        f.attrs["model_config"] = json.dumps(config)

    return mutate


def _set_attr(name, value):
    def mutate(f, marker):
        f.attrs[name] = value(marker) if callable(value) else value

    return mutate


def _replace_dataset(path, make):
    def mutate(f, marker):
        del f[path]
        make(f, path, marker)

    return mutate


def _lambda_keras3(marker):
    return _layer_entry(
        "Lambda",
        {
            "name": "evil",
            "function": {
                "class_name": "__lambda__",
                "config": {"code": _code_b64(marker), "defaults": None, "closure": None},
            },
        },
    )


def _lambda_keras2(marker):
    return _layer_entry(
        "Lambda",
        {"name": "evil", "function": [_code_b64(marker), None, None], "function_type": "lambda", "module": "__main__"},
    )


def _legacy_keras_file(path, marker):
    config = {
        "class_name": "Sequential",
        "config": {
            "name": "legacy",
            "layers": [
                {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 4], "name": "x"}},
                _lambda_keras2(marker),
            ],
        },
    }
    with h5py.File(path, "w") as f:
        f.attrs["keras_version"] = "2.15.0"
        f.attrs["backend"] = "tensorflow"
        f.attrs["model_config"] = json.dumps(config)
        f.create_group("model_weights").attrs["layer_names"] = np.array([b"evil"])


def _huge_unallocated(f, path, marker):
    f.create_dataset(path, shape=(2**31, 2**31), dtype="float32", chunks=(1, 1))


def _set_units(units, input_shape=None):
    def mutate(f, marker):
        config = _config(f)
        for entry in config["config"]["layers"]:
            if entry["class_name"] == "Dense":
                entry["config"]["units"] = units
            if input_shape is not None and entry["class_name"] == "InputLayer":
                entry["config"]["batch_shape"] = input_shape
        f.attrs["model_config"] = json.dumps(config)

    return mutate


def _rename_dense(name):
    def mutate(f, marker):
        config = _config(f)
        for entry in config["config"]["layers"]:
            if entry["class_name"] == "Dense":
                entry["config"]["name"] = name
        f.attrs["model_config"] = json.dumps(config)

    return mutate


def _cycle(f, marker):
    f["weights/dense_a/loop"] = f["weights"]


def _external_link(f, marker):
    other = os.path.join(os.path.dirname(f.filename), "elsewhere.h5")
    with h5py.File(other, "w") as g:
        g["kernel"] = np.zeros((4, 3), "float32")
    del f["weights/dense_a/kernel"]
    f["weights/dense_a/kernel"] = h5py.ExternalLink(other, "/kernel")


def _virtual(f, path, marker):
    other = os.path.join(os.path.dirname(f.filename), "virtual_source.h5")
    with h5py.File(other, "w") as g:
        g["k"] = np.zeros((4, 3), "float32")
    layout = h5py.VirtualLayout(shape=(4, 3), dtype="float32")
    layout[:] = h5py.VirtualSource(other, "k", shape=(4, 3))
    f.create_virtual_dataset(path, layout)


def _external_storage(f, path, marker):
    raw = os.path.join(os.path.dirname(f.filename), "raw.bin")
    with open(raw, "wb") as handle:
        handle.write(b"\0" * 48)
    f.create_dataset(path, shape=(4, 3), dtype="float32", external=[(raw, 0, 48)])


def _unknown_filter(f, path, marker):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((4, 3))
    dcpl.set_filter(32001, h5py.h5z.FLAG_OPTIONAL, (1, 2))
    space = h5py.h5s.create_simple((4, 3))
    dataset = h5py.Dataset(h5py.h5d.create(f.id, path.encode(), h5py.h5t.NATIVE_FLOAT, space, dcpl=dcpl))
    dataset[...] = np.ones((4, 3), "float32")


def _pickle_dataset(f, path, marker):
    f.create_dataset(path, data=np.void(pickle.dumps(_PickledPayload(marker))))


def _object_dataset(f, path, marker):
    f.create_dataset(path, data=np.array(["evil_module.run"] * 12, dtype=h5py.string_dtype()).reshape(4, 3))


def _deep_json(marker):
    return "[" * 100_000 + "]" * 100_000


# name: (how to make the file from the baseline, action, expected message pattern)
CASES = {
    # --- CVE class: Lambda bytecode
    "lambda_bytecode_keras3": (
        _with_layer(_lambda_keras3),
        "load_model",
        r"never loads code.*register_keras_serializable",
    ),
    "lambda_bytecode_keras3_unsafe": (
        _with_layer(_lambda_keras3),
        "load_model_unsafe",
        r"not even with safe_mode=False",
    ),
    "lambda_bytecode_keras2": (_with_layer(_lambda_keras2), "load_model", r"saved as code"),
    "lambda_as_layer_class": (
        _with_layer(lambda m: _layer_entry("__lambda__", {"code": _code_b64(m)})),
        "load_model_unsafe",
        r"'__lambda__' object, which holds Python code",
    ),
    "lambda_unknown_function_name": (
        _with_layer(_layer_entry("Lambda", {"name": "evil", "function": "evil_module.run"})),
        "load_model",
        r"unknown function 'evil_module.run'.*register",
    ),
    # --- CVE class: module / function names injected into configs
    "module_key_in_layer": (
        _with_layer(_layer_entry("run", {"name": "evil"}, module="evil_module")),
        "load_model",
        r"Unknown layer 'run' \(saved from module 'evil_module'\)",
    ),
    "registered_name_key": (
        _with_layer(_layer_entry("Dense", {"name": "evil", "units": 1}, registered_name="evil_module>run")),
        "load_model",
        r"Unknown layer 'evil_module>run'.*custom_objects=\{'run'",
    ),
    "dotted_class_name": (_with_layer(_layer_entry("evil_module.run")), "load_model", r"never module paths"),
    "registered_shape_unknown_name": (
        _with_layer(_layer_entry("evil_module>run")),
        "load_model",
        r"Unknown layer 'evil_module>run'",
    ),
    "injected_initializer": (
        _with_layer(
            _layer_entry(
                "Dense",
                {"name": "evil", "units": 2, "kernel_initializer": {"class_name": "evil_module.run", "config": {}}},
            )
        ),
        "load_model",
        r"never module paths",
    ),
    "injected_activation": (
        _with_layer(_layer_entry("Dense", {"name": "evil", "units": 2, "activation": "evil_module.run"})),
        "load_model",
        r"evil_module.run",
    ),
    "injected_optimizer": (
        _set_attr(
            "compile_config", json.dumps({"optimizer": {"class_name": "run", "module": "evil_module", "config": {}}})
        ),
        "load_model",
        r"Unknown optimizer 'run' \(saved from module 'evil_module'\)",
    ),
    "injected_loss_code": (
        _set_attr(
            "compile_config",
            lambda m: json.dumps({"loss": {"class_name": "__lambda__", "config": {"code": _code_b64(m)}}}),
        ),
        "load_model",
        r"holds Python code",
    ),
    "model_class_is_a_module_path": (
        _set_attr("model_config", json.dumps({"class_name": "evil_module.run", "config": {}})),
        "load_model",
        r"never module paths",
    ),
    # --- CVE class: a file that tries to turn safe mode off
    "safe_mode_key_top_level": (
        _set_attr(
            "model_config",
            lambda m: json.dumps({"class_name": "Sequential", "safe_mode": False, "config": {"layers": []}}),
        ),
        "load_model",
        r"cannot change safe_mode",
    ),
    "safe_mode_key_in_layer": (
        _with_layer(_layer_entry("Dense", {"name": "evil", "units": 1, "safe_mode": False})),
        "load_model",
        r"cannot change safe_mode",
    ),
    "safe_mode_root_attr_plus_bytecode": (
        lambda f, m: (_set_attr("safe_mode", False)(f, m), _with_layer(_lambda_keras3)(f, m)),
        "load_model",
        r"never loads code",
    ),
    "enable_unsafe_call": (
        _with_layer(_layer_entry("tfkit.saving.enable_unsafe_deserialization", {})),
        "load_model",
        r"never module paths",
    ),
    # --- CVE class: legacy .h5 layouts that ignore safe mode elsewhere
    # tf-keras files are imported as data (tfkit.saving.keras_files): the Lambda's marshal bytes stay refused
    "keras_legacy_h5_with_lambda": ("legacy", "load_model", r"function saved as code"),
    "keras_legacy_h5_unsafe": ("legacy", "load_model_unsafe", r"function saved as code"),
    "keras_legacy_h5_as_weights": ("legacy", "load_weights", r"Keras weights do not fit model"),
    # --- pickles and objects where arrays belong
    "pickle_in_weight_dataset": (
        _replace_dataset("weights/dense_a/kernel", _pickle_dataset),
        "load_model",
        r"opaque bytes",
    ),
    "two_byte_opaque_without_the_bfloat16_tag": (  # Keras's bfloat16 arrays are opaque too, but tagged
        _replace_dataset(
            "weights/dense_a/kernel", lambda f, p, m: f.create_dataset(p, data=np.zeros((4, 3), "uint16").view("V2"))
        ),
        "load_model",
        r"opaque bytes",
    ),
    "pickle_in_weights_file": (
        _replace_dataset("weights/dense_a/kernel", _pickle_dataset),
        "load_weights",
        r"plain numeric",
    ),
    "strings_in_weight_dataset": (
        _replace_dataset("weights/dense_a/kernel", _object_dataset),
        "load_model",
        r"plain numeric",
    ),
    "pickle_as_model_config": (
        _set_attr("model_config", lambda m: np.void(pickle.dumps(_PickledPayload(m)))),
        "load_model",
        r"model_config' (must be text|cannot be read \(dtype)",
    ),
    "model_config_array": (
        _set_attr("model_config", np.array(["{}", "{}"], dtype=h5py.string_dtype())),
        "load_model",
        r"single value",
    ),
    # --- broken and malicious structure
    "unknown_class": (_with_layer(_layer_entry("NoSuchLayer")), "load_model", r"Unknown layer 'NoSuchLayer'"),
    "huge_unallocated_dataset": (
        _replace_dataset("weights/dense_a/kernel", _huge_unallocated),
        "load_model",
        r"holds no data|declares \d+ bytes .*the limit",
    ),
    "huge_dataset_into_weights": (
        _replace_dataset("weights/dense_a/kernel", _huge_unallocated),
        "load_weights",
        r"holds no data|declares \d+ bytes .*the limit",
    ),
    "huge_units_in_config": (_set_units(10**9), "load_model", r"more than the largest array stored"),
    "huge_input_shape": (_set_units(3, [None, 10**9]), "load_model", r"more than the largest array stored"),
    "shape_mismatch_config_vs_data": (
        _set_units(5),
        "load_model",
        r"weights/dense_a/kernel: file \(4, 3\) float32, model \(4, 5\)",
    ),
    "dtype_claim_mismatch": (  # float64 bytes that claim to be float32 (a float64 array would be cast)
        _replace_dataset(
            "weights/dense_a/kernel",
            lambda f, p, m: f.create_dataset(p, data=np.zeros((4, 3), "float64")).attrs.create("dtype", "float32"),
        ),
        "load_model",
        r"file \(4, 3\) float32 stored as float64, model \(4, 3\) float32",
    ),
    "int_dataset_for_float_weight": (
        _replace_dataset("weights/dense_a/bias", lambda f, p, m: f.create_dataset(p, data=np.zeros((3,), "int64"))),
        "load_weights",
        r"weights/dense_a/bias: file \(3,\) int64",
    ),
    "hard_link_cycle": (_cycle, "load_model", r"reachable twice"),
    "external_link": (_external_link, "load_model", r"ExternalLink"),
    "soft_link": (
        lambda f, m: f.__setitem__("weights/alias", h5py.SoftLink("/weights/dense_a")),
        "load_weights",
        r"SoftLink",
    ),
    "virtual_dataset": (_replace_dataset("weights/dense_a/kernel", _virtual), "load_model", r"virtual dataset"),
    "external_storage": (
        _replace_dataset("weights/dense_a/kernel", _external_storage),
        "load_weights",
        r"external files",
    ),
    "unknown_hdf5_filter": (
        _replace_dataset("weights/dense_a/kernel", _unknown_filter),
        "load_model",
        r"filter\(s\) \[32001\]",
    ),
    "wrong_format_version": (_set_attr("format_version", np.int64(99)), "load_model", r"format_version 99"),
    "old_format_version": (_set_attr("format_version", np.int64(0)), "load_weights", r"format_version 0"),
    "format_version_as_text": (_set_attr("format_version", "1"), "load_model", r"must be an integer"),
    "wrong_format": (_set_attr("format", "keras"), "load_model", r"format attribute is not 'tfkit'"),
    "unknown_kind": (_set_attr("kind", "pickle"), "load_model", r"kind attribute is not one of"),
    "model_config_not_json": (_set_attr("model_config", "{'class_name': 'Dense'"), "load_model", r"not valid JSON"),
    "model_config_deep_nesting": (
        _set_attr("model_config", _deep_json),
        "load_model",
        r"nested too deeply|nested more",
    ),
    "model_config_list": (_set_attr("model_config", "[1, 2]"), "load_model", r"model_config must be"),
    "build_config_negative": (
        _set_attr("build_config", json.dumps({"input_shape": [None, -5]})),
        "load_model",
        r"invalid dimension -5",
    ),
    # a name goes into every op and variable name of its layer: 900 KB cost 230 MB to rebuild, 15 MB crashed
    "layer_name_of_900_kb": (_rename_dense("d" * 900_000), "load_model", r"name is a string of 900000 characters"),
    "batch_shape_infinity": (_set_units(3, [None, float("inf")]), "load_model", r"OverflowError|infinity"),
    "batch_shape_nan": (_set_units(3, [None, float("nan")]), "load_model", r"nan|NaN|invalid"),
    "batch_shape_huge": (
        _set_units(3, [None, 2**62]),
        "load_model",
        r"more than the largest array stored|invalid|sets the elements of every sample",
    ),
    "optimizer_wrong_count": (
        lambda f, m: f.__delitem__("optimizer/5") if "optimizer/5" in f else None,
        "load_model",
        r"optimizer",
    ),
    "optimizer_bad_names": (
        lambda f, m: f.__setitem__("optimizer/evil", np.zeros(1)),
        "load_model",
        r"expected only indices",
    ),
    "inspect_pickle_dataset": (
        _replace_dataset("weights/dense_a/kernel", _pickle_dataset),
        "inspect",
        r"plain numeric",
    ),
}
RAW_FILES = {
    "truncated": lambda path, marker: _truncate(path),
    "not_hdf5_text": lambda path, marker: pathlib.Path(path).write_text("import os; os.system('touch x')"),
    "not_hdf5_zip": lambda path, marker: pathlib.Path(path).write_bytes(b"PK\x03\x04" + os.urandom(200)),
    "empty_file": lambda path, marker: pathlib.Path(path).write_bytes(b""),
    "pickle_file": lambda path, marker: pathlib.Path(path).write_bytes(pickle.dumps(_PickledPayload(marker))),
}
RAW_EXPECT = {
    "truncated": r"damaged HDF5 file",
    "not_hdf5_text": r"not an HDF5 file",
    "not_hdf5_zip": r"not an HDF5 file|not a readable zip archive",
    "empty_file": r"empty",
    "pickle_file": r"not an HDF5 file",
}


def _truncate(path):
    data = pathlib.Path(path).read_bytes()
    pathlib.Path(path).write_bytes(data[: len(data) // 2])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    markers = root / "markers"
    markers.mkdir()
    evil_dir = root / "evil"
    evil_dir.mkdir()
    (evil_dir / "evil_module.py").write_text(EVIL_MODULE.format(marker=str(markers / "evil_module_imported")))
    baseline = str(root / "baseline.h5")
    _baseline(baseline)
    cases = [{"name": "baseline_sanity", "path": baseline, "action": "load_model"}]
    for name, (mutate, action, _) in CASES.items():
        path = str(root / f"{name}.h5")
        marker = str(markers / name)
        if mutate == "legacy":
            _legacy_keras_file(path, marker)
        else:
            shutil.copy(baseline, path)
            with h5py.File(path, "a") as f:
                mutate(f, marker)
        cases.append({"name": name, "path": path, "action": action})
    for name, make in RAW_FILES.items():
        path = str(root / f"{name}.h5")
        shutil.copy(baseline, path)
        make(path, str(markers / name))
        for action in ("load_model", "load_weights"):
            cases.append({"name": f"{name}:{action}", "path": path, "action": action})
    cases_file, results_file = root / "cases.json", root / "results.jsonl"
    cases_file.write_text(json.dumps(cases))
    env = dict(
        os.environ,
        TF_CPP_MIN_LOG_LEVEL="2",
        PYTHONPATH=os.pathsep.join([str(evil_dir), os.environ.get("PYTHONPATH", "")]),
    )
    proc = subprocess.run(
        [sys.executable, "-c", WORKER, str(cases_file), str(results_file), str(CASE_TIMEOUT_S), time_limits.__file__],
        env=env,
        cwd=str(root),
        capture_output=True,
        text=True,
        timeout=time_limits.seconds(CASE_TIMEOUT_S * 4 + 120),
    )
    lines = [json.loads(line) for line in results_file.read_text().splitlines()] if results_file.exists() else []
    results = {r["name"]: r for r in lines if "status" in r}
    started = [r["name"] for r in lines if r.get("started")]
    return {
        "results": results,
        "started": started,
        "returncode": proc.returncode,
        "stderr": proc.stderr[-3000:],
        "markers": markers,
        "expected": len(cases),
    }


def test_worker_survived_every_case(corpus):
    assert corpus["returncode"] == 0, (
        f"the loading process died (exit {corpus['returncode']}) during case "
        f"{corpus['started'][-1] if corpus['started'] else '?'}:\n{corpus['stderr']}"
    )
    assert len(corpus["results"]) == corpus["expected"]
    assert corpus["results"]["baseline_sanity"]["status"] == "loaded"


def test_no_payload_ever_ran(corpus):
    assert sorted(os.listdir(corpus["markers"])) == []
    for name, result in corpus["results"].items():
        assert result["new_modules"] == [], f"{name} imported {result['new_modules']}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_crafted_file_is_refused_with_a_clear_error(corpus, name):
    result = corpus["results"].get(name)
    assert result is not None, f"case {name} did not run (the worker stopped early): {corpus['stderr']}"
    assert result["status"] == "ValueError", result
    assert result["seconds"] < result["limit"]  # refused, not stopped at its time limit
    _, _, pattern = CASES[name]
    assert re.search(pattern, result["message"], re.S), result["message"]


@pytest.mark.parametrize("name", sorted(RAW_FILES))
@pytest.mark.parametrize("action", ["load_model", "load_weights"])
def test_broken_bytes_are_refused(corpus, name, action):
    result = corpus["results"].get(f"{name}:{action}")
    assert result is not None, corpus["stderr"]
    assert result["status"] == "ValueError", result
    assert re.search(RAW_EXPECT[name], result["message"]), result["message"]
