"""``tfkit.preprocessing.sequence``: ``pad_sequences`` (see ``tfkit.utils``)."""

from tfkit.utils.arrays import pad_sequences  # noqa: F401
