"""``DatasetCreator``: a function that builds a ``tf.data.Dataset``, run where the data is read.

    creator = tfkit.utils.experimental.DatasetCreator(lambda context: make_dataset(context))
    model.fit(creator, epochs=3, steps_per_epoch=100)   # any strategy, ParameterServerStrategy included

Under ``tf.distribute.ParameterServerStrategy`` each worker calls the
function to build its own input pipeline; ``context`` (a
``tf.distribute.InputContext``) gives the worker's pipeline id for sharding
and the per-replica batch size. Without a strategy the function is called
once with a default context. The dataset may repeat forever, so ``fit``
needs ``steps_per_epoch`` (``evaluate`` and ``predict`` need ``steps``).
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf


class DatasetCreator:
    """Wraps ``dataset_fn(input_context) -> tf.data.Dataset`` (Keras's ``utils.experimental.DatasetCreator``).

    creator = DatasetCreator(dataset_fn, input_options=tf.distribute.InputOptions())
    dataset = creator(tf.distribute.InputContext())
    model.fit(creator, epochs=2, steps_per_epoch=50)
    """

    def __init__(
        self,
        dataset_fn: Callable[[tf.distribute.InputContext], tf.data.Dataset],
        input_options: tf.distribute.InputOptions | None = None,
    ) -> None:
        if not callable(dataset_fn):
            raise TypeError(
                f"DatasetCreator: dataset_fn must be a callable taking a tf.distribute.InputContext "
                f"and returning a tf.data.Dataset; got {type(dataset_fn).__name__}"
            )
        if input_options is not None and not isinstance(input_options, tf.distribute.InputOptions):
            raise TypeError(
                f"DatasetCreator: input_options must be a tf.distribute.InputOptions or None; "
                f"got {type(input_options).__name__}"
            )
        self.dataset_fn = dataset_fn
        self.input_options = input_options

    def __call__(self, *args: Any, **kwargs: Any) -> tf.data.Dataset:
        dataset = self.dataset_fn(*args, **kwargs)
        if not isinstance(dataset, tf.data.Dataset):
            raise TypeError(
                f"DatasetCreator: dataset_fn must return a tf.data.Dataset; it returned {type(dataset).__name__}"
            )
        return dataset
