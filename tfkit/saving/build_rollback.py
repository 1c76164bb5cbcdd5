"""Undo a build that a failed load started, so the caller's model is as it was.

    with rollback_build_on_error(model):
        build_from_file_shapes(model)        # may build an unbuilt model ...
        load_matching_weights(model)         # ... and this may then fail: the build is undone

``load_weights`` into an unbuilt model builds it with the input shapes stored
in the file. If the load then fails (the weights do not match), the model
must not keep those shapes: every layer that was unbuilt before is marked
unbuilt again and forgets the weights, build shapes and input spec the build
gave it, so the next call on real data builds it as if nothing happened.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from tfkit.engine.layer import Layer


def _layers(model: Any) -> list[Any]:
    return [model] + [m for m in model.submodules if isinstance(m, Layer)]


@contextlib.contextmanager
def rollback_build_on_error(model: Any) -> Iterator[None]:
    """Restore the build state of every layer that was unbuilt when an exception leaves the block."""
    saved = []
    for layer in _layers(model):
        if not layer.built:
            attributes = {key: _copy(value) for key, value in vars(layer).items()}
            saved.append((layer, attributes, layer._state_snapshot()))
    try:
        yield
    except BaseException:
        for layer, attributes, state in saved:
            vars(layer).clear()  # the weights a build assigned (self.kernel = ...) go with it
            vars(layer).update(attributes)
            layer._restore_state(state)  # built, weights, build shapes, input specs (a model: traced specs)
        raise


def _copy(value: Any) -> Any:
    """Plain lists and dicts (tf.Module's dependency bookkeeping) are copied: builds append to them."""
    if type(value) in (list, dict):
        return type(value)(value)
    return value
