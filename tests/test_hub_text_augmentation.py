"""RandomDeletion and RandomSwap: KerasHub's arguments and configs; draws cannot match KerasHub's, so properties."""

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import keras_hub

import tfkit.hub as tk_hub

WORDS = ["the quick brown fox jumps", "a lazy dog", "x"]


def _rows(value):
    return [
        [w.decode() if isinstance(w, bytes) else w for w in row]
        for row in (value.to_list() if hasattr(value, "to_list") else value)
    ]


def test_rate_zero_changes_nothing_and_rate_one_touches_exactly_the_maximum():
    words = tf.strings.split(WORDS)
    assert _rows(tk_hub.layers.RandomDeletion(rate=0.0, seed=1)(words)) == _rows(words)
    deleted = _rows(tk_hub.layers.RandomDeletion(rate=1.0, max_deletions=2, seed=1)(words))
    assert [len(r) for r in deleted] == [3, 1, 0]
    assert all(set(row) <= set(original) for row, original in zip(deleted, _rows(words)))
    swapped = _rows(tk_hub.layers.RandomSwap(rate=1.0, max_swaps=3, seed=2)(words))
    assert [sorted(r) for r in swapped] == [sorted(r) for r in _rows(words)] and swapped != _rows(words)


def test_skipped_tokens_never_go_or_move():
    words = tf.strings.split(["the quick brown fox jumps over the lazy dog"] * 8)
    for seed in range(3):
        kept = _rows(tk_hub.layers.RandomDeletion(rate=0.9, skip_list=["the", "fox"], seed=seed)(words))
        assert all(row.count("the") == 2 and "fox" in row for row in kept)
        moved = _rows(tk_hub.layers.RandomSwap(rate=0.9, skip_py_fn=lambda w: w == "fox", seed=seed)(words))
        assert all(row[3] == "fox" for row in moved)
    kept = _rows(tk_hub.layers.RandomDeletion(rate=1.0, skip_fn=lambda w: tf.strings.length(w) > 4, seed=0)(words))
    assert all(all(len(w) > 4 for w in row) for row in kept)


def test_shapes_dtypes_seeds_and_tf_data():
    ids = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], "int32")
    out = tk_hub.layers.RandomDeletion(rate=0.5, seed=3)(ids)
    assert isinstance(out, list) and all(set(r) <= set(i) for r, i in zip(out, ids.tolist()))
    one = tk_hub.layers.RandomSwap(rate=0.5, seed=3)(np.arange(1, 7))
    assert sorted(np.asarray(one).tolist()) == [1, 2, 3, 4, 5, 6]
    first = _rows(tk_hub.layers.RandomDeletion(rate=0.5, seed=7)(tf.strings.split(WORDS)))
    assert first == _rows(tk_hub.layers.RandomDeletion(rate=0.5, seed=7)(tf.strings.split(WORDS)))  # seeded: repeats
    layer = tk_hub.layers.RandomSwap(rate=0.7, seed=5, dtype="string")
    dataset = tf.data.Dataset.from_tensor_slices(WORDS).map(tf.strings.split).ragged_batch(3).map(layer)
    batch = next(iter(dataset))
    assert isinstance(batch, tf.RaggedTensor) and batch.row_lengths().numpy().tolist() == [5, 3, 1]


@pytest.mark.parametrize("name, maximum", [("RandomDeletion", "max_deletions"), ("RandomSwap", "max_swaps")])
def test_configs_and_errors_as_kerashubs(name, maximum):
    kwargs = {"rate": 0.3, maximum: 2, "skip_list": ["[CLS]"], "seed": 4, "dtype": "string"}
    ours, theirs = getattr(tk_hub.layers, name)(**kwargs), getattr(keras_hub.layers, name)(**kwargs)
    drop = ("name", "dtype")
    assert {k: v for k, v in ours.get_config().items() if k not in drop} == {
        k: v for k, v in theirs.get_config().items() if k not in drop
    }
    with pytest.raises(ValueError, match="rate must be between 0 and 1"):
        getattr(tk_hub.layers, name)(rate=1.5)
    with pytest.raises(ValueError, match=f"{maximum} must be non-negative"):
        getattr(tk_hub.layers, name)(rate=0.5, **{maximum: -1})
    with pytest.raises(ValueError, match="exactly one of"):
        getattr(tk_hub.layers, name)(rate=0.5, skip_list=["a"], skip_py_fn=lambda w: False)
    with pytest.raises(ValueError, match="integer type or a string"):
        getattr(tk_hub.layers, name)(rate=0.5, dtype="float32")
