"""What an outer layer call hands to the layers it calls: the training flag.

    with call_context.enter(root_layer, training=True):
        call_context.current().training  # -> True, for every nested layer

The stack is thread-local, so layers called from different threads (for
example replicas of a ``tf.distribute`` strategy) never see each other's
flags.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

_local = threading.local()


class CallContext:
    """One frame per layer call: the layer, and the resolved training flag."""

    __slots__ = ("layer", "training")

    def __init__(self, layer: Any, training: Any) -> None:
        self.layer = layer
        self.training = training


def _stack() -> list[CallContext]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current() -> CallContext | None:
    """The innermost active call, or ``None`` outside any layer call."""
    stack = _stack()
    return stack[-1] if stack else None


def outermost() -> CallContext | None:
    """The outermost active call (the layer a user called), or ``None``."""
    stack = _stack()
    return stack[0] if stack else None


@contextlib.contextmanager
def enter(layer: Any, training: Any) -> Iterator[CallContext]:
    """Push a frame for ``layer``'s call for the duration of the block."""
    stack = _stack()
    frame = CallContext(layer, training)
    stack.append(frame)
    try:
        yield frame
    finally:
        stack.pop()
