"""Take the objects that importing TensorFlow and tfkit leaves out of Python's full garbage collections.

    import tfkit                  # its last line calls freeze_import_objects()
    import gc
    gc.get_freeze_count()         # about 340,000: TensorFlow's and tfkit's modules, classes, functions

Importing TensorFlow and tfkit leaves about 340,000 objects that the cyclic
garbage collector tracks, none of them garbage (a full collection right after
the import frees nothing). Every full (generation 2) collection walks all of
them: 0.19 s each on a 2-core machine. Tracing a model's training loop makes
enough new objects to start one, so most ``fit`` calls paid those 0.19 s in
their first epoch (the guide's VAE: a first epoch of 0.76 s instead of 0.96 s).
``gc.freeze()`` moves the objects alive at that moment to a generation the
collector never walks, so a full collection costs what the program's own
objects cost (3 ms at the end of that ``fit``).

Reference counting still frees a frozen object whose last reference goes; only
a reference cycle among objects that existed before the freeze outlives its
last use (until ``gc.unfreeze()``). ``TFKIT_GC_FREEZE=0`` in the environment
leaves the collector as it is.
"""

from __future__ import annotations

import gc
import os

_ENVIRONMENT_SWITCH = "TFKIT_GC_FREEZE"


def freeze_import_objects() -> bool:
    """Moves every object alive now out of the garbage collector's full collections (`gc.freeze()`).

    `import tfkit` calls it once, at the end of the import: the ~340,000
    objects TensorFlow and tfkit leave (modules, classes, functions, none of
    them garbage) are then no longer walked by every full collection, which
    otherwise cost about 0.2 s each, often in the first epoch of `fit`. Call it
    again after importing other large libraries for the same effect. Setting
    the environment variable `TFKIT_GC_FREEZE=0` turns it off. Reference
    counting still frees frozen objects; only reference cycles among them
    outlive their last use (until `gc.unfreeze()`).

    Returns:
        Whether it froze (`False` when `TFKIT_GC_FREEZE=0`).

    Example:
        >>> import gc, os
        >>> frozen = tfkit.freeze_import_objects()
        >>> frozen == (os.environ.get("TFKIT_GC_FREEZE", "1").strip() != "0")
        True
    """
    if os.environ.get(_ENVIRONMENT_SWITCH, "1").strip() == "0":
        return False
    gc.freeze()
    return True
