"""``tfkit.preprocessing``: Keras's ``keras.preprocessing`` names, the same functions as in ``tfkit.utils``.

ds = tfkit.preprocessing.timeseries_dataset_from_array(x, y, sequence_length=12)
img = tfkit.preprocessing.image.load_img("cat.jpg", target_size=(180, 180))
x = tfkit.preprocessing.sequence.pad_sequences(token_lists, maxlen=200)
"""

from tfkit.preprocessing import image, sequence  # noqa: F401
from tfkit.utils.directory_datasets import image_dataset_from_directory, text_dataset_from_directory  # noqa: F401
from tfkit.utils.timeseries import timeseries_dataset_from_array  # noqa: F401
