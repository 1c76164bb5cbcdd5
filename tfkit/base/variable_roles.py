"""What tfkit records about a variable beyond TensorFlow's own: its short name, whether calls cast it, and state.

    variable = mark_weight(tf.Variable(0.0), name="kernel", autocast=True)
    short_name(variable)                       # "kernel" (TensorFlow's name is "dense/kernel:0")
    class SeedGenerator(StateOwner): ...       # the variables of such a module are state, never weights

These are the only functions that read or write the marks: every other
module asks through them.
"""

from __future__ import annotations

from typing import Any

_NAME = "_tfkit_short_name"
_AUTOCAST = "_tfkit_autocast"


class StateOwner:
    """Marker base class: a module whose variables are state (seeds, counters, RNN states), not weights.

    A layer does not list the variables of a `StateOwner` it holds (such as a
    `tfkit.random.SeedGenerator`) in its `weights`, so they are neither
    trained nor counted as parameters; they are still in `variables` and in
    checkpoints.

    Example:
        >>> class Noisy(tfkit.Layer):
        ...     def __init__(self, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.seed_generator = tfkit.random.SeedGenerator(1)
        ...     def call(self, x):
        ...         return x + tfkit.random.normal(tf.shape(x), seed=self.seed_generator)
        >>> layer = Noisy()
        >>> isinstance(layer.seed_generator, tfkit.random.StateOwner)
        True
        >>> len(layer.weights), len(layer.variables)
        (0, 1)
    """


def is_state_owner(module: Any) -> bool:
    return isinstance(module, StateOwner)


def mark_weight(variable: Any, name: str, autocast: bool = True) -> Any:
    """Record ``variable``'s short name and whether a layer's ``call`` casts it to the compute dtype."""
    object.__setattr__(variable, _NAME, name)
    object.__setattr__(variable, _AUTOCAST, bool(autocast))
    return variable


def short_name(variable: Any, default: str | None = None) -> str:
    """The name ``add_weight`` gave (``"kernel"``); else ``default``, else TensorFlow's name."""
    name = getattr(variable, _NAME, None)
    if name is not None:
        return name
    return default if default is not None else variable.name


def casts_in_call(variable: Any) -> bool:
    """False for a weight created with ``add_weight(autocast=False)``: ``call`` sees it in its own dtype."""
    return getattr(variable, _AUTOCAST, True)
