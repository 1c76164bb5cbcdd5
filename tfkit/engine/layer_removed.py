"""Layer methods Keras 3 removed but still names: calling one says what to do instead.

layer.add_metric(value)    # NotImplementedError: track a Metric in __init__ and update it in call()
"""

from __future__ import annotations

from typing import Any


class RemovedLayerMethods:
    """Mixed into ``Layer``: tf.keras methods that Keras 3 refuses with a message, refused the same way."""

    def add_metric(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "Layer `add_metric()` method is deprecated. Add your metric in "
            "`Model.compile(metrics=[...])`, or create metric trackers in init() or build() "
            "when subclassing the layer or model, then call `metric.update_state()` whenever "
            "necessary."
        )
