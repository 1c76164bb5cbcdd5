"""Automatic layer names: ``dense``, ``dense_1``, ... per class, until ``clear_session()``.

unique_name("dense")        # "dense", then "dense_1", "dense_2", ...
clear_session()             # the next Dense is "dense" again
to_snake_case("MyLayer")    # "my_layer"
"""

from __future__ import annotations

import re
import threading

_name_lock = threading.Lock()
_name_counts: dict[str, int] = {}


def unique_name(base: str) -> str:
    """Returns a name unique in the session: `base`, then `base_1`, `base_2`, ... for later requests.

    Automatic layer names come from it; `clear_session` starts the counts
    over.

    Args:
        base: The base name.

    Returns:
        A string.

    Example:
        >>> tfkit.backend.unique_name("block")
        'block'
        >>> tfkit.backend.unique_name("block")
        'block_1'
    """
    with _name_lock:
        count = _name_counts.get(base, 0)
        _name_counts[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def clear_session() -> None:
    """Resets the automatic layer names: `dense`, `dense_1`, ... start over.

    `tfkit.backend.clear_session` calls it (and may also collect garbage).

    Example:
        >>> tfkit.layers.Dense(1).name
        'dense'
        >>> tfkit.backend.reset_names()
        >>> tfkit.layers.Dense(1).name
        'dense'
    """
    with _name_lock:
        _name_counts.clear()


def to_snake_case(name: str) -> str:
    """Keras's automatic-name rule: ``Conv2DTranspose`` -> ``conv2d_transpose``, ``ConvLSTM2D`` -> ``conv_lstm2d``."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


_SCOPE_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-]*$")


def scope_name(name: str, fallback: str) -> str:
    """``name`` if TensorFlow accepts it as a root name scope, else a cleaned-up version (or ``fallback``).

    ``scope_name("_vae", "layer")`` is ``"vae"``: a class named ``_VAE`` is named ``_vae``, which
    ``tf.name_scope`` refuses at the root of a graph.
    """
    if _SCOPE_NAME.match(name):
        return name
    cleaned = re.sub(r"[^A-Za-z0-9_.\-]", "_", name).lstrip("_-")
    return cleaned if cleaned and _SCOPE_NAME.match(cleaned) else fallback
