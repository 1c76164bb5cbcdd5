"""Whether a model's weights are all finite: callbacks ask before they write a file over a good one.

    bad = first_non_finite_weight(model)          # None, or "encoder/dense_proj/kernel"
    if not finite_before_saving(model, "ModelCheckpoint", "ckpt.weights.h5"):
        return                                    # warned: the file on disk is left as it was

A ``fit`` that diverges (``TerminateOnNaN`` stopped it, or nothing did) ends
with NaN or infinite weights; saving them over the last good checkpoint would
destroy the only usable copy. The check reads every floating-point weight once
(``is_finite`` and ``reduce_all`` per weight, all flags brought back to the host
in one read), which costs far less than writing the file; the weight's path is
looked up only when one is bad.
"""

from __future__ import annotations

import glob
import os
import warnings
from typing import Any

import tensorflow as tf


def _checked_weights(model: Any) -> list[Any]:
    weights = list(getattr(model, "weights", None) or [])
    return [w for w in weights if tf.as_dtype(w.dtype).is_floating or tf.as_dtype(w.dtype).is_complex]


def _path_of(model: Any, variable: Any) -> str:
    paths = getattr(model, "weight_paths", None)
    if callable(paths):
        for path, candidate in paths().items():
            if candidate is variable:
                return path
    return getattr(variable, "path", None) or variable.name.split(":")[0]


def first_non_finite_weight(model: Any) -> str | None:
    """The path of the first weight of ``model`` holding a NaN or an infinity, or ``None`` if all are finite."""
    weights = _checked_weights(model)
    if not weights:
        return None
    flags = tf.stack([tf.reduce_all(tf.math.is_finite(w)) for w in weights]).numpy()
    if flags.all():
        return None
    return _path_of(model, weights[int((~flags).argmax())])


def finite_before_saving(model: Any, who: str, target: str, kept: str | None = None) -> bool:
    """``True`` when ``model``'s weights are finite; otherwise a ``RuntimeWarning`` and ``False`` (do not save).

    ``who`` names the caller ("ModelCheckpoint"), ``target`` the file it would have written, ``kept`` what
    the user still has instead (for example "the last checkpoint saved, 'ckpt.h5' (epoch 2)").
    """
    bad = first_non_finite_weight(model)
    if bad is None:
        return True
    if kept is None:
        kept = f"{target!r} was left as it was" if _exists(target) else "nothing was written"
    warnings.warn(
        f"{who} skipped saving to {target!r}: the model's weights are not finite (weight '{bad}' holds NaN or "
        f"infinity; training diverged). {kept[0].upper()}{kept[1:]}.",
        RuntimeWarning,
        stacklevel=3,
    )
    return False


def _exists(target: str) -> bool:
    """A file, or a TensorFlow checkpoint prefix (``target.index``)."""
    return os.path.exists(target) or bool(glob.glob(glob.escape(target) + ".index"))
