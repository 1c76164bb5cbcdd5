"""The feature kinds of ``FeatureSpace``: its static constructors and the string shorthands they stand for.

    FeatureSpace.float_normalized()                       # Normalization, output as floats
    FeatureSpace.string_categorical(max_tokens=10)        # StringLookup, one-hot encoded
    FeatureSpace(features={"age": "float_discretized"})   # the shorthand: the kind with the space's defaults

Each constructor returns a ``Feature`` (input dtype, preprocessing layer,
output mode) with Keras 3's arguments and defaults; the preprocessing layer is
named ``"<name>_preprocessor"`` (``name`` defaults to an automatic one).
"""

from __future__ import annotations

from typing import Any, Sequence

from tfkit.engine.naming import unique_name
from tfkit.layers.core import Identity
from tfkit.layers.preprocessing import Discretization, Hashing, IntegerLookup, Normalization, Rescaling, StringLookup
from tfkit.utils.feature_space_specs import Cross, Feature

__all__ = ["FeatureKinds", "SHORTHANDS"]

SHORTHANDS = (
    "float",
    "float_rescaled",
    "float_normalized",
    "float_discretized",
    "integer_categorical",
    "string_categorical",
    "integer_hashed",
    "string_hashed",
)


def _name(name: str | None, kind: str) -> str:
    return name or unique_name(kind)


class FeatureKinds:
    """``FeatureSpace``'s class methods that make features and crosses (Keras 3's names and defaults)."""

    @classmethod
    def cross(cls, feature_names: Sequence[str], crossing_dim: int, output_mode: str = "one_hot") -> Cross:
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype: str, preprocessor: Any, output_mode: str) -> Feature:
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name: str | None = None) -> Feature:
        name = _name(name, "float")
        return Feature("float32", Identity(name=f"{name}_preprocessor", dtype="float32"), "float")

    @classmethod
    def float_rescaled(cls, scale: float = 1.0, offset: float = 0.0, name: str | None = None) -> Feature:
        name = _name(name, "float_rescaled")
        return Feature("float32", Rescaling(scale=scale, offset=offset, name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_normalized(cls, name: str | None = None) -> Feature:
        name = _name(name, "float_normalized")
        return Feature("float32", Normalization(axis=-1, name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_discretized(
        cls,
        num_bins: int | None = None,
        bin_boundaries: Sequence[float] | None = None,
        output_mode: str = "one_hot",
        name: str | None = None,
    ) -> Feature:
        """``num_bins`` bins adapted to the data, or fixed ``bin_boundaries`` (then ``num_bins`` is left out:
        Keras 3 refuses the pair in its Discretization layer, so there only adapted bins work)."""
        name = _name(name, "float_discretized")
        if bin_boundaries is not None:
            layer = Discretization(bin_boundaries=bin_boundaries, name=f"{name}_preprocessor")
        else:
            layer = Discretization(num_bins=num_bins, name=f"{name}_preprocessor")
        return Feature("float32", layer, output_mode)

    @classmethod
    def integer_categorical(
        cls,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        output_mode: str = "one_hot",
        name: str | None = None,
    ) -> Feature:
        name = _name(name, "integer_categorical")
        layer = IntegerLookup(name=f"{name}_preprocessor", max_tokens=max_tokens, num_oov_indices=num_oov_indices)
        return Feature("int32", layer, output_mode)

    @classmethod
    def string_categorical(
        cls,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        output_mode: str = "one_hot",
        name: str | None = None,
    ) -> Feature:
        name = _name(name, "string_categorical")
        layer = StringLookup(name=f"{name}_preprocessor", max_tokens=max_tokens, num_oov_indices=num_oov_indices)
        return Feature("string", layer, output_mode)

    @classmethod
    def string_hashed(cls, num_bins: int, output_mode: str = "one_hot", name: str | None = None) -> Feature:
        name = _name(name, "string_hashed")
        return Feature("string", Hashing(name=f"{name}_preprocessor", num_bins=num_bins), output_mode)

    @classmethod
    def integer_hashed(cls, num_bins: int, output_mode: str = "one_hot", name: str | None = None) -> Feature:
        name = _name(name, "integer_hashed")
        return Feature("int32", Hashing(name=f"{name}_preprocessor", num_bins=num_bins), output_mode)

    def _shorthand_feature(self, name: str, kind: str, hashing_dim: int, num_discretization_bins: int) -> Feature:
        """The feature a string shorthand names, with the space's ``hashing_dim`` and bins."""
        if kind == "float_discretized":
            return self.float_discretized(num_bins=num_discretization_bins, name=name)
        if kind in ("integer_hashed", "string_hashed"):
            return getattr(self, kind)(hashing_dim, name=name)
        if kind in SHORTHANDS:
            return getattr(self, kind)(name=name)
        raise ValueError(
            f"FeatureSpace: feature {name!r} has an unknown type {kind!r}; expected a Feature (e.g. "
            f"FeatureSpace.float_normalized()) or one of {list(SHORTHANDS)}"
        )
