"""How ``FeatureSpace`` turns preprocessed features into its output: one-hot encoders and the concat.

    encoders = make_encoders(specs, preprocessors, crossers, dtypes)   # once, on the symbolic features
    merge(features, names, encoders, concat)                            # every call: a tensor or a dict

A feature (or cross) with ``output_mode="one_hot"`` is encoded by a
``CategoryEncoding(num_tokens=<its preprocessor's number of values>,
output_mode="multi_hot")``, as Keras 3 does; features come in sorted by name,
then the crosses sorted by name.
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.layers.preprocessing import CategoryEncoding, Discretization, Hashing, IntegerLookup, StringLookup
from tfkit.layers.preprocessing.hashed_crossing import HashedCrossing

__all__ = ["cardinality", "make_encoders", "check_concatenable", "merge"]


def cardinality(name: str, preprocessor: Any) -> int:
    """How many distinct ids ``preprocessor`` returns: the depth of the feature's one-hot encoding."""
    if isinstance(preprocessor, (IntegerLookup, StringLookup)):
        return preprocessor.vocabulary_size()
    if isinstance(preprocessor, CategoryEncoding):
        return preprocessor.num_tokens
    if isinstance(preprocessor, Discretization):
        if preprocessor.bin_boundaries is not None:
            return len(preprocessor.bin_boundaries) + 1
        return preprocessor.num_bins
    if isinstance(preprocessor, (HashedCrossing, Hashing)):
        return preprocessor.num_bins
    raise ValueError(
        f"FeatureSpace: feature {name!r} has output_mode='one_hot', but its preprocessor "
        f"{type(preprocessor).__name__} '{getattr(preprocessor, 'name', '?')}' is not a standard one "
        f"and the number of values it returns is not known, so it cannot be one-hot encoded. "
        f"Use output_mode='int' for it."
    )


def make_encoders(output_modes: Mapping[str, str], makers: Mapping[str, Any], dtypes: Mapping[str, Any]) -> dict:
    """A ``CategoryEncoding`` for each one-hot feature or cross, after checking it returns integer ids."""
    encoders = {}
    for name, mode in output_modes.items():
        if mode != "one_hot":
            continue
        if not dtypes[name].is_integer:
            raise ValueError(
                f"FeatureSpace: feature {name!r} has output_mode='one_hot', so its preprocessor should "
                f"return integers, but it returns {dtypes[name].name}"
            )
        encoders[name] = CategoryEncoding(num_tokens=cardinality(name, makers[name]), output_mode="multi_hot")
    return encoders


def check_concatenable(name: str, dtype: Any) -> None:
    if dtype.is_integer or dtype.name == "string":
        raise ValueError(
            f"FeatureSpace: cannot concatenate the features because feature {name!r} is not encoded "
            f"(it has dtype {dtype.name}). Use output_mode='dict', or output_mode='one_hot' for it."
        )


def merge(features: Mapping[str, Any], names: list[str], encoders: Mapping[str, Any], concat: Any) -> Any:
    """The encoded features: one tensor (``concat`` given) or a dict keyed by feature and cross names."""
    encoded = {}
    for name in names:
        encoder = encoders.get(name)
        encoded[name] = encoder(features[name]) if encoder is not None else features[name]
    if concat is None:
        return encoded
    return concat([encoded[name] for name in names])
