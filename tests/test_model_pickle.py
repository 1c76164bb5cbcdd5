"""Models pickle (multiprocessing, joblib, Ray, Dask) as the bytes of their .h5 file, as Keras 3 models do."""

import copy
import pickle

import numpy as np

import tfkit

X = np.random.default_rng(2).normal(size=(8, 3)).astype("float32")


def test_a_trained_compiled_model_survives_pickle_and_deepcopy():
    inputs = tfkit.Input((3,))
    model = tfkit.Model(inputs, tfkit.layers.Dense(2, name="head")(tfkit.layers.Dense(4)(inputs)))
    model.compile(tfkit.optimizers.Adam(0.01), "mse")
    model.fit(X, X[:, :2], epochs=2, verbose=0)
    for again in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        np.testing.assert_array_equal(again.predict(X, verbose=0), model.predict(X, verbose=0))
        assert again.compiled and int(again.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())
        assert again.get_layer("head") is not model.get_layer("head")
        history = again.fit(X, X[:, :2], epochs=1, verbose=0)  # training goes on from the saved state
        assert np.isfinite(history.history["loss"][0])
