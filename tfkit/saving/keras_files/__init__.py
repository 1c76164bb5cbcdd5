"""Reading Keras's files: ``.keras`` archives, ``.weights.h5`` and tf-keras ``.h5`` (see ``importer``)."""

from tfkit.saving.keras_files.config_translation import ImportReport  # noqa: F401
from tfkit.saving.keras_files.importer import (  # noqa: F401
    import_keras,
    is_keras3_weights,
    is_keras_archive,
    is_legacy,
    load_keras_weights,
)
