"""``tfkit.utils.experimental``: Keras's experimental utilities under Keras's names.

from tfkit.utils.experimental import DatasetCreator
creator = DatasetCreator(lambda context: tf.data.Dataset.from_tensors((x, y)).repeat())
model.fit(creator, epochs=2, steps_per_epoch=10)
"""

from tfkit.utils.dataset_creator import DatasetCreator  # noqa: F401
