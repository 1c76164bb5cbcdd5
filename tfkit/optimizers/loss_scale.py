"""``LossScaleOptimizer``: dynamic loss scaling for float16 training.

    optimizer = tfkit.optimizers.LossScaleOptimizer(tfkit.optimizers.Adam(1e-3))
    scaled = optimizer.scale_loss(loss)                          # inside the tape
    optimizer.apply(tape.gradient(scaled, weights), weights)     # unscaled, skipped if not finite

float16 gradients of small losses underflow to zero. The loss is multiplied
by a large scale before differentiating and the gradients divided by it
before the update. When any gradient is not finite, the step is skipped
(no variable, slot or ``iterations`` changes) and the scale halved; after
``dynamic_growth_steps`` finite steps in a row it is doubled. ``Model.compile``
wraps the optimizer in one automatically when the model's policy is
``mixed_float16``, as Keras 3 does, and ``fit`` scales the loss.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import tensorflow as tf

from tfkit.base import registry
from tfkit.optimizers.base import Optimizer
from tfkit.optimizers.identifiers import get

_INNER_ONLY = (
    "weight_decay",
    "clipnorm",
    "global_clipnorm",
    "clipvalue",
    "use_ema",
    "ema_momentum",
    "ema_overwrite_frequency",
    "loss_scale_factor",
    "learning_rate",
)


@registry.builtin("optimizers")
class LossScaleOptimizer(Optimizer):
    """An optimizer that dynamically scales the loss to prevent underflow.

    float16 gradients of small losses underflow to zero. Loss scaling is a technique to
    prevent numeric underflow in intermediate gradients when float16 is used: the loss
    is multiplied by a large scale before differentiating (`scale_loss(loss)`), and the
    gradients divided by it before the update (`apply`). When any gradient is not
    finite, the step is skipped (no variable, slot or `iterations` changes) and the
    scale halved; after `dynamic_growth_steps` finite steps in a row it is doubled.
    `Model.compile` wraps the optimizer in one automatically when the model's policy is
    `"mixed_float16"`, as Keras 3 does, and `fit` scales the loss.

    The learning rate, `iterations` (which does not count skipped steps) and
    `finalize_variable_values` are the inner optimizer's; `variables` lists the scale,
    its step counter, then the inner optimizer's variables.

    Args:
        inner_optimizer: The optimizer that updates the variables: an `Optimizer`
            instance, a name (`"adam"`) or a serialized dict. Not a `LossScaleOptimizer`.
            Its own `loss_scale_factor` is turned off (the loss is scaled once, here).
        initial_scale: Positive `float`, the initial loss scale. Defaults to `2.0**15`
            (32768).
        dynamic_growth_steps: `int` >= 1, the number of finite steps in a row after which
            the loss scale is doubled. Defaults to `2000`.
        name: Optional `str`, the name of the optimizer. Defaults to `None`, which gives
            `"loss_scale_optimizer"`.
        **kwargs: Keras's other base optimizer arguments are accepted only at their
            defaults (set `learning_rate`, clipping, `weight_decay`, EMA and
            `loss_scale_factor` on the inner optimizer instead). `dynamic=True` is accepted;
            `dynamic=False` is not supported (set `loss_scale_factor` on the inner optimizer
            for a fixed scale).

    Raises:
        ValueError: If `inner_optimizer` is a `LossScaleOptimizer` or cannot be
            interpreted, `initial_scale` is not a positive number, `dynamic_growth_steps`
            is not an `int` >= 1, `dynamic=False` is given, or a base optimizer argument is
            set to a non-default value.
        TypeError: If an unknown keyword argument is given.

    Example:
        >>> optimizer = tfkit.optimizers.LossScaleOptimizer(
        ...     tfkit.optimizers.SGD(learning_rate=0.1), initial_scale=8.0)
        >>> var = tf.Variable([1.0, 2.0])
        >>> float(optimizer.scale_loss(tf.constant(0.5)))
        4.0
        >>> _ = optimizer.apply([tf.constant([8.0, -8.0])], [var])   # scaled gradients
        >>> np.round(var.numpy(), 4)
        array([0.9, 2.1], dtype=float32)
        >>> _ = optimizer.apply([tf.constant([np.inf, 1.0])], [var])  # skipped, scale halved
        >>> np.round(var.numpy(), 4), float(optimizer.dynamic_scale), int(optimizer.iterations)
        (array([0.9, 2.1], dtype=float32), 4.0, 1)
    """

    def __init__(
        self,
        inner_optimizer: Any,
        initial_scale: float = 2.0**15,
        dynamic_growth_steps: int = 2000,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not kwargs.pop("dynamic", True):
            raise ValueError(
                "LossScaleOptimizer(dynamic=False) is not supported: set loss_scale_factor on the "
                "inner optimizer for a fixed scale."
            )
        for key in _INNER_ONLY:
            if kwargs.get(key) not in (None, False, 0.99):
                raise ValueError(
                    f"LossScaleOptimizer does not take {key}={kwargs[key]!r}: set it on the inner optimizer."
                )
            kwargs.pop(key, None)
        if kwargs:
            raise TypeError(f"LossScaleOptimizer got unexpected keyword argument(s): {', '.join(sorted(kwargs))}")
        inner = get(inner_optimizer)
        if isinstance(inner, LossScaleOptimizer):
            raise ValueError("LossScaleOptimizer cannot wrap another LossScaleOptimizer")
        if not isinstance(initial_scale, (int, float)) or isinstance(initial_scale, bool) or not initial_scale > 0:
            raise ValueError(f"LossScaleOptimizer initial_scale must be a number > 0, got {initial_scale!r}")
        if (
            not isinstance(dynamic_growth_steps, int)
            or isinstance(dynamic_growth_steps, bool)
            or dynamic_growth_steps < 1
        ):
            raise ValueError(
                f"LossScaleOptimizer dynamic_growth_steps must be an int >= 1, got {dynamic_growth_steps!r}"
            )
        super().__init__(learning_rate=0.0, name=name or "loss_scale_optimizer")
        self.inner_optimizer = inner
        inner.loss_scale_factor = None  # scaled once, here
        self.initial_scale = float(initial_scale)
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        first = tf.VariableAggregation.ONLY_FIRST_REPLICA
        self.dynamic_scale = self._create_variable(
            lambda: tf.constant(self.initial_scale, tf.float32), tf.float32, "dynamic_scale", first
        )
        self.step_counter = self._create_variable(lambda: tf.constant(0, tf.int64), tf.int64, "step_counter", first)

    # -- what the inner optimizer owns --

    @property
    def iterations(self) -> tf.Variable:
        """The inner optimizer's step counter: skipped steps do not count."""
        return self.inner_optimizer.iterations

    @property
    def learning_rate(self) -> Any:
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self.inner_optimizer.learning_rate = value

    @property
    def variables(self) -> list[tf.Variable]:
        """The scale and its step counter, then the inner optimizer's variables."""
        return [self.dynamic_scale, self.step_counter] + list(self.inner_optimizer.variables)

    def build(self, variables: Sequence[Any]) -> None:
        self.inner_optimizer.build(variables)
        self.built = True

    def finalize_variable_values(self, var_list: Sequence[Any]) -> None:
        self.inner_optimizer.finalize_variable_values(var_list)

    # -- scaling --

    def scale_loss(self, loss: Any) -> Any:
        """``loss`` times the current scale (differentiate this; ``apply`` divides it back out)."""
        return loss * tf.cast(self.dynamic_scale, loss.dtype)

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None = None) -> tf.Variable:
        """Unscale ``grads``; apply them with the inner optimizer if all are finite, else skip and halve the scale."""
        inner = self.inner_optimizer
        variables = list(trainable_variables) if trainable_variables is not None else None
        if variables is None and not inner.built:
            raise ValueError(
                "LossScaleOptimizer.apply() got gradients without variables before it was built; "
                "pass trainable_variables or call optimizer.build(variables) first."
            )
        if not inner.built:  # slots are made here, never inside the condition below
            inner._build_from_any_context(variables)
            self.built = True
        variables = variables if variables is not None else list(inner._state.model_variables)
        grads = list(grads)
        if tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context():
            context = tf.distribute.get_replica_context()
            present = [i for i, g in enumerate(grads) if g is not None]
            reduced = context.all_reduce(tf.distribute.ReduceOp.SUM, [tf.convert_to_tensor(grads[i]) for i in present])
            for i, grad in zip(present, reduced):
                grads[i] = grad
            context.merge_call(self._apply_reduced, args=(grads, variables))
        else:
            self._apply_reduced(None, grads, variables)
        return self.iterations

    def _apply_reduced(self, strategy: Any, grads: list[Any], variables: list[Any]) -> None:
        """Cross-replica (or no strategy): one decision for every replica, as the gradients are all-reduced."""
        if strategy is not None:
            grads = [None if g is None else strategy.experimental_local_results(g)[0] for g in grads]
        scale = tf.convert_to_tensor(self.dynamic_scale)
        unscaled = [None if g is None else tf.convert_to_tensor(g) / tf.cast(scale, g.dtype) for g in grads]
        present = [g for g in unscaled if g is not None]
        finite = tf.reduce_all([tf.reduce_all(tf.math.is_finite(g)) for g in present]) if present else tf.constant(True)

        def step() -> tf.Tensor:
            self.inner_optimizer.apply(unscaled, variables)
            grow = tf.equal(self.step_counter, self.dynamic_growth_steps - 1)
            self.dynamic_scale.assign(tf.where(grow, self.dynamic_scale * 2.0, self.dynamic_scale))
            self.step_counter.assign(tf.where(grow, tf.constant(0, tf.int64), self.step_counter + 1))
            return tf.constant(True)

        def skip() -> tf.Tensor:
            self.dynamic_scale.assign(self.dynamic_scale / 2.0)
            self.step_counter.assign(0)
            return tf.constant(False)

        tf.cond(finite, step, skip)

    # -- config --

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "inner_optimizer": registry.to_config("optimizers", self.inner_optimizer),
            "initial_scale": self.initial_scale,
            "dynamic_growth_steps": self.dynamic_growth_steps,
        }

    @classmethod
    def from_config(
        cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None
    ) -> "LossScaleOptimizer":
        config = dict(config)
        inner = get(config.pop("inner_optimizer"), custom_objects)
        return cls(inner, **config)
