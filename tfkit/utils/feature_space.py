"""``FeatureSpace``: preprocess and encode structured data (a dict of features) in one object, as Keras 3.

    space = tfkit.utils.FeatureSpace({"age": "float_discretized", "city": "string_categorical"},
                                     crosses=[("age", "city")])
    space.adapt(dataset_of_dicts); vectors = dataset.map(lambda x, y: (space(x), y))
    model = tfkit.Model(space.get_inputs(), tfkit.layers.Dense(1)(space.get_encoded_features()))

Each feature has a preprocessing layer (Normalization, Discretization,
StringLookup, IntegerLookup, Hashing, Rescaling, or your own); crosses hash the
preprocessed values of two or more features with ``HashedCrossing``; one-hot
features are encoded with ``CategoryEncoding``; ``output_mode="concat"`` joins
everything (features sorted by name, then crosses) into one vector per sample,
``"dict"`` returns each encoded feature under its name. Calling the space on
symbolic inputs (as ``get_encoded_features`` does) records its layers' calls,
so models built from it hold those layers, save to ``.keras``/``.h5`` and
export like any other.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.base.symbolic import is_symbolic
from tfkit.engine.functional_graph import Input
from tfkit.engine.layer import Layer
from tfkit.layers.merging import Concatenate
from tfkit.layers.preprocessing import Normalization, TextVectorization
from tfkit.layers.preprocessing.hashed_crossing import HashedCrossing
from tfkit.utils import feature_space_encoding as encoding
from tfkit.utils.feature_space_kinds import FeatureKinds
from tfkit.utils.feature_space_specs import Cross, Feature, spec_entry, spec_from_entry

__all__ = ["FeatureSpace"]


@registry.builtin("layers")
class FeatureSpace(FeatureKinds, Layer):
    """One-stop utility for preprocessing and encoding structured data (a dict of features).

    Keras 3's `keras.utils.FeatureSpace`. Each feature gets a preprocessing
    layer (`Normalization`, `Discretization`, `StringLookup`,
    `IntegerLookup`, `Hashing`, `Rescaling`, or your own), made from a type
    name (`"float"`, `"float_rescaled"`, `"float_normalized"`,
    `"float_discretized"`, `"integer_categorical"`, `"string_categorical"`,
    `"integer_hashed"`, `"string_hashed"`) or a class method such as
    `FeatureSpace.string_categorical(max_tokens=10)`. Crosses hash the
    preprocessed values of two or more features together (`HashedCrossing`);
    categorical features are one-hot encoded. Call `adapt` on the training
    data, then call the space on a dict of features (in a `tf.data`
    pipeline), or build a model from `get_inputs()` and
    `get_encoded_features()`, which then holds the preprocessing layers and
    saves and exports like any other.

    Args:
        features: Dict mapping each feature name to its type name or to a
            feature made by a class method (`FeatureSpace.float_normalized()`,
            ...).
        output_mode: `"concat"` (one vector per sample: the features sorted by
            name, then the crosses) or `"dict"` (each encoded feature under its
            name). Defaults to `"concat"`.
        crosses: Optional list of crosses: tuples of feature names, or
            `FeatureSpace.cross(...)` objects. Defaults to `None`.
        crossing_dim: The size of the hashing space of crosses given as
            name tuples. Defaults to `32`.
        hashing_dim: The number of hashing bins of the `"*_hashed"` type
            names. Defaults to `32`.
        num_discretization_bins: The number of bins of `"float_discretized"`.
            Defaults to `32`.
        name: Optional name of the layer. Defaults to `None`.

    Raises:
        ValueError: If `features` is empty or holds an unknown type,
            `output_mode` is invalid, or a cross names an unknown feature.

    Example:
        >>> data = {"age": np.array([20.0, 30.0, 40.0, 50.0]), "city": np.array(["a", "b", "a", "c"])}
        >>> space = tfkit.utils.FeatureSpace({"age": "float_normalized", "city": "string_categorical"})
        >>> space.adapt(data)
        >>> encoded = space({"age": np.array([30.0]), "city": np.array(["b"])})
        >>> encoded.shape
        TensorShape([1, 5])
        >>> np.round(encoded.numpy()[0, 0], 4)
        np.float32(-0.4472)
    """

    def __init__(
        self,
        features: Mapping[str, Any],
        output_mode: str = "concat",
        crosses: Sequence[Any] | None = None,
        crossing_dim: int = 32,
        hashing_dim: int = 32,
        num_discretization_bins: int = 32,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        if not features or not isinstance(features, Mapping):
            raise ValueError(
                f"FeatureSpace: expected `features` to be a non-empty dict of feature names to "
                f"feature types, got {features!r}"
            )
        if output_mode not in ("dict", "concat"):
            raise ValueError(f"FeatureSpace: expected output_mode to be one of ['dict', 'concat'], got {output_mode!r}")
        self.crossing_dim, self.hashing_dim = crossing_dim, hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.output_mode = output_mode
        self.features = {key: self._standardize_feature(key, value) for key, value in features.items()}
        self.crosses = [self._standardize_cross(cross) for cross in crosses or []]
        self.crosses_by_name = {cross.name: cross for cross in self.crosses}
        self.inputs = {key: Input(shape=(1,), dtype=feature.dtype, name=key) for key, feature in self.features.items()}
        self.preprocessors = {key: feature.preprocessor for key, feature in self.features.items()}
        self.crossers = {cross.name: HashedCrossing(cross.crossing_dim, name=cross.name) for cross in self.crosses}
        self.one_hot_encoders: dict[str, Layer] = {}
        self.concat: Layer | None = None
        self.encoded_features: Any = None
        self._output_names = sorted(self.features) + sorted(self.crosses_by_name)
        self._is_adapted = False
        self._sublayers_built = False

    # -- specification

    def _standardize_feature(self, key: str, value: Any) -> Feature:
        if isinstance(value, Feature):
            return value
        if isinstance(value, dict):
            return spec_from_entry(value, Feature, f"feature {key!r}")
        if isinstance(value, str):
            return self._shorthand_feature(key, value, self.hashing_dim, self.num_discretization_bins)
        raise ValueError(
            f"FeatureSpace: feature {key!r} should be a Feature (e.g. FeatureSpace.float_normalized()) "
            f"or a type name such as 'float_normalized', got {value!r}"
        )

    def _standardize_cross(self, cross: Any) -> Cross:
        if isinstance(cross, dict):
            cross = spec_from_entry(cross, Cross, "a cross")
        if not isinstance(cross, Cross):
            if not self.crossing_dim:
                raise ValueError(
                    "FeatureSpace: crosses given as feature names need crossing_dim (the size of the "
                    f"crossing space), got crossing_dim={self.crossing_dim!r}"
                )
            cross = Cross(cross, crossing_dim=self.crossing_dim)
        unknown = [key for key in cross.feature_names if key not in self.features]
        if unknown:
            raise ValueError(
                f"FeatureSpace: cross {cross.feature_names} names features that are not in `features`: "
                f"{unknown}; known features: {sorted(self.features)}"
            )
        return cross

    # -- adapting

    def _list_adaptable_preprocessors(self) -> list[str]:
        names = []
        for key, layer in self.preprocessors.items():
            if isinstance(layer, Normalization) and layer.input_mean is not None:
                continue  # mean and variance were given
            if isinstance(layer, TextVectorization) and layer.get_vocabulary(include_special_tokens=False):
                continue  # a vocabulary was given
            if getattr(layer, "num_bins", 0) is None and getattr(layer, "bin_boundaries", None) is not None:
                continue  # a Discretization with fixed boundaries
            if hasattr(layer, "adapt"):
                names.append(key)
        return names

    def adapt(self, dataset: Any) -> None:
        """Adapts every adaptable preprocessor (vocabularies, means, bins) to its feature in the data.

        Unbatched data is batched by 32 first, as Keras does.

        Args:
            dataset: A `tf.data.Dataset` of dicts (batched or not), or a dict
                of arrays.

        Raises:
            ValueError: If the data is not dicts, or lacks a feature.
        """
        if not isinstance(dataset, tf.data.Dataset):
            if not isinstance(dataset, dict):
                raise ValueError(
                    f"FeatureSpace.adapt() takes a tf.data.Dataset of dicts or a dict of arrays, got "
                    f"{type(dataset).__name__}"
                )
            dataset = tf.data.Dataset.from_tensor_slices(dataset)
        spec = dataset.element_spec
        if not isinstance(spec, dict):
            raise ValueError(
                f"FeatureSpace.adapt(): the dataset should yield dicts of features (no labels: use "
                f"dataset.map(lambda x, y: x)), got elements of {spec}"
            )
        for key in self._list_adaptable_preprocessors():
            if key not in spec:
                raise ValueError(f"FeatureSpace.adapt(): feature {key!r} is not in the dataset; it has {sorted(spec)}")
            column = dataset.map(lambda x, key=key: x[key])
            rank = spec[key].shape.rank
            if rank == 0:
                column = column.batch(32)
            if rank in (0, 1):
                column = column.map(lambda x: tf.expand_dims(x, -1))
            self.preprocessors[key].adapt(column)
        self._is_adapted = True
        self.get_encoded_features()
        self.built = True

    def _check_if_adapted(self) -> None:
        if not self._is_adapted:
            if self._list_adaptable_preprocessors():
                raise ValueError(
                    f"FeatureSpace '{self.name}': call .adapt(dataset) before using it (features to "
                    f"adapt: {self._list_adaptable_preprocessors()})"
                )
            self._is_adapted = True

    def _check_if_built(self) -> None:
        if not self._sublayers_built:
            self._check_if_adapted()
            self.get_encoded_features()

    # -- the symbolic graph

    def get_inputs(self) -> dict[str, Any]:
        """One ``tfkit.Input(shape=(1,))`` per feature, named after it, with the feature's dtype."""
        self._check_if_built()
        return self.inputs

    def get_encoded_features(self) -> Any:
        """The encoded features as symbolic tensors of :meth:`get_inputs` (a tensor, or a dict in dict mode)."""
        self._check_if_adapted()
        if self.encoded_features is None:
            self.encoded_features = self._encode(self.inputs)
        return self.encoded_features

    def _preprocess(self, data: Mapping[str, Any]) -> dict[str, Any]:
        values = {key: self.preprocessors[key](data[key]) for key in self.features}
        for cross in self.crosses:
            values[cross.name] = self.crossers[cross.name]([values[key] for key in cross.feature_names])
        return values

    def _encode(self, data: Mapping[str, Any]) -> Any:
        values = self._preprocess(data)
        if not self._sublayers_built:
            self._build_encoders(values)
        return encoding.merge(values, self._output_names, self.one_hot_encoders, self.concat)

    def _build_encoders(self, values: Mapping[str, Any]) -> None:
        modes = {key: feature.output_mode for key, feature in self.features.items()}
        modes.update({cross.name: cross.output_mode for cross in self.crosses})
        makers = {**self.preprocessors, **self.crossers}
        dtypes = {key: tf.as_dtype(tf.nest.flatten(value)[0].dtype) for key, value in values.items()}
        self.one_hot_encoders = encoding.make_encoders(modes, makers, dtypes)
        if self.output_mode == "concat":
            for key in self._output_names:
                if key not in self.one_hot_encoders:
                    encoding.check_concatenable(key, dtypes[key])
            self.concat = Concatenate(axis=-1)
        self._sublayers_built = True

    # -- calls

    def __call__(self, data: Mapping[str, Any]) -> Any:
        """Encode a dict of features: batched (``(batch,)`` or ``(batch, 1)`` values) or one sample (scalars)."""
        self._check_if_built()
        if not isinstance(data, Mapping):
            raise ValueError(
                f"FeatureSpace '{self.name}' can only be called on a dict of features, got {type(data).__name__}"
            )
        missing = [key for key in self.features if key not in data]
        unknown = [key for key in data if key not in self.features]
        if missing or unknown:
            raise ValueError(
                f"FeatureSpace '{self.name}' expects the features {sorted(self.features)}; "
                f"missing: {missing}, unknown: {unknown}"
            )
        if any(is_symbolic(value) for value in data.values()):
            return self._encode(data)
        tensors, rebatched = {}, False
        for key, value in data.items():
            tensor = self._to_tensor(key, value)
            if tensor.shape.rank == 0:
                tensor, rebatched = tf.reshape(tensor, (1, 1)), True
            elif tensor.shape.rank == 1:
                tensor = tf.expand_dims(tensor, -1)
            tensors[key] = tensor
        merged = self._encode(tensors)
        if rebatched:
            if self.output_mode == "concat":
                return tf.squeeze(merged, axis=0)
            return {
                key: tf.squeeze(x, axis=0) if x.shape.rank == 2 and x.shape[0] == 1 else x for key, x in merged.items()
            }
        return merged

    def _to_tensor(self, key: str, value: Any) -> tf.Tensor:
        if isinstance(value, (tf.SparseTensor, tf.RaggedTensor)):
            raise ValueError(
                f"FeatureSpace '{self.name}': feature {key!r} should be a dense tensor, got {type(value).__name__}"
            )
        tensor = (
            value
            if isinstance(value, tf.Tensor)
            else tf.convert_to_tensor(
                value if isinstance(value, (list, tuple, int, float, str, bytes)) else np.asarray(value)
            )
        )
        if self.features[key].dtype == "float32" and tensor.dtype != tf.string and tensor.dtype != tf.float32:
            tensor = tf.cast(tensor, tf.float32)  # as the model's float32 Input would
        return tensor

    # -- config

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "features": {key: spec_entry(feature) for key, feature in self.features.items()},
            "output_mode": self.output_mode,
            "crosses": [spec_entry(cross) for cross in self.crosses],
            "crossing_dim": self.crossing_dim,
            "hashing_dim": self.hashing_dim,
            "num_discretization_bins": self.num_discretization_bins,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "FeatureSpace":
        config = {key: value for key, value in config.items() if key not in ("trainable", "dtype")}
        return cls(**config)
