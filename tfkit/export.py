"""Keras's ``keras.export``: SavedModels with the endpoints you choose.

archive = tfkit.export.ExportArchive()
archive.track_and_add_endpoint("serve", model, input_signature=[tfkit.InputSpec(shape=(None, 3))])
archive.write_out("exported")       # tf.saved_model.load("exported").serve(x)
"""

from tfkit.saving.export_archive import ExportArchive  # noqa: F401

__all__ = ["ExportArchive"]
