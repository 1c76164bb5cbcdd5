"""An epoch's spent tf.data iterator is deleted on a helper thread, never lost or kept alive."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import tensorflow as tf

import tfkit
from tfkit.training import iterator_release


class _Recorder:
    """Notes the thread that drops the last reference to it."""

    def __init__(self, seen: list, done: threading.Event) -> None:
        self.seen, self.done = seen, done

    def __del__(self) -> None:
        self.seen.append(threading.current_thread().name)
        self.done.set()


def test_release_deletes_on_the_helper_thread():
    seen, done = [], threading.Event()
    iterator_release.release(_Recorder(seen, done))
    assert done.wait(timeout=30)
    assert seen == ["tfkit-iterator-release"]


def test_fit_on_a_dataset_leaves_no_iterator_alive():
    """Each epoch's iterator is deleted (its pipeline stopped) soon after the epoch, not kept by tfkit."""
    x = np.random.RandomState(0).rand(64, 4).astype("float32")
    dataset = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(16)
    model = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(1)])
    model.compile("sgd", "mse")
    created = []
    original_iter = type(dataset).__iter__

    def tracking_iter(self):
        iterator = original_iter(self)
        created.append(weakref.ref(iterator))
        return iterator

    type(dataset).__iter__ = tracking_iter
    try:
        model.fit(dataset, epochs=3, verbose=0)
    finally:
        type(dataset).__iter__ = original_iter
    assert len(created) == 3
    done = threading.Event()
    iterator_release.release(_Recorder([], done))  # queued after the epochs' iterators
    assert done.wait(timeout=30)
    gc.collect()
    assert [ref() for ref in created] == [None, None, None]
