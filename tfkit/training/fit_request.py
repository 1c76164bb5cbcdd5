"""``fit``'s arguments as one object, checked and capped once, read by name wherever they are needed.

    request = FitRequest.checked(x=x, y=y, epochs=10, batch_size=32, ...)   # ValueError for a bad count
    request.epochs, request.steps_per_epoch                                  # after tfkit.config's caps
    data, val_data = fit_data(request, check, finite)                        # trainer.py

``Trainer.fit`` builds it from its arguments; the data adapters, the
parameter-server path (``distributed_loops.fit_data_on_workers``) and the
epoch loop read its fields by name, so a new ``fit`` argument is one field
here, not a parameter threaded through every call.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tfkit.training.debug_caps import capped
from tfkit.training.fit_arguments import check_loop_arguments


@dataclasses.dataclass(frozen=True)
class FitRequest:
    """The arguments of one ``fit`` call (Keras 3's names and meanings; see ``Trainer.fit``)."""

    x: Any = None
    y: Any = None
    batch_size: int | None = None
    epochs: int = 1
    verbose: Any = "auto"
    callbacks: Any = None
    validation_split: float = 0.0
    validation_data: Any = None
    shuffle: Any = True
    class_weight: Any = None
    sample_weight: Any = None
    initial_epoch: int = 0
    steps_per_epoch: int | None = None
    validation_steps: int | None = None
    validation_batch_size: int | None = None
    validation_freq: int = 1
    check_finite: bool = True

    @classmethod
    def checked(cls, **arguments: Any) -> "FitRequest":
        """The request for ``fit(**arguments)``: counts checked, then ``tfkit.config``'s caps applied.

        Raises ``ValueError`` naming the argument for a count or fraction ``fit`` cannot run with.
        """
        request = cls(**arguments)
        check_loop_arguments(
            "fit",
            batch_size=request.batch_size,
            epochs=request.epochs,
            validation_split=request.validation_split,
            initial_epoch=request.initial_epoch,
            steps_per_epoch=request.steps_per_epoch,
            validation_steps=request.validation_steps,
            validation_batch_size=request.validation_batch_size,
            validation_freq=request.validation_freq,
        )
        epochs, caps = capped(
            "fit",
            request.epochs,
            {
                "steps_per_epoch": request.steps_per_epoch,
                "validation_steps": request.validation_steps,
                "validation_data": request.validation_data,
                "validation_split": request.validation_split,
            },
        )
        return dataclasses.replace(
            request, epochs=epochs, steps_per_epoch=caps["steps_per_epoch"], validation_steps=caps["validation_steps"]
        )
