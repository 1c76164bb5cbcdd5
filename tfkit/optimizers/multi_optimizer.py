"""``MultiOptimizer``: each variable updated by the optimizer an ``OptimizerMap`` (or a function) picks.

    optimizer_map = tfkit.optimizers.OptimizerMap(tfkit.optimizers.SGD(), {"encoder/.*": tfkit.optimizers.Adam()})
    model.compile(optimizer=tfkit.optimizers.MultiOptimizer(optimizer_map), loss="mse")
    [type(o).__name__ for o in model.optimizer.optimizers]   # ["Adam", "SGD"]

Keras 3's names, arguments and config. A map key is a variable path or a
regular expression matched in full against it; a tfkit variable's path is its
name without ``:0`` (``encoder/dense/kernel``). Each inner optimizer keeps its
own learning rate, slots and ``iterations``; the ``MultiOptimizer`` counts its
own steps, and ``variables`` lists its own, then each inner optimizer's.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any, Callable, Iterator, Mapping, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.engine import config_serialization
from tfkit.optimizers.base import Optimizer
from tfkit.optimizers.loss_scale import LossScaleOptimizer
from tfkit.optimizers.variable_path import variable_path


def _check_inner(optimizer: Any, where: str) -> None:
    if not isinstance(optimizer, Optimizer):
        raise ValueError(f"{where} must be a tfkit optimizer instance, got {type(optimizer).__name__}: {optimizer!r}")
    if isinstance(optimizer, LossScaleOptimizer):
        raise ValueError(f"{where} cannot be a LossScaleOptimizer: wrap the MultiOptimizer in one instead")
    if isinstance(optimizer, MultiOptimizer):
        raise ValueError(f"{where} cannot be a MultiOptimizer: list its entries in this map instead")


class OptimizerMap(MutableMapping):
    """A mapping of variable paths (or patterns) to optimizers, with a default.

    `MultiOptimizer` asks it which optimizer updates each variable. A key is a
    variable path or a regular expression matched in full (`re.fullmatch`) against the
    path; a tfkit variable's path is its name without `:0` (`encoder/dense/kernel`). An
    exact key wins, else the one pattern that matches; two matching patterns are an
    error, and variables no key matches go to `default_optimizer`. It is a mutable
    mapping: keys can be added (once each) and deleted. Calling it with a variable
    returns that variable's optimizer. Keras 3's names, arguments and config.

    Args:
        default_optimizer: The optimizer (an `Optimizer` instance) of variables no key
            matches.
        optimizer_map: Optional `dict` of `{path or pattern: optimizer}`. Each optimizer
            must be an `Optimizer` instance, not a `LossScaleOptimizer` or
            `MultiOptimizer`. Defaults to `None` (no entries).

    Raises:
        TypeError: If `default_optimizer` is not an `Optimizer` instance, or
            `optimizer_map` is not a `dict`.
        ValueError: If a key is not a string or not a valid regular expression, is
            already present, or maps to something other than a plain optimizer; when
            looked up, if several patterns match a path.

    Example:
        >>> sgd, adam = tfkit.optimizers.SGD(), tfkit.optimizers.Adam()
        >>> optimizer_map = tfkit.optimizers.OptimizerMap(sgd, {"encoder/.*": adam})
        >>> optimizer_map["encoder/dense/kernel"] is adam
        True
        >>> optimizer_map["decoder/dense/kernel"] is sgd
        True
    """

    def __init__(self, default_optimizer: Optimizer, optimizer_map: dict[str, Optimizer] | None = None) -> None:
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError(
                f"OptimizerMap: default_optimizer must be a tfkit optimizer instance, got "
                f"{type(default_optimizer).__name__}: {default_optimizer!r}"
            )
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(
                f"OptimizerMap: optimizer_map must be a dict of path patterns to optimizers, got "
                f"{type(optimizer_map).__name__}: {optimizer_map!r}"
            )
        self._default_optimizer = default_optimizer
        self._optimizer_map: dict[str, Optimizer] = {}
        for key, optimizer in (optimizer_map or {}).items():
            self[key] = optimizer

    @property
    def default_optimizer(self) -> Optimizer:
        return self._default_optimizer

    def __getitem__(self, key: str) -> Optimizer:
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [pattern for pattern in self._optimizer_map if re.fullmatch(pattern, key)]
        if len(matching) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key!r}: patterns {matching} all match it")
        return self._optimizer_map[matching[0]] if matching else self._default_optimizer

    def __setitem__(self, key: str, optimizer: Optimizer) -> None:
        if not isinstance(key, str):
            raise ValueError(f"OptimizerMap: a key must be a string (a variable path or pattern), got {key!r}")
        if key in self._optimizer_map:
            raise ValueError(f"OptimizerMap: {key!r} already maps to {self._optimizer_map[key]!r}; keys are unique")
        try:
            re.compile(key)
        except re.error as error:
            raise ValueError(f"OptimizerMap: key {key!r} is not a regular expression ({error})") from None
        _check_inner(optimizer, f"OptimizerMap[{key!r}]")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key: str) -> None:
        del self._optimizer_map[key]

    def __len__(self) -> int:
        return len(self._optimizer_map)

    def __iter__(self) -> Iterator[str]:
        return iter(self._optimizer_map)

    def __call__(self, variable: Any) -> Optimizer:
        """The optimizer of ``variable``, by its path."""
        return self[variable_path(variable)]

    def get_config(self) -> dict[str, Any]:
        return {
            "default_optimizer": config_serialization.serialize(self._default_optimizer),
            "optimizer_map": {key: config_serialization.serialize(value) for key, value in self._optimizer_map.items()},
        }

    @classmethod
    def from_config(cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> "OptimizerMap":
        entries = config.get("optimizer_map") or {}
        if not isinstance(entries, dict):
            raise ValueError(f"OptimizerMap config: optimizer_map must be a dict, got {type(entries).__name__}")
        default = config_serialization.deserialize(config.get("default_optimizer"), custom_objects, kind="optimizers")
        return cls(
            default,
            {
                key: config_serialization.deserialize(value, custom_objects, kind="optimizers")
                for key, value in entries.items()
            },
        )


@registry.builtin("optimizers", "multioptimizer")
class MultiOptimizer(Optimizer):
    """An optimizer that updates each variable with the optimizer a map picks for it.

    Each variable's gradient is sent to the optimizer that `optimizer_map` picks for it
    (when the `MultiOptimizer` is built); each inner optimizer keeps its own learning
    rate, slots and `iterations`. The `MultiOptimizer` counts its own steps, and
    `variables` lists its own, then each inner optimizer's; `optimizer.optimizers` lists
    the inner optimizers. `learning_rate` is not defined on a `MultiOptimizer`: read
    and set it on the inner optimizers. Keras 3's names, arguments and config.

    Args:
        optimizer_map: An `OptimizerMap`, or a function `fn(variable) -> optimizer`
            (register it with `tfkit.saving.register_keras_serializable` to save the
            `MultiOptimizer` in a config).
        loss_scale_factor: Optional `float`, set on every inner optimizer (it overrides
            theirs): the loss is multiplied by it in `scale_loss` and the gradients divided
            by it. Defaults to `None`.
        name: Optional `str`, the optimizer's name. Defaults to `None`, which gives
            `"multi_optimizer"`.

    Raises:
        TypeError: If `optimizer_map` is neither an `OptimizerMap` nor callable.
        ValueError: When built, if the map gives a variable something other than a plain
            optimizer (not a `LossScaleOptimizer` or `MultiOptimizer`).

    Example:
        >>> sgd = tfkit.optimizers.SGD(learning_rate=0.5)
        >>> adam = tfkit.optimizers.Adam(learning_rate=0.1)
        >>> optimizer = tfkit.optimizers.MultiOptimizer(
        ...     tfkit.optimizers.OptimizerMap(sgd, {"encoder/.*": adam}))
        >>> encoder = tf.Variable([1.0], name="encoder/kernel")
        >>> decoder = tf.Variable([1.0], name="decoder/kernel")
        >>> _ = optimizer.apply([tf.constant([1.0]), tf.constant([1.0])], [encoder, decoder])
        >>> np.round(encoder.numpy(), 4), np.round(decoder.numpy(), 4)
        (array([0.9], dtype=float32), array([0.5], dtype=float32))
        >>> [type(o).__name__ for o in optimizer.optimizers]
        ['Adam', 'SGD']
    """

    def __init__(
        self,
        optimizer_map: OptimizerMap | Callable[[Any], Optimizer],
        loss_scale_factor: float | None = None,
        name: str | None = None,
    ) -> None:
        if not isinstance(optimizer_map, OptimizerMap) and not callable(optimizer_map):
            raise TypeError(
                f"MultiOptimizer: optimizer_map must be an OptimizerMap or a function of a variable "
                f"returning an optimizer, got {type(optimizer_map).__name__}: {optimizer_map!r}"
            )
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name or "multi_optimizer")
        self._optimizer_map = optimizer_map
        self._owner_of: tuple[int, ...] = ()
        self._inner_optimizers: list[Optimizer] = []
        if isinstance(optimizer_map, OptimizerMap):
            for optimizer in [*optimizer_map.values(), optimizer_map.default_optimizer]:
                self._add_inner(optimizer)

    def _add_inner(self, optimizer: Optimizer) -> int:
        for position, known in enumerate(self._inner_optimizers):
            if known is optimizer:
                return position
        optimizer.loss_scale_factor = self.loss_scale_factor
        self._inner_optimizers.append(optimizer)
        return len(self._inner_optimizers) - 1

    # ------------------------------------------------------------- state

    @property
    def optimizers(self) -> list[Optimizer]:
        """The inner optimizers, in the order their variables are listed."""
        return list(self._inner_optimizers)

    @property
    def variables(self) -> list[tf.Variable]:
        """Its own ``iterations`` and learning rate, then every inner optimizer's variables."""
        own = super().variables[:2]
        return own + [v for optimizer in self._inner_optimizers for v in optimizer.variables]

    @property
    def learning_rate(self) -> Any:
        raise AttributeError(
            "Learning rate cannot be accessed on a MultiOptimizer: each inner optimizer has its "
            "own; use optimizer.optimizers[i].learning_rate"
        )

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        raise AttributeError(
            "Learning rate cannot be set on a MultiOptimizer: set it on the inner optimizers "
            "(optimizer.optimizers[i].learning_rate = ...)"
        )

    @property
    def loss_scale_factor(self) -> float | None:
        return self.__dict__.get("_loss_scale_factor")

    @loss_scale_factor.setter
    def loss_scale_factor(self, value: float | None) -> None:
        self.__dict__["_loss_scale_factor"] = value
        for optimizer in self.__dict__.get("_inner_optimizers", ()):
            optimizer.loss_scale_factor = value

    # ------------------------------------------------------------- build

    def build(self, variables: Sequence[Any]) -> None:
        """Ask the map for each variable's optimizer and build every inner optimizer on its variables."""
        if self.built:
            return
        variables = list(variables)
        owners = []
        for variable in variables:
            optimizer = self._optimizer_map(variable)
            _check_inner(optimizer, f"MultiOptimizer: the optimizer for variable '{variable_path(variable)}'")
            owners.append(self._add_inner(optimizer))
        for position, optimizer in enumerate(self._inner_optimizers):
            mine = [v for v, owner in zip(variables, owners) if owner == position]
            if mine:
                optimizer.build(mine)
        self._owner_of = tuple(owners)
        super().build(variables)

    # ------------------------------------------------------------- apply

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None = None) -> tf.Variable:
        """Send each gradient to its variable's optimizer; count one step."""
        grads, variables = self._paired_gradients(grads, trainable_variables)
        if not grads:
            return self._iterations
        groups: list[list[tuple[Any, Any]]] = [[] for _ in self._inner_optimizers]
        for grad, variable in self._given_gradients(grads, variables):
            groups[self._owner_of[self.variable_index(variable)]].append((grad, variable))
        for optimizer, pairs in zip(self._inner_optimizers, groups):
            if pairs:
                optimizer.apply([g for g, _ in pairs], [v for _, v in pairs])
        if tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context():
            tf.distribute.get_replica_context().merge_call(lambda _strategy: self._iterations.assign_add(1))
        else:
            self._iterations.assign_add(1)
        return self._iterations

    def finalize_variable_values(self, var_list: Sequence[Any]) -> None:
        """Each inner optimizer with ``use_ema`` copies its moving averages into its variables."""
        var_list = list(var_list)
        if not self.built:
            return
        for position, optimizer in enumerate(self._inner_optimizers):
            mine = [v for v in var_list if self._owner_of[self.variable_index(v)] == position]
            if mine:
                optimizer.finalize_variable_values(mine)

    # ------------------------------------------------------------ config

    def get_config(self) -> dict[str, Any]:
        optimizer_map = self._optimizer_map
        if isinstance(optimizer_map, OptimizerMap):
            entry = {
                "module": "tfkit.optimizers",
                "class_name": "OptimizerMap",
                "config": optimizer_map.get_config(),
                "registered_name": None,
            }
        else:
            entry = config_serialization.serialize_config_values(optimizer_map)  # a registered function, by name
        return {"optimizer_map": entry, "loss_scale_factor": self.loss_scale_factor, "name": self.name}

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None
    ) -> "MultiOptimizer":
        config = dict(config)
        entry = config.pop("optimizer_map", None)
        if isinstance(entry, dict) and entry.get("class_name") == "OptimizerMap":
            inner = entry.get("config")
            if not isinstance(inner, dict):
                raise ValueError(f"MultiOptimizer config: optimizer_map.config must be a dict, got {inner!r}")
            optimizer_map: Any = OptimizerMap.from_config(inner, custom_objects)
        elif isinstance(entry, dict) and entry.get("class_name") == "function":
            optimizer_map = config_serialization.revive_config_values(entry, custom_objects)
        else:
            raise ValueError(
                "MultiOptimizer config: optimizer_map must be a serialized OptimizerMap or a registered "
                f"function, got {str(entry)[:200]}"
            )
        return cls(optimizer_map, **config)
