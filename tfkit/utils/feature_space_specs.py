"""What ``FeatureSpace`` keeps per feature and per cross: ``Feature`` and ``Cross``, with Keras 3's configs.

    age = Feature("float32", tfkit.layers.Normalization(name="age_preprocessor"), "float")
    sex_x_age = Cross(("sex", "age"), crossing_dim=32)          # name "sex_X_age"
    Feature.from_config(age.get_config())                       # the preprocessor comes back as a layer

Both serialize as Keras 3 writes them inside a FeatureSpace config
(``{"module", "class_name", "config", "registered_name"}``), and both read
such entries back: ``spec_from_entry`` finds the class by ``class_name``
("Feature" or "Cross") and nothing else.
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.engine import config_serialization
from tfkit.layers.core import Identity

__all__ = ["Feature", "Cross", "spec_entry", "spec_from_entry"]

_MODULE = "keras.src.layers.preprocessing.feature_space"  # where Keras 3 says these classes live
_FEATURE_MODES = ("int", "one_hot", "float")
_CROSS_MODES = ("int", "one_hot")


class Cross:
    """Features crossed by hashing their combined (preprocessed) values into ``crossing_dim`` bins."""

    def __init__(self, feature_names: Sequence[str], crossing_dim: int, output_mode: str = "one_hot") -> None:
        if output_mode not in _CROSS_MODES:
            raise ValueError(
                f"FeatureSpace cross {tuple(feature_names)}: expected output_mode to be one of "
                f"{list(_CROSS_MODES)}, got {output_mode!r}"
            )
        if isinstance(feature_names, str) or len(feature_names) < 2:
            raise ValueError(
                f"FeatureSpace cross: expected feature_names to be two or more feature names, got {feature_names!r}"
            )
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self) -> str:
        return "_X_".join(self.feature_names)

    def get_config(self) -> dict[str, Any]:
        return {"feature_names": self.feature_names, "crossing_dim": self.crossing_dim, "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Cross":
        return cls(**config)

    def __repr__(self) -> str:
        return f"Cross({self.feature_names}, crossing_dim={self.crossing_dim}, output_mode={self.output_mode!r})"


class Feature:
    """One input feature: its input dtype, the layer that preprocesses it, and how its output is encoded."""

    def __init__(self, dtype: str, preprocessor: Any, output_mode: str) -> None:
        if output_mode not in _FEATURE_MODES:
            raise ValueError(
                f"FeatureSpace feature: expected output_mode to be one of {list(_FEATURE_MODES)}, got {output_mode!r}"
            )
        if isinstance(preprocessor, dict):
            preprocessor = _revive_preprocessor(preprocessor)
        if not callable(preprocessor):
            raise ValueError(f"FeatureSpace feature: expected preprocessor to be a layer, got {preprocessor!r}")
        self.dtype = dtype
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self) -> dict[str, Any]:
        return {
            "dtype": self.dtype,
            "preprocessor": config_serialization.serialize(self.preprocessor),
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Feature":
        return cls(**config)

    def __repr__(self) -> str:
        return f"Feature(dtype={self.dtype!r}, preprocessor={self.preprocessor!r}, output_mode={self.output_mode!r})"


def _revive_preprocessor(entry: dict[str, Any]) -> Any:
    """A serialized layer; Keras's private ``TFDIdentity`` (its "float" features) is tfkit's ``Identity``."""
    if entry.get("class_name") == "TFDIdentity":
        config = entry.get("config") or {}
        return Identity(name=config.get("name"), dtype=config.get("dtype"))
    return config_serialization.deserialize_layer(entry)


def spec_entry(spec: Feature | Cross) -> dict[str, Any]:
    """``spec`` as Keras 3 serializes it inside a FeatureSpace config."""
    name = type(spec).__name__
    return {"module": _MODULE, "class_name": name, "config": spec.get_config(), "registered_name": name}


def spec_from_entry(entry: dict[str, Any], expected: type, where: str) -> Any:
    """A ``Feature`` or ``Cross`` back from :func:`spec_entry`'s data (or Keras 3's)."""
    name = entry.get("class_name") if isinstance(entry, dict) else None
    if name != expected.__name__ or not isinstance(entry.get("config"), dict):
        raise ValueError(
            f"FeatureSpace config: {where} should be a serialized {expected.__name__} "
            f"({{'class_name': '{expected.__name__}', 'config': {{...}}}}), got {str(entry)[:200]}"
        )
    return expected.from_config(dict(entry["config"]))
