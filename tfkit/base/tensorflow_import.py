"""TensorFlow, imported without its eager import of Keras: the first thing ``import tfkit`` does.

    import tfkit                     # TensorFlow loads here, without Keras, when nothing imported it before
    tensorflow_import.seconds        # how long that import took (None if TensorFlow was already imported)

TensorFlow's ``__init__`` imports Keras's optimizers eagerly whenever Keras
is installed (``keras.src.optimizers``, or tf-keras's with
``TF_USE_LEGACY_KERAS=1``), for registrations that only Keras's own objects
need. That one import pulls in all of Keras and, where installed, SciPy,
scikit-learn and matplotlib: about 2.7 s of a 10 s ``import tfkit`` measured
on a shared 2-core machine. tfkit never uses Keras, so while TensorFlow loads
that module is marked as absent (``sys.modules[name] = None``, which makes
its import raise ``ImportError``; TensorFlow catches it and goes on), and
the mark is removed as soon as TensorFlow is in.

Nothing else changes: ``tf.keras`` is TensorFlow's lazy loader either way and
imports Keras on first use, ``import keras`` works as usual afterwards, and a
program that imports TensorFlow before tfkit gets TensorFlow's usual import
(Keras included), since TensorFlow is then already loaded. The one
difference the skipped import makes: ``tf.saved_model.load`` of a
SavedModel that tf-keras wrote with its optimizer revives the optimizer as a
plain object instead of tf-keras's ``RestoredOptimizer`` unless Keras is
imported first (its signatures and variables load the same). This module
imports only the standard library, so the ``tfkit`` command can time the two
imports apart.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Iterator

# What TensorFlow's __init__ imports eagerly: Keras's optimizers (all of Keras), or tf-keras's.
KERAS_PRELOADS = ("keras.src.optimizers", "tf_keras.src.optimizers")

seconds: float | None = None  # how long import_tensorflow's import took; None when it found TensorFlow loaded


@contextlib.contextmanager
def without_keras_preload() -> Iterator[None]:
    """Inside the block, importing Keras's optimizers raises ``ImportError`` (unless already imported)."""
    blocked = [name for name in KERAS_PRELOADS if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]   # import_module(name) raises ImportError
    try:
        yield
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def import_tensorflow() -> None:
    """Imports TensorFlow without its eager import of Keras, unless it is already imported; sets ``seconds``."""
    global seconds
    if "tensorflow" in sys.modules:
        return
    start = time.perf_counter()
    with without_keras_preload():
        import tensorflow  # noqa: F401
    seconds = time.perf_counter() - start
