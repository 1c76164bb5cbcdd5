"""Keras's files, both ways: ``.keras`` archives and ``.weights.h5`` read and written, tf-keras ``.h5`` read.

Reading: ``importer`` (``archive``, ``config_from_keras``, ``weights_layout``, ``archive_state``).
Writing: ``archive_writer`` (``config_to_keras``, ``object_to_keras``, ``weights_to_keras``, ``optimizer_layout``).
"""

from tfkit.saving.keras_files.archive_weights import load_archive_weights  # noqa: F401
from tfkit.saving.keras_files.archive_writer import save_archive, save_keras_weights  # noqa: F401
from tfkit.saving.keras_files.config_from_keras import ImportReport  # noqa: F401
from tfkit.saving.keras_files.importer import (  # noqa: F401
    import_keras,
    is_keras3_weights,
    is_keras_archive,
    is_legacy,
    load_keras_weights,
)
from tfkit.saving.keras_files.object_to_keras import NotExpressible  # noqa: F401
from tfkit.saving.keras_files.weights_to_keras import BUILD_ATTR  # noqa: F401
