"""LoRA on Dense, EinsumDense and Embedding: Keras 3's weights, numbers, freezing, configs and files."""

import numpy as np
import pytest
import tensorflow as tf

import tfkit
from tfkit import layers

RNG = np.random.default_rng(0)


def _set_factors(layer, a, b):
    getattr(layer, f"lora_{layer._lora_target}_a").assign(a)
    getattr(layer, f"lora_{layer._lora_target}_b").assign(b)


def test_dense_computes_with_the_merged_kernel_and_trains_only_the_factors():
    layer = layers.Dense(4, lora_rank=2, lora_alpha=6, name="d")
    x = RNG.random((5, 3)).astype("float32")
    layer(x)
    assert [w.name for w in layer.trainable_weights] == ["d/bias:0", "d/lora_kernel_a:0", "d/lora_kernel_b:0"]
    kernel, bias = layer.kernel.numpy(), layer.bias.numpy()
    a, b = RNG.random((3, 2)).astype("float32"), RNG.random((2, 4)).astype("float32")
    _set_factors(layer, a, b)
    np.testing.assert_allclose(layer(x).numpy(), x @ (kernel + 3.0 * a @ b) + bias, rtol=1e-5)

    model = tfkit.Sequential([tfkit.Input((3,)), layer])
    model.compile(tfkit.optimizers.SGD(0.1), "mse")
    model.fit(x, RNG.random((5, 4)).astype("float32"), epochs=2, verbose=0)
    np.testing.assert_array_equal(layer.kernel.numpy(), kernel)  # frozen
    assert not np.allclose(layer.lora_kernel_a.numpy(), a)  # trained


def test_enabling_changes_no_output_and_einsum_and_embedding_factors_have_keras_shapes():
    dense = layers.EinsumDense("ab,bcd->acd", output_shape=(2, 5), bias_axes="cd")
    x = RNG.random((4, 3)).astype("float32")
    before = dense(x).numpy()
    dense.enable_lora(3)
    np.testing.assert_allclose(dense(x).numpy(), before, rtol=1e-6)  # B starts at zero
    assert dense.lora_kernel_a.shape == (3, 2, 3) and dense.lora_kernel_b.shape == (3, 5)
    a, b = RNG.random((3, 2, 3)).astype("float32"), RNG.random((3, 5)).astype("float32")
    _set_factors(dense, a, b)
    kernel = dense.kernel.numpy() + np.einsum("bcr,rd->bcd", a, b)  # alpha = rank: scale 1
    np.testing.assert_allclose(dense(x).numpy(), np.einsum("ab,bcd->acd", x, kernel) + dense.bias.numpy(), rtol=1e-5)
    table = layers.Embedding(7, 4, lora_rank=2)
    ids = np.array([[1, 6], [0, 3]])
    table(ids)
    a, b = RNG.random((7, 2)).astype("float32"), RNG.random((2, 4)).astype("float32")
    _set_factors(table, a, b)
    np.testing.assert_allclose(table(ids).numpy(), (table.embeddings.numpy() + a @ b)[ids], rtol=1e-5)


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match="Dense layer 'u': cannot enable LoRA on a layer that is not built"):
        layers.Dense(2, name="u").enable_lora(2)
    built = layers.Dense(2, kernel_constraint="non_neg", name="c")
    built.build((None, 3))
    with pytest.raises(ValueError, match="'c': LoRA is incompatible with kernel_constraint"):
        built.enable_lora(2)
    twice = layers.Dense(2, lora_rank=1, name="t")
    twice.build((None, 3))
    with pytest.raises(ValueError, match="'t': LoRA is already enabled"):
        twice.enable_lora(2)
    with pytest.raises(ValueError, match="lora_rank must be a positive integer or None, got 0"):
        layers.Dense(2, lora_rank=0)


def test_config_keeps_rank_and_alpha_and_an_h5_file_keeps_every_weight(tmp_path):
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(4, lora_rank=2, lora_alpha=8, name="d")])
    assert {k: model.layers[0].get_config()[k] for k in ("lora_rank", "lora_alpha")} == {
        "lora_rank": 2,
        "lora_alpha": 8,
    }
    assert "lora_rank" not in layers.Dense(4).get_config()
    _set_factors(model.layers[0], RNG.random((3, 2)).astype("float32"), RNG.random((2, 4)).astype("float32"))
    path = str(tmp_path / "lora.h5")
    model.save(path)
    loaded = tfkit.load_model(path)
    x = RNG.random((2, 3)).astype("float32")
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)
    assert loaded.layers[0].lora_alpha == 8 and len(loaded.trainable_weights) == 3


def test_the_same_factors_give_keras_s_outputs_side_by_side():
    keras = pytest.importorskip("keras")
    x = RNG.random((3, 5)).astype("float32")
    ours, theirs = layers.Dense(4, lora_rank=2), keras.layers.Dense(4, lora_rank=2)
    ours.build((None, 5))
    theirs.build((None, 5))
    weights = [RNG.random(tuple(w.shape)).astype("float32") for w in ours.weights]
    for mine, their, value in zip(ours.weights, theirs.weights, weights):
        mine.assign(value)
        their.assign(value)
    assert [w.path.split("/")[-1] for w in theirs.weights] == [w.name.split("/")[-1][:-2] for w in ours.weights]
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-5)
    # Keras 3.15 resets a constructor's lora_alpha to the rank when it builds; tfkit keeps it
    assert keras.layers.Dense(4, lora_rank=2, lora_alpha=8).get_config()["lora_alpha"] == 8
    built = keras.layers.Dense(4, lora_rank=2, lora_alpha=8)
    built.build((None, 5))
    assert built.lora_alpha == 2
    mine = layers.Dense(4, lora_rank=2, lora_alpha=8)
    mine.build((None, 5))
    assert mine.lora_alpha == 8


def test_mixed_precision_keeps_float32_factors():
    tfkit.mixed_precision.set_global_policy("mixed_float16")
    try:
        layer = layers.Dense(4, lora_rank=2)
        out = layer(tf.ones((2, 3)))
    finally:
        tfkit.mixed_precision.set_global_policy("float32")
    assert out.dtype == tf.float16 and layer.lora_kernel_a.dtype == tf.float32


def test_a_keras_file_with_lora_loads_with_the_merged_kernel_and_zeroed_factors(tmp_path):
    keras = pytest.importorskip("keras")
    theirs = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, lora_rank=2, name="d")])
    theirs.layers[0].lora_kernel_b.assign(np.ones((2, 4), "float32"))
    path = str(tmp_path / "lora.keras")
    theirs.save(path)
    x = RNG.random((2, 3)).astype("float32")
    ours = tfkit.load_model(path)
    np.testing.assert_allclose(ours.predict(x, verbose=0), np.asarray(theirs(x)), rtol=1e-5)
    assert ours.layers[0].lora_enabled and not ours.layers[0].lora_kernel_b.numpy().any()  # zeroed, as Keras
    table = keras.Sequential([keras.Input((2,), dtype="int32"), keras.layers.Embedding(5, 3, lora_rank=1)])
    table.layers[0].lora_embeddings_a.assign(np.ones((5, 1), "float32"))
    table.layers[0].lora_embeddings_b.assign(np.ones((1, 3), "float32"))
    table.save(str(tmp_path / "table.keras"))
    ids = np.array([[0, 4], [2, 2]])
    np.testing.assert_allclose(
        tfkit.load_model(str(tmp_path / "table.keras")).predict(ids, verbose=0), np.asarray(table(ids)), rtol=1e-5
    )
