"""Keras 3 ``.weights.h5`` files both ways: subclassed models (weights under attribute names) and skip_mismatch."""

import numpy as np
import pytest

import tfkit

keras = pytest.importorskip("keras")


def subclassed(k):
    """The same subclassed model class in Keras 3 or tfkit: attributes, a list of layers, a last layer."""

    class Net(k.Model):
        def __init__(self, width=4, **kwargs):
            super().__init__(**kwargs)
            self.hidden = k.layers.Dense(width, activation="relu")
            self.blocks = [k.layers.Dense(width), k.layers.Dense(width, activation="tanh")]
            self.head = k.layers.Dense(2)

        def call(self, x):
            h = self.hidden(x)
            for block in self.blocks:
                h = block(h)
            return self.head(h)

    return Net


@pytest.fixture(scope="module")
def x():
    return np.random.default_rng(0).normal(size=(3, 5)).astype("float32")


@pytest.mark.parametrize("saver, loader", [(keras, tfkit), (tfkit, keras)], ids=["keras_to_tfkit", "tfkit_to_keras"])
def test_a_subclassed_models_weights_go_both_ways(saver, loader, x, tmp_path):
    source = subclassed(saver)()
    source(x)
    source.save_weights(tmp_path / "net.weights.h5")
    target = subclassed(loader)()
    target(x)
    target.load_weights(tmp_path / "net.weights.h5")
    np.testing.assert_allclose(np.asarray(target(x)), np.asarray(source(x)), atol=1e-6)


def test_skip_mismatch_loads_what_fits_from_a_keras_layout_file_and_warns_of_the_rest(x, tmp_path):
    source = subclassed(keras)()
    source(x)
    source.save_weights(tmp_path / "net.weights.h5")
    narrower = subclassed(tfkit)(width=3)
    narrower(x)
    before = [w.numpy().copy() for w in narrower.weights]
    with pytest.raises(ValueError, match=r"do not fit.*nothing was loaded(.|\n)*skip_mismatch=True"):
        narrower.load_weights(tmp_path / "net.weights.h5")
    assert all(np.array_equal(b, w.numpy()) for b, w in zip(before, narrower.weights))
    with pytest.warns(UserWarning, match=r"skipped \(skip_mismatch=True\)(.|\n)*hidden/vars/0"):
        narrower.load_weights(tmp_path / "net.weights.h5", skip_mismatch=True)
    # as in Keras, a layer with any weight that does not fit is skipped whole: the head's bias (2,) would fit
    np.testing.assert_array_equal(narrower.head.bias.numpy(), before[-1])
    np.testing.assert_array_equal(narrower.hidden.kernel.numpy(), before[0])


def test_skip_mismatch_still_loads_the_layers_that_fit(tmp_path):
    source = keras.Sequential([keras.Input((5,)), keras.layers.Dense(4), keras.layers.Dense(2)])
    source.save_weights(tmp_path / "seq.weights.h5")
    target = tfkit.Sequential([tfkit.Input((5,)), tfkit.layers.Dense(4), tfkit.layers.Dense(3)])
    last = [w.numpy().copy() for w in target.layers[1].weights]
    with pytest.warns(UserWarning, match="layers/dense_1/vars/0"):
        target.load_weights(tmp_path / "seq.weights.h5", skip_mismatch=True)
    np.testing.assert_array_equal(target.layers[0].kernel.numpy(), np.asarray(source.layers[0].kernel))
    assert all(np.array_equal(b, w.numpy()) for b, w in zip(last, target.layers[1].weights))
