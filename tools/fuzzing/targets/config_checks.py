"""What the two config targets share: a rebuilt model must rebuild again from its own config.

A model tfkit built from a file's config is serialized and rebuilt: the second
model must come out (no error at all, since tfkit wrote that config) with the
same config. Where a file's config and tfkit's own disagree this shows it; there
is no other reference for a config than tfkit's own reading of it.
"""

from __future__ import annotations

from typing import Any

from fuzzing.target import Finding, equal


def check_round_trip(model: Any) -> None:
    from tfkit.saving.model_config import model_from_config, serialize_model

    try:
        config = serialize_model(model)
        twin = model_from_config(config)
        again = serialize_model(twin)
    except Exception as error:  # noqa: BLE001  (tfkit's own config must rebuild: any error is a finding)
        raise Finding(
            f"a model built from this config does not rebuild from its own config: "
            f"{type(error).__name__}: {str(error)[:400]}"
        ) from error
    if not equal(config, again):
        raise Finding("a model rebuilt from its own config serializes differently")
