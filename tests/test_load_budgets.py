"""Model files whose config multiplies the work of loading: each refused early, naming the layer and the argument.

A few bytes of config can say ``LSTM(unroll=True)`` over 30,000 timesteps, call a nested model 3,000 times,
build a 10**8-entry lookup table or ask ``predict`` for terabytes. The corpus below is loaded in a separate
worker process (``fuzz_loaders.Worker``: a hang or a crash fails the case instead of pytest, and each load's
peak memory is measured); ordinary models of the same kinds still load, in this process.
"""

import json
import re
import zipfile

import h5py
import numpy as np
import pytest
import tensorflow as tf
from fuzz_loaders import PEAK_LIMIT, Worker

import tfkit
from tfkit import layers
from tfkit.base import load_budget
from tfkit.engine import config_cost
from tfkit.saving import graph_budget

# A load not refused within this is a hang. The slowest case, unroll_bidirectional, traces the 600 unrolled
# steps the budget allows (the forward GRU, ~17,000 graph ops) before refusing the backward one: 43 s in the
# worker at a load of 4.5 on 2 cores, every other case under 5 s. The limit is a quiet machine's: the worker
# multiplies it by the load per core (time_limits), so a load of 8-12 on 2 cores no longer reads as a hang.
CASE_TIMEOUT_S = 60


def _seq(shape, *stack, dtype="float32"):
    return tfkit.Sequential([tfkit.Input(shape, dtype=dtype), *stack])


def _nested(depth=1):
    block = tfkit.Sequential([tfkit.Input((4,)), *[layers.Dense(4) for _ in range(depth)]], name="block")
    x = tfkit.Input((4,))
    return tfkit.Model(x, block(block(x)))


def _split():
    x = tfkit.Input((6,))
    return tfkit.Model(x, layers.Concatenate()(tf.split(tf.stack(tf.unstack(x, axis=1), axis=1), 2, axis=1)))


def _entries(config, class_name):
    found, stack = [], [config]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if value.get("class_name") == class_name:
                found.append(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found


def _set(class_name, **arguments):
    def edit(config, build):
        for entry in _entries(config, class_name):
            entry["config"].update(arguments)

    return edit


def _input(index, size):
    def edit(config, build):
        for entry in _entries(config, "InputLayer"):
            entry["config"]["batch_shape"][index] = size
        if build is not None:
            build["input_shape"][index] = size

    return edit


def _call_block(times):
    def edit(config, build):
        block = next(e for e in config["config"]["layers"] if e["name"] == "block")
        first = block["inbound_nodes"][0]
        block["inbound_nodes"] = [first] + [
            {"args": [{"__tensor__": ["block", i, 0]}], "kwargs": {}} for i in range(times - 1)
        ]
        config["config"]["output_layers"] = ["block", times - 1, 0]

    return edit


def _split_into(count):
    def edit(config, build):
        split = next(e for e in _entries(config, "TFOpLambda") if e["config"]["function"] == "tf.split")
        split["config"]["arguments"]["args"][1] = count

    return edit


def _vocabulary(tokens):
    return _set("StringLookup", vocabulary=tokens)


LSTM_30000 = r"LSTM layer 'lstm\w*' has unroll=True over 30000 timesteps, .* at most 1000"
CASES = {  # name: (model, config edit, the error expected)
    "unroll_30000_steps": (lambda: _seq((5, 1), layers.LSTM(2, unroll=True)), _input(1, 30_000), LSTM_30000),
    "unroll_bidirectional": (
        lambda: _seq((5, 1), layers.Bidirectional(layers.GRU(2, unroll=True))),
        _input(1, 600),
        r"GRU layer 'backward_gru\w*' has unroll=True over 600 timesteps, which would bring "
        r"the unrolled RNN timesteps built by this load to 1200",
    ),
    "nested_model_called_3000_times": (
        lambda: _nested(10),
        _call_block(3000),
        r"layers\[1\] \(Sequential 'block'\) is called 3000 times and each call "
        r"traces 10 layer call\(s\): .* more than 10000",
    ),
    "ngrams": (
        lambda: _seq((1,), layers.TextVectorization(vocabulary=["a"], ngrams=2), dtype="string"),
        _set("TextVectorization", ngrams=10**6),
        r"\(TextVectorization '\w+'\): ngrams=1000000 sets the "
        r"n-gram ops built per call to 1000000; .* at most 64",
    ),
    "output_sequence_length": (
        lambda: _seq((1,), layers.TextVectorization(vocabulary=["a"], output_sequence_length=4), dtype="string"),
        _set("TextVectorization", output_sequence_length=10**12),
        r"output_sequence_length=1000000000000 sets the tokens of every sample",
    ),
    "num_oov_indices": (
        lambda: _seq((1,), layers.StringLookup(vocabulary=["a"]), dtype="string"),
        _set("StringLookup", num_oov_indices=10**8),
        r"layers\[1\] \(StringLookup '\w+'\): num_oov_indices=100000000 sets the table entries",
    ),
    "max_tokens": (
        lambda: _seq(
            (3,),
            layers.StringLookup(vocabulary=["a"], max_tokens=5, pad_to_max_tokens=True, output_mode="multi_hot"),
            dtype="string",
        ),
        _set("StringLookup", max_tokens=10**12),
        r"max_tokens=1000000000000 sets the width",
    ),
    "category_encoding": (
        lambda: _seq((2,), layers.CategoryEncoding(5), dtype="int64"),
        _set("CategoryEncoding", num_tokens=10**12),
        r"num_tokens=1000000000000 sets the width",
    ),
    "hashing_one_hot": (
        lambda: _seq((1,), layers.Hashing(5, output_mode="one_hot"), dtype="string"),
        _set("Hashing", num_bins=10**12),
        r"num_bins=1000000000000 sets the width",
    ),
    "repeat_vector_n": (
        lambda: _seq((4,), layers.RepeatVector(3)),
        _set("RepeatVector", n=2**33),
        r"\(RepeatVector '\w+'\): n=8589934592 sets the timesteps of every sample",
    ),
    "repeat_vector_times_features": (
        lambda: _seq((16,), layers.RepeatVector(3)),
        _set("RepeatVector", n=2**29),
        r"op 'repeat_vector\w*/[\w/]*' \(Tile\) would output a tensor of shape "
        r"\(None, 1, 536870912, 16\)",
    ),
    "zero_padding": (
        lambda: _seq((4, 4, 1), layers.ZeroPadding2D(1)),
        _set("ZeroPadding2D", padding=[[10**6, 10**6], [10**6, 10**6]]),
        r"op 'zero_padding2d\w*/Pad' \(Pad\) would output a tensor",
    ),
    "upsampling": (
        lambda: _seq((4, 4, 1), layers.UpSampling2D(2)),
        _set("UpSampling2D", size=[10**6, 10**6]),
        r"\(UpSampling2D '\w+'\): size=\[1000000, 1000000\] sets the factor every sample is enlarged by",
    ),
    "transposed_strides": (
        lambda: _seq((4, 4, 1), layers.Conv2DTranspose(1, 2, strides=2)),
        _set("Conv2DTranspose", strides=[10**6, 10**6]),
        r"strides=\[1000000, 1000000\] sets",
    ),
    "resizing": (
        lambda: _seq((4, 4, 1), layers.Resizing(4, 4)),
        _set("Resizing", height=10**6, width=10**6),
        r"height=1000000, width=1000000 sets the pixels of every output image",
    ),
    "reshape": (
        lambda: _seq((2, 2), layers.Reshape((4,))),
        _set("Reshape", target_shape=[10**10]),
        r"target_shape=\[10000000000\] sets the elements of every sample",
    ),
    "input_shape": (
        lambda: _seq((4, 4), layers.Flatten()),
        _input(2, 10**10),
        r"\(InputLayer '\w+'\): batch_shape=\[None, 4, 10000000000\] sets the elements of every sample",
    ),
    "unstack_3m_wide": (
        _split,
        _input(1, 3_000_000),
        r"TFOpLambda layer 'tf.unstack\w*' has unstack\(\.\.\.\) making 3000000 tensors",
    ),
    "split_into_a_million": (
        _split,
        _split_into(10**6),
        r"TFOpLambda layer 'tf.split\w*' has split\(\.\.\.\) making 1000000 tensors",
    ),
    "repeated_vocabulary_200k": (
        lambda: _seq((1,), layers.StringLookup(vocabulary=["a"]), dtype="string"),
        _vocabulary([f"w{i % 1000}" for i in range(200_000)]),
        r"The passed vocabulary has at least one repeated term.*\['w0', 'w1'",
    ),
}


def _write(model, path, edit):
    model.save(path)
    with h5py.File(path, "a") as f:
        config = json.loads(f.attrs["model_config"])
        build = json.loads(f.attrs["build_config"]) if "build_config" in f.attrs else None
        edit(config, build)
        f.attrs["model_config"] = json.dumps(config)
        if build is not None:
            f.attrs["build_config"] = json.dumps(build)


def _keras_archive(path, layer_entries, vocabulary=None):
    """A Keras 3 ``.keras`` archive written by hand (no Keras needed): config.json and an optional vocabulary asset."""
    config = {
        "module": "keras",
        "class_name": "Sequential",
        "registered_name": None,
        "config": {"name": "s", "layers": layer_entries},
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "3.0.0"}))
        archive.writestr("config.json", json.dumps(config))
        if vocabulary is not None:
            archive.writestr("assets/layers/string_lookup/vocabulary.txt", "\n".join(vocabulary))


def _keras_layer(class_name, **config):
    return {"module": "keras.layers", "class_name": class_name, "config": config, "registered_name": None}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("budgets")
    paths = {}
    for name, (build, edit, _) in CASES.items():
        paths[name] = folder / f"{name}.h5"
        _write(build(), paths[name], edit)
    paths["unroll_30000_steps_keras"] = folder / "unroll.keras"  # a 400-byte config.json
    _keras_archive(
        paths["unroll_30000_steps_keras"],
        [
            _keras_layer("InputLayer", batch_shape=[None, 30_000, 1], dtype="float32", name="x"),
            _keras_layer("LSTM", name="lstm", units=2, unroll=True),
        ],
    )
    paths["repeated_vocabulary_keras_asset"] = folder / "vocabulary.keras"  # a few KB of deflate
    _keras_archive(
        paths["repeated_vocabulary_keras_asset"],
        [
            _keras_layer("InputLayer", batch_shape=[None, 1], dtype="string", name="x"),
            _keras_layer("StringLookup", name="string_lookup", vocabulary=None),
        ],
        ["[UNK]"] + [f"w{i % 1000}" for i in range(200_000)],
    )
    worker = Worker(folder)
    try:
        out = {}
        for name, path in paths.items():
            out[name] = {**worker.load("load_model", str(path), CASE_TIMEOUT_S), "size": path.stat().st_size}
            if out[name]["outcome"] in ("hang", "crash"):
                worker = Worker(folder)
    finally:
        worker.stop()
    return out


EXPECTED = {
    **{name: pattern for name, (_, _, pattern) in CASES.items()},
    "unroll_30000_steps_keras": LSTM_30000,
    "repeated_vocabulary_keras_asset": r"The passed vocabulary has at least one repeated term",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_multiplying_config_is_refused_before_the_work_naming_layer_and_argument(results, name):
    result = results[name]
    assert result["outcome"] == "ValueError", result
    assert re.search(EXPECTED[name], result["message"], re.S), result
    assert max(result["peak_bytes"], result["child_peak_bytes"]) < PEAK_LIMIT, result
    assert result["size"] < 2 * 2**20, result  # small files: the cost was all multiplication


def test_ordinary_unrolled_and_multiplying_models_still_load(tmp_path):
    nested = _nested()
    models = {
        "lstm": _seq((40, 3), layers.LSTM(4, unroll=True, return_sequences=True), layers.LSTM(2, unroll=True)),
        "bidirectional": _seq((30, 3), layers.Bidirectional(layers.GRU(2, unroll=True))),
        "nested": nested,
        "split": _split(),
        "image": _seq(
            (4, 4, 1),
            layers.UpSampling2D(2),
            layers.ZeroPadding2D(1),
            layers.Resizing(6, 6),
            layers.Flatten(),
            layers.RepeatVector(3),
        ),
    }
    for name, model in models.items():
        shape = (2, *model.inputs[0].shape[1:])
        x = np.random.default_rng(0).random(shape).astype("float32")
        model.save(tmp_path / f"{name}.h5")
        loaded = tfkit.load_model(tmp_path / f"{name}.h5")
        np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)
    text = _seq(
        (1,), layers.TextVectorization(vocabulary=["the", "cat"], ngrams=2, output_sequence_length=5), dtype="string"
    )
    text.save(tmp_path / "text.h5")
    query = tf.constant([["the cat"], ["cat dog"]])
    np.testing.assert_array_equal(tfkit.load_model(tmp_path / "text.h5")(query), text(query))


def test_budgets_apply_to_loads_only_never_to_models_built_in_code(tmp_path, monkeypatch):
    monkeypatch.setitem(load_budget.LIMITS, load_budget.UNROLLED_STEPS, 10)
    model = _seq((40, 3), layers.LSTM(2, unroll=True))  # 40 unrolled steps in code: no budget
    load_budget.charge(load_budget.UNROLLED_STEPS, 10**9, "a layer", "outside any load")  # does nothing
    model.save(tmp_path / "m.h5")
    with pytest.raises(ValueError, match=r"LSTM layer 'lstm\w*' has unroll=True over 40 timesteps.* at most 10"):
        tfkit.load_model(tmp_path / "m.h5")
    monkeypatch.setitem(load_budget.LIMITS, load_budget.UNROLLED_STEPS, 1_000)
    monkeypatch.setattr(graph_budget, "MAX_GRAPH_OPS", 20)
    with pytest.raises(
        ValueError,
        match=r"m.h5: op '[^']+' \(\w+\) is graph op number 21; a model file may make "
        r"tfkit build at most 20",
    ):
        tfkit.load_model(tmp_path / "m.h5")
    _seq((40, 3), layers.LSTM(2, unroll=True))  # and building in code still is not limited


def test_nested_models_multiply_their_calls_before_anything_is_built():
    def block(name, inner, calls):  # a model holding ``inner``, itself called ``calls`` times by its parent
        return {
            "class_name": "Functional",
            "name": name,
            "inbound_nodes": [{"args": [], "kwargs": {}}] * calls,
            "config": {"name": name, "layers": [inner]},
        }

    dense = {"class_name": "Dense", "config": {"name": "d", "units": 2}, "inbound_nodes": [{"args": [], "kwargs": {}}]}
    config = dense
    for depth in range(8):  # each level calls the one inside 10 times: 10**8 traced calls in ~3 KB
        config = block(f"level{depth}", config, 10)
    model = {"class_name": "Functional", "config": {"name": "top", "layers": [config]}}
    assert len(json.dumps(model)) < 5_000
    with pytest.raises(
        ValueError,
        match=r"model_config(\.config\.layers\[0\])+ \(Functional 'level4'\) is called "
        r"10 times and each call traces 10000 layer call\(s\)",
    ):
        config_cost.check_costs(model, "model_config")
    small = block("pair", dense, 2)  # a block called twice: fine
    config_cost.check_costs({"class_name": "Functional", "config": {"name": "top", "layers": [small]}}, "m")


@pytest.mark.parametrize(
    "entry, argument",
    [
        (
            {"class_name": "Dropout", "config": {"name": "drop", "rate": 0.5, "noise_shape": [None, 10**6, 10**6]}},
            r"noise_shape=\[None, 1000000, 1000000\] sets the random values drawn per training step to 1000000000000",
        ),
        (
            {"class_name": "ZeroPadding1D", "config": {"name": "pad", "padding": [2**33, 1]}},
            r"padding=\[8589934592, 1\]",
        ),
        (
            {"class_name": "UpSampling3D", "config": {"name": "up", "size": [64, 64, 64]}},
            r"size=\[64, 64, 64\] sets the "
            r"factor .* to 262144",
        ),
        (
            {"class_name": "IntegerLookup", "config": {"name": "ids", "num_oov_indices": 2**21}},
            r"num_oov_indices=2097152",
        ),
    ],
)
def test_config_cost_rules_name_the_path_and_argument(entry, argument):
    model = {"class_name": "Sequential", "config": {"name": "m", "layers": [entry]}}
    with pytest.raises(
        ValueError,
        match=rf"model_config\.config\.layers\[0\] \({entry['class_name']} "
        rf"'{entry['config']['name']}'\): {argument}",
    ):
        config_cost.check_costs(model, "model_config")
    modest = {
        **entry,
        "config": {
            **entry["config"],
            **{
                key: value
                for key, value in {
                    "noise_shape": [None, 1, 8],
                    "padding": [1, 1],
                    "size": [2, 2, 2],
                    "num_oov_indices": 4,
                }.items()
                if key in entry["config"]
            },
        },
    }
    config_cost.check_costs({"class_name": "Sequential", "config": {"name": "m", "layers": [modest]}}, "model_config")


def test_graph_budget_sizes_traced_tensors_but_allows_what_the_file_stores():
    huge = tf.function(lambda: tf.zeros([2**33]))  # traced only: nothing is allocated
    with graph_budget.graph_budget("f.h5"):
        with pytest.raises(
            ValueError, match=r"f.h5: op '[^']+' \(\w+\) would output a tensor of shape \(8589934592,\)"
        ):
            huge.get_concrete_function()
    with graph_budget.graph_budget("f.h5", largest_array=2**33):  # a file storing such an array may read it
        tf.function(lambda: tf.zeros([2**33])).get_concrete_function()
    tf.function(lambda: tf.zeros([2**34])).get_concrete_function()  # outside a load: no budget
