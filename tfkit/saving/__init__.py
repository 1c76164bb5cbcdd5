"""Saving and loading: names, configs, files and exports.

    tfkit.saving.register_serializable(package="my_pkg")(MyLayer)
"""

from tfkit.saving.registry import (  # noqa: F401
    custom_object_scope,
    register_serializable,
)
