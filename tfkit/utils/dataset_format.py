"""The ``format`` / ``preferred_backend`` arguments Keras 3.15's dataset utilities take.

    dataset_format.check_format(format, "image_dataset_from_directory")   # "tf" passes
    dataset_format.check_backend(preferred_backend, "split_dataset")       # None or "tensorflow" passes

Keras can also return Grain datasets (``format="grain"``) or split with another backend's
dataset classes; tfkit is TensorFlow only and always builds ``tf.data.Dataset``s, so those
values are refused with the reason instead of being ignored.
"""

from __future__ import annotations

from typing import Any


def check_format(format: Any, who: str) -> None:  # noqa: A002  (Keras's argument name)
    if format == "tf":
        return
    if format == "grain":
        raise ValueError(
            f"{who}: format='grain' returns a Grain dataset in Keras (its JAX/PyTorch data path); "
            f"tfkit builds tf.data datasets only: use format='tf'"
        )
    raise ValueError(f"{who}: format must be 'tf' (or Keras's 'grain', which tfkit does not offer), got {format!r}")


def check_backend(preferred_backend: Any, who: str) -> None:
    if preferred_backend in (None, "tensorflow"):
        return
    raise ValueError(
        f"{who}: preferred_backend must be None or 'tensorflow' (tfkit splits into tf.data "
        f"datasets), got {preferred_backend!r}"
    )
