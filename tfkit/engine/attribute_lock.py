"""``layer._tracker``: the attribute lock Keras 3 code unlocks before replacing a built layer's sub-layer.

    attention._tracker.locked = False                       # keras-io's LoRA example, KerasHub's guides
    attention._query_dense = LoraLayer(attention._query_dense)

Keras 3 locks a layer's attribute tracking after ``build``; code that swaps a
sub-layer in (a LoRA wrapper around an attention projection) unlocks it first.
tfkit never locks: it finds a layer's sub-layers and weights by walking its
attributes when asked, so a sub-layer set after ``build`` is tracked as any
other. The lock is kept so that such code runs, and reads back what it set.
"""

from __future__ import annotations


class AttributeLock:
    """Keras 3's tracker lock as code sees it: `locked`, `lock()` and `unlock()`, with no effect in tfkit.

    Example:
        >>> layer = tfkit.layers.Dense(2)
        >>> layer._tracker.locked = False
        >>> layer._tracker.locked
        False
    """

    def __init__(self) -> None:
        self.locked = False

    def lock(self, msg: str | None = None) -> None:
        """Marks the layer locked, as Keras does after `build` (tfkit still tracks what is set later)."""
        self.locked = True

    def unlock(self) -> None:
        """Marks the layer unlocked."""
        self.locked = False
