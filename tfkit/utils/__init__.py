"""``tfkit.utils``: Keras's small utilities under Keras's names.

    y = tfkit.utils.to_categorical(labels, 10)
    x = tfkit.utils.pad_sequences(token_lists, maxlen=200)
    tfkit.utils.set_random_seed(1337)
    img = tfkit.utils.load_img("cat.jpg", target_size=(180, 180))   # needs Pillow
    space = tfkit.utils.FeatureSpace({"age": "float_normalized", "city": "string_categorical"})

It sits with ``callbacks`` and ``backend`` in tfkit's layers (above the Layer
engine), so it can offer the engine's objects under Keras's names: custom-object
scopes and serialization, ``Progbar``, ``clear_session``, ``get_source_inputs``.
"""

from tfkit.backend import clear_session, standardize_dtype  # noqa: F401
from tfkit.callbacks.progbar import Progbar  # noqa: F401
from tfkit.config import disable_interactive_logging, enable_interactive_logging, is_interactive_logging_enabled  # noqa: F401
from tfkit.utils import (
    bounding_boxes,  # noqa: F401  (tfkit.utils.bounding_boxes.convert_format, ...)
    experimental,  # noqa: F401  (tfkit.utils.experimental.DatasetCreator)
)
from tfkit.utils.arrays import normalize, pad_sequences, to_categorical  # noqa: F401
from tfkit.utils.config import Config  # noqa: F401
from tfkit.utils.data_tuples import pack_x_y_sample_weight, unpack_x_y_sample_weight  # noqa: F401
from tfkit.utils.dataset_split import split_dataset  # noqa: F401
from tfkit.utils.directory_datasets import (  # noqa: F401
    audio_dataset_from_directory,
    image_dataset_from_directory,
    text_dataset_from_directory,
)
from tfkit.utils.feature_space import FeatureSpace  # noqa: F401
from tfkit.utils.file_download import get_file  # noqa: F401
from tfkit.utils.graph_inputs import get_source_inputs, is_keras_tensor  # noqa: F401
from tfkit.utils.images import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from tfkit.utils.plotting import model_to_dot, plot_model  # noqa: F401
from tfkit.utils.py_dataset import PyDataset, Sequence  # noqa: F401
from tfkit.utils.seeding import set_random_seed  # noqa: F401
from tfkit.utils.serialization import (  # noqa: F401
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from tfkit.utils.timeseries import timeseries_dataset_from_array  # noqa: F401
