"""A layer's weights as lists, counts and NumPy arrays: the views ``Layer`` inherits.

    layer.trainable_weights      # trainable floating weights of trainable layers
    layer.get_weights()          # [kernel, bias] as NumPy arrays
    layer.set_weights(values)    # every shape checked before any weight changes

``LayerWeights`` reads a layer's state (``_st``: ``LayerState``) and walks its
sub-layers through ``tracking``; ``add_weight``, which creates the weights,
stays in ``Layer``. It is a mixin of ``Layer`` only.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import variable_roles
from tfkit.engine import tracking


def _parts(weight: Any) -> list[Any]:
    """A weight split over parameter servers (``tf.distribute``'s ShardedVariable): its parts; else itself."""
    return list(weight.variables) if isinstance(weight, tf.__internal__.distribute.ShardedVariable) else [weight]


def _is_weight(owner: Any, variable: tf.Variable) -> bool:
    return not variable_roles.is_state_owner(owner)


class LayerWeights:
    """The weight views of ``Layer``: ``weights``, ``trainable_weights``, ``get_weights`` ... (see ``Layer``)."""

    @property
    def trainable(self) -> bool:
        """Whether the layer's weights are trained; setting it sets it on every sub-layer too."""
        return self._st.trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._st.trainable = bool(value)
        for layer in tracking.flatten_layers(self, include_self=False):
            layer._st.trainable = bool(value)

    @property
    def weights(self) -> list[tf.Variable]:
        """Every weight of this layer and its sub-layers, own weights first."""
        return list(tracking.variable_paths(self, include=_is_weight).values())

    @property
    def trainable_weights(self) -> list[tf.Variable]:
        """The weights that training updates: trainable floating variables of trainable layers.

        A weight split by a `ParameterServerStrategy` `variable_partitioner` is listed as its parts (one
        variable per parameter server), which gradients and the optimizer update one by one.
        """
        if not self._st.trainable:  # as Keras: a frozen layer trains nothing, whatever its sub-layers say
            return []
        frozen = self._frozen_ids()  # once: a walk over every sub-layer's weights
        return [
            part
            for w in self.weights
            if id(w) not in frozen
            for part in _parts(w)
            if part.trainable and part.dtype.is_floating
        ]

    @property
    def non_trainable_weights(self) -> list[tf.Variable]:
        """The weights that training does not update (such as `BatchNormalization`'s moving statistics)."""
        trainable = {id(w) for w in self.trainable_weights}
        return [w for w in self.weights if not any(id(part) in trainable for part in _parts(w))]

    def _frozen_ids(self) -> set[int]:
        """The weights a non-trainable layer holds itself (not through a sub-layer), and those frozen one by one.

        As in Keras 3, where `trainable` is a flag of each variable: `outer.trainable = False` freezes the
        sub-layers too, and a sub-layer set trainable again afterwards (KerasHub's `enable_lora` does this to
        the attention's query and value) trains its weights.
        """
        frozen: set[int] = set()
        for layer in tracking.flatten_layers(self):
            frozen.update(layer._st.frozen_weights)
            if not layer._st.trainable:
                held_below = {id(w) for _, child in tracking.children(layer) for w in child.weights}
                frozen.update(id(w) for w in layer.weights if id(w) not in held_below)
        return frozen

    def _set_weight_trainable(self, variable: tf.Variable, trainable: bool) -> None:
        """Keras's ``variable.trainable = ...`` for an own weight (a tf.Variable's flag is fixed at creation)."""
        kept = [i for i in self._st.frozen_weights if i != id(variable)]
        self._st.frozen_weights = kept if trainable else kept + [id(variable)]

    # tf.Module's own views follow the layer's (so frozen layers are frozen there too).
    @property
    def trainable_variables(self) -> Sequence[tf.Variable]:
        """`trainable_weights`, as a tuple (`tf.Module`'s name)."""
        return tuple(self.trainable_weights)

    @property
    def non_trainable_variables(self) -> Sequence[tf.Variable]:
        """Every variable that is not in `trainable_weights`, as a tuple."""
        trainable = {id(v) for v in self.trainable_weights}
        return tuple(v for v in self.variables if id(v) not in trainable)

    @property
    def variables(self) -> Sequence[tf.Variable]:
        """Weights plus other state (random-generator seeds, optimizer-free counters)."""
        return tuple(tracking.variable_paths(self).values())

    def weight_paths(self) -> dict[str, tf.Variable]:
        """``{"encoder/dense_proj/kernel": variable, ...}`` for every weight."""
        return tracking.variable_paths(self, include=_is_weight)

    def count_params(self) -> int:
        """Counts the scalars in all the layer's weights.

        Returns:
            An integer, the number of parameters.

        Example:
            >>> layer = tfkit.layers.Dense(2)
            >>> layer.build((None, 3))
            >>> layer.count_params()
            8
        """
        return int(sum(np.prod(w.shape) for w in self.weights))

    def get_weights(self) -> list[np.ndarray]:
        """Returns the current values of the layer's weights, as NumPy arrays.

        Returns:
            A list of NumPy arrays, in the order of `weights`.

        Example:
            >>> layer = tfkit.layers.Dense(2, kernel_initializer="ones")
            >>> layer.build((None, 3))
            >>> [w.shape for w in layer.get_weights()]
            [(3, 2), (2,)]
        """
        return [w.numpy() for w in self.weights]

    def set_weights(self, values: Sequence[Any]) -> None:
        """Sets the values of the layer's weights from NumPy arrays.

        All shapes are checked before any weight changes.

        Args:
            values: A list of arrays, one per weight in the order of
                `weights` (as `get_weights` returns them).

        Raises:
            ValueError: If the number of values or a shape does not match.

        Example:
            >>> layer = tfkit.layers.Dense(2)
            >>> layer.build((None, 3))
            >>> layer.set_weights([np.ones((3, 2)), np.zeros(2)])
            >>> layer(np.ones((1, 3)))
            <tf.Tensor: shape=(1, 2), dtype=float32, numpy=array([[3., 3.]], dtype=float32)>
        """
        paths = self.weight_paths()
        if len(values) != len(paths):
            raise ValueError(
                f"Layer '{self.name}' has {len(paths)} weights ({', '.join(paths)}), got {len(values)} values"
            )
        arrays = [np.asarray(v) for v in values]
        for (path, variable), array in zip(paths.items(), arrays):
            if tuple(variable.shape) != array.shape:
                raise ValueError(
                    f"Layer '{self.name}': weight '{path}' has shape {tuple(variable.shape)}, "
                    f"got a value of shape {array.shape}"
                )
        for variable, array in zip(paths.values(), arrays):
            variable.assign(array)
