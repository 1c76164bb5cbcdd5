"""``tfkit.utils``: Keras's small utilities under Keras's names.

    y = tfkit.utils.to_categorical(labels, 10)
    x = tfkit.utils.pad_sequences(token_lists, maxlen=200)
    tfkit.utils.set_random_seed(1337)
    img = tfkit.utils.load_img("cat.jpg", target_size=(180, 180))   # needs Pillow
"""

from tfkit.utils import experimental  # noqa: F401  (tfkit.utils.experimental.DatasetCreator)
from tfkit.utils.arrays import normalize, pad_sequences, to_categorical  # noqa: F401
from tfkit.utils.directory_datasets import (  # noqa: F401
    image_dataset_from_directory,
    text_dataset_from_directory,
)
from tfkit.utils.images import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from tfkit.utils.plotting import model_to_dot, plot_model  # noqa: F401
from tfkit.utils.py_dataset import PyDataset, Sequence  # noqa: F401
from tfkit.utils.seeding import set_random_seed  # noqa: F401
from tfkit.utils.timeseries import timeseries_dataset_from_array  # noqa: F401
