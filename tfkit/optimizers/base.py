"""``Optimizer``: the shared engine behind every tfkit optimizer (Keras 3 semantics).

    optimizer = tfkit.optimizers.Adam(learning_rate=1e-3, global_clipnorm=1.0)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply(grads, model.trainable_variables)

An algorithm only writes ``build`` (its slot variables, made with
``add_optimizer_variables``) and ``update_step(gradient, variable,
learning_rate)``. The base class does the rest, in this order: drop ``None``
gradients, make sparse gradients dense, sum them across replicas under a
``tf.distribute`` strategy, clip, decay weights, call ``update_step`` once per
variable, apply constraints, update the moving averages (EMA) and count the
step. It works eagerly, in ``tf.function`` (also with ``jit_compile=True``)
and inside ``strategy.run``; with no strategy active the distribution code is
skipped entirely.
"""

from __future__ import annotations

import contextlib
import numbers
import re
import warnings
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.distribution import values as distribution_values
from tfkit.engine import variable_options
from tfkit.optimizers import schedules as schedules_module
from tfkit.optimizers.variable_path import variable_path


def _variable_key(variable: Any) -> int:
    """One key for a variable, its distributed container and each of its components."""
    if not isinstance(variable, tf.distribute.DistributedValues):
        container = getattr(variable, "_distributed_container", None)
        if container is None:
            handle = getattr(variable, "handle", None)
            container = getattr(handle, "_distributed_container", None)
        if container is not None:
            variable = container()
    unique_id = getattr(variable, "_unique_id", None)
    return unique_id if unique_id is not None else id(variable)


def _variable_label(variable: Any) -> str:
    path = getattr(variable, "path", None)
    name = path if isinstance(path, str) else getattr(variable, "name", "variable")
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", name.split(":")[0])


class _Bookkeeping:
    """Python-side state kept off the attributes ``tf.Module`` tracks and checkpoints.

    Holding the model's variables here keeps them out of the optimizer's
    checkpoint and out of ``optimizer.trainable_variables``.
    """

    __slots__ = (
        "schedule",
        "model_variables",
        "index_of_key",
        "constraints",
        "use_decay",
        "averages",
        "accumulators",
        "exclude_keys",
        "exclude_pattern",
        "per_step",
    )

    def __init__(self) -> None:
        self.schedule: Any = None
        self.model_variables: list[Any] = []
        self.index_of_key: dict[int, int] = {}
        self.constraints: list[Any] = []
        self.use_decay: list[bool] = []
        self.averages: list[tf.Variable] = []
        self.accumulators: list[tf.Variable] = []  # gradient_accumulation_steps: one per variable
        self.exclude_keys: set[int] = set()
        self.exclude_pattern: re.Pattern[str] | None = None
        self.per_step: dict[Any, Any] | None = None


@registry.base("optimizers")
class Optimizer(tf.Module):
    """Abstract optimizer base class.

    Every tfkit optimizer inherits from this class and shares its arguments and
    engine. An algorithm only writes `build(variables)` (its slot variables, made
    with `add_optimizer_variables`) and `update_step(gradient, variable,
    learning_rate)`. The base class does the rest, in this order: drop `None`
    gradients (with a warning), make sparse gradients dense, sum them across replicas
    under a `tf.distribute` strategy, clip, decay weights, call `update_step` once
    per variable, apply the variables' constraints, update the moving averages (EMA)
    and count the step. It works eagerly, in `tf.function` (also with
    `jit_compile=True`) and inside `strategy.run`; with no strategy active the
    distribution code is skipped entirely.

    Use `optimizer.apply(grads, variables)` (or `apply_gradients(zip(grads,
    variables))`) in a custom training loop; `Model.fit` calls it for you.

    Args:
        learning_rate: A `float`, a `tfkit.optimizers.schedules.LearningRateSchedule`
            instance, or a callable that takes no arguments and returns the actual value
            to use. The learning rate. A float is kept in a variable, so it can be changed
            later (`optimizer.learning_rate = 0.01`); a schedule is called with the step
            counter.
        weight_decay: Optional `float`. If set, decoupled weight decay is applied: before
            each update, `variable -= variable * learning_rate * weight_decay` (skipped for
            variables passed to `exclude_from_weight_decay`). Defaults to `None`.
        clipnorm: Optional positive `float`. If set, the gradient of each weight is
            individually clipped so that its norm is no higher than this value.
            Defaults to `None`.
        clipvalue: Optional positive `float`. If set, the gradient of each weight is
            clipped to be no higher than this value (and no lower than its negative).
            Defaults to `None`.
        global_clipnorm: Optional positive `float`. If set, the gradients of all weights
            are clipped so that their global norm is no higher than this value (a NaN norm
            gives NaN gradients, as in Keras 3). At most one of `clipnorm`, `clipvalue` and
            `global_clipnorm` may be set. Defaults to `None`.
        use_ema: `bool`. If `True`, an exponential moving average (EMA) of the model's
            weights is kept: after each update, `average = ema_momentum * average +
            (1 - ema_momentum) * variable` (the first update copies the variable). This
            technique is sometimes used to improve the model's final quality.
            Defaults to `False`.
        ema_momentum: `float` in `[0, 1]`, only used if `use_ema=True`: the momentum of
            the moving average. Defaults to `0.99`.
        ema_overwrite_frequency: Optional `int` >= 1, only used if `use_ema=True`. Every
            `ema_overwrite_frequency` steps, the model variables are overwritten by their
            moving averages. If `None`, the variables are not overwritten during training;
            call `optimizer.finalize_variable_values(variables)` to copy the averages in at
            the end (the built-in `fit()` does this after the last epoch).
            Defaults to `None`.
        loss_scale_factor: Optional `float`. If set, `scale_loss(loss)` multiplies the loss
            by this factor before computing gradients, and the gradients are divided by it
            before updating variables: useful to prevent underflow in mixed precision
            training. `LossScaleOptimizer` chooses a dynamic scale for you instead.
            Defaults to `None`.
        gradient_accumulation_steps: Optional `int` >= 2. If set, model and optimizer
            variables are not updated at every step; instead they are updated every
            `gradient_accumulation_steps` steps, using the average of the gradients since
            the last update (clipped then). `iterations` and the EMA count these updates,
            while learning rate schedules see every step. Useful when the batch size is very
            small, to reduce gradient noise at each update. Defaults to `None`.
        name: Optional `str`, the name of the optimizer (a `tf.Module` name). Defaults to
            `None`, which gives the lowercased class name.

    Raises:
        ValueError: If more than one of `clipnorm`, `clipvalue` and `global_clipnorm` is set or
            one is not positive, `learning_rate` is not a number, schedule or callable,
            `gradient_accumulation_steps` is not an `int` >= 2, `ema_overwrite_frequency` is not
            an `int` >= 1, or `use_ema` is set with `ema_momentum` outside `[0, 1]`.

    Example:
        >>> class PlainSGD(tfkit.optimizers.Optimizer):
        ...     def __init__(self, learning_rate=0.1, **kwargs):
        ...         super().__init__(learning_rate=learning_rate, **kwargs)
        ...     def update_step(self, gradient, variable, learning_rate):
        ...         variable.assign_sub(gradient * tf.cast(learning_rate, variable.dtype))
        >>> optimizer = PlainSGD(learning_rate=0.5, clipvalue=1.0)
        >>> var = tf.Variable([1.0, 2.0])
        >>> _ = optimizer.apply([tf.constant([4.0, -0.5])], [var])
        >>> var.numpy()
        array([0.5 , 2.25], dtype=float32)
        >>> int(optimizer.iterations), optimizer.name
        (1, 'plainsgd')
    """

    def __init__(
        self,
        learning_rate: float | schedules_module.LearningRateSchedule | Callable[[], Any],
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        loss_scale_factor: float | None = None,
        gradient_accumulation_steps: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name or type(self).__name__.lower())
        if gradient_accumulation_steps and (
            isinstance(gradient_accumulation_steps, bool)
            or not isinstance(gradient_accumulation_steps, numbers.Integral)
            or gradient_accumulation_steps < 2
        ):
            raise ValueError(
                f"{type(self).__name__}: gradient_accumulation_steps must be an integer >= 2, "
                f"got {gradient_accumulation_steps!r}"
            )
        self.gradient_accumulation_steps = int(gradient_accumulation_steps) if gradient_accumulation_steps else None
        self._state = _Bookkeeping()
        clips = {"clipnorm": clipnorm, "clipvalue": clipvalue, "global_clipnorm": global_clipnorm}
        given = {key: value for key, value in clips.items() if value is not None}
        if len(given) > 1:
            raise ValueError(
                f"{type(self).__name__}: set at most one of clipnorm, clipvalue and global_clipnorm; got {given}"
            )
        for key, value in given.items():
            if not isinstance(value, numbers.Real) or value <= 0:
                raise ValueError(f"{type(self).__name__}: {key} must be a number > 0, got {value!r}")
        if use_ema and not 0 <= ema_momentum <= 1:
            raise ValueError(f"{type(self).__name__}: ema_momentum must be in [0, 1], got {ema_momentum!r}")
        if ema_overwrite_frequency is not None and (
            not isinstance(ema_overwrite_frequency, numbers.Integral) or ema_overwrite_frequency < 1
        ):
            raise ValueError(
                f"{type(self).__name__}: ema_overwrite_frequency must be an int >= 1 or None, "
                f"got {ema_overwrite_frequency!r}"
            )
        self.weight_decay = None if weight_decay is None else float(weight_decay)
        self.clipnorm = None if clipnorm is None else float(clipnorm)
        self.clipvalue = None if clipvalue is None else float(clipvalue)
        self.global_clipnorm = None if global_clipnorm is None else float(global_clipnorm)
        self.use_ema = bool(use_ema)
        self.ema_momentum = float(ema_momentum)
        self.ema_overwrite_frequency = None if ema_overwrite_frequency is None else int(ema_overwrite_frequency)
        self.loss_scale_factor = None if loss_scale_factor is None else float(loss_scale_factor)
        self.built = False
        self._optimizer_variables: list[tf.Variable] = []
        self._iterations = self._create_variable(
            lambda: tf.constant(0, tf.int64), tf.int64, "iteration", tf.VariableAggregation.ONLY_FIRST_REPLICA
        )
        self._learning_rate_variable: tf.Variable | None = None
        self._set_learning_rate(learning_rate, initial=True)

    # ----------------------------------------------------------------- state

    @property
    def iterations(self) -> Any:
        """int64 counter of updates: one per ``apply``, or per ``gradient_accumulation_steps`` applies."""
        if self.gradient_accumulation_steps:
            return self._iterations // self.gradient_accumulation_steps
        return self._iterations

    @property
    def variables(self) -> list[tf.Variable]:
        """iterations, the learning-rate variable (if any), then slots in creation order."""
        head = [self._iterations]
        if self._learning_rate_variable is not None:
            head.append(self._learning_rate_variable)
        return head + list(self._optimizer_variables)

    @property
    def learning_rate(self) -> Any:
        """The current learning rate: the variable itself when set from a number."""
        schedule = self._state.schedule
        if isinstance(schedule, schedules_module.LearningRateSchedule):
            return schedule(self._iterations)
        if schedule is not None:
            return schedule()
        return self._learning_rate_variable

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self._set_learning_rate(value, initial=False)

    def _set_learning_rate(self, value: Any, initial: bool) -> None:
        if isinstance(value, schedules_module.LearningRateSchedule) or (
            callable(value) and not isinstance(value, (tf.Variable, tf.Tensor))
        ):
            self._state.schedule = value
            if self._learning_rate_variable is not None:
                del self._learning_rate_variable  # also drops it from checkpoints
            self._learning_rate_variable = None
            return
        if isinstance(value, (tf.Variable, tf.Tensor, np.ndarray)) and np.ndim(value) == 0:
            value = np.asarray(value).item() if not isinstance(value, tf.Variable) else value.numpy().item()
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(
                f"{type(self).__name__}: learning_rate must be a float, a LearningRateSchedule or "
                f"a callable taking no arguments; got {type(value).__name__}: {value!r}"
            )
        if not initial and self._learning_rate_variable is None:
            raise ValueError(
                f"{type(self).__name__} was given a {type(self._state.schedule).__name__} as its "
                "learning rate, so a number cannot be assigned to it; create the optimizer with a "
                "float learning_rate to make it settable."
            )
        if self._learning_rate_variable is None:
            self._learning_rate_variable = self._create_variable(
                lambda: tf.constant(float(value), tf.float32),
                tf.float32,
                "learning_rate",
                tf.VariableAggregation.ONLY_FIRST_REPLICA,
            )
        else:
            self._learning_rate_variable.assign(float(value))

    # ------------------------------------------------------- slot variables

    def _create_variable(
        self,
        initial_value: Callable[[], tf.Tensor],
        dtype: tf.DType,
        name: str,
        aggregation: tf.VariableAggregation = tf.VariableAggregation.NONE,
        colocate_with: Any = None,
    ) -> tf.Variable:
        strategy = tf.distribute.get_strategy() if tf.distribute.has_strategy() else None
        with tf.init_scope(), contextlib.ExitStack() as stack:
            stack.enter_context(tf.name_scope(""))  # not "while/...": the slot is named alike wherever it is built
            if strategy is not None:
                stack.enter_context(strategy.scope())
                if colocate_with is not None:
                    stack.enter_context(strategy.extended.colocate_vars_with(colocate_with))
            # Under a tfkit distribution a slot takes its variable's layout; scalars are replicated.
            stack.enter_context(
                distribution_values.layout_like(colocate_with)
                if colocate_with is not None
                else distribution_values.variable_scope()
            )
            return tf.Variable(
                initial_value,
                trainable=False,
                dtype=dtype,
                name=name,
                aggregation=aggregation,
                **variable_options.EAGER_CREATION,
            )

    def add_variable(
        self,
        shape: Sequence[int],
        dtype: Any = tf.float32,
        initializer: float | Callable[[Any, Any], Any] = 0.0,
        name: str = "slot",
        colocate_with: Any = None,
    ) -> tf.Variable:
        """Create one optimizer variable; it joins ``variables`` and checkpoints.

        ``initializer`` is a number (a constant fill) or ``fn(shape, dtype)``.
        """
        dtype = tf.as_dtype(dtype)
        shape = tf.TensorShape(shape)
        if not shape.is_fully_defined():
            raise ValueError(f"{type(self).__name__}: slot {name!r} needs a fully known shape, got {shape}")
        if callable(initializer):

            def initial_value() -> tf.Tensor:
                return tf.cast(initializer(shape, dtype), dtype)
        else:

            def initial_value() -> tf.Tensor:
                return tf.fill(shape, tf.constant(initializer, dtype))

        variable = self._create_variable(initial_value, dtype, name, colocate_with=colocate_with)
        self._optimizer_variables.append(variable)
        return variable

    def add_variable_from_reference(
        self, reference: Any, name: str, initializer: float | Callable[[Any, Any], Any] = 0.0
    ) -> tf.Variable:
        """A slot with the shape and dtype of ``reference`` (a model variable)."""
        return self.add_variable(
            reference.shape,
            reference.dtype,
            initializer,
            name=f"{_variable_label(reference)}_{name}",
            colocate_with=reference,
        )

    def add_optimizer_variables(
        self, variables: Sequence[Any], names: str | Sequence[str], initializer: float | Callable[[Any, Any], Any] = 0.0
    ) -> Any:
        """One slot per variable per name; a list for a name, a tuple of lists for several.

        Slots are created variable by variable (``m0, v0, m1, v1, ...``) as in Keras 3.
        """
        single = isinstance(names, str)
        name_list = [names] if single else list(names)
        slots: tuple[list[tf.Variable], ...] = tuple([] for _ in name_list)
        for variable in variables:
            for position, slot_name in enumerate(name_list):
                slots[position].append(self.add_variable_from_reference(variable, slot_name, initializer))
        return slots[0] if single else slots

    def build(self, variables: Sequence[Any]) -> None:
        """Remember ``variables`` by position and create the shared slots (EMA).

        Subclasses return early when ``self.built``, call ``super().build(variables)``,
        then add their slots.
        """
        if self.built:
            return
        variables = list(variables)
        state = self._state
        state.model_variables = variables
        state.index_of_key = {_variable_key(v): i for i, v in enumerate(variables)}
        state.constraints = [getattr(v, "constraint", None) for v in variables]
        state.use_decay = [self._decays(v) for v in variables]
        if self.use_ema:
            state.averages = self.add_optimizer_variables(variables, "average")
        if self.gradient_accumulation_steps:
            state.accumulators = self.add_optimizer_variables(variables, "gradient_accumulator")
        self.built = True

    def variable_index(self, variable: Any) -> int:
        """Position of ``variable`` (or of one of its replicas) in the list given to ``build``."""
        index = self._state.index_of_key.get(_variable_key(variable))
        if index is None:
            raise ValueError(
                f"{type(self).__name__} was built for {len(self._state.model_variables)} variables and "
                f"{getattr(variable, 'name', variable)!r} is not one of them. Create a new optimizer "
                "for a different set of variables."
            )
        return index

    # ---------------------------------------------------------- weight decay

    def exclude_from_weight_decay(
        self, var_list: Iterable[Any] | None = None, var_names: Iterable[str] | None = None
    ) -> None:
        """Skip weight decay for these variables, or for names containing any of ``var_names``."""
        if self.built:
            raise ValueError(f"{type(self).__name__}: call exclude_from_weight_decay() before the optimizer is built.")
        self._state.exclude_keys = {_variable_key(v) for v in var_list or ()}
        names = [re.escape(n) for n in var_names or ()]
        self._state.exclude_pattern = re.compile("|".join(names)) if names else None

    def _decays(self, variable: Any) -> bool:
        if self.weight_decay is None or _variable_key(variable) in self._state.exclude_keys:
            return False
        pattern = self._state.exclude_pattern
        return pattern is None or pattern.search(getattr(variable, "name", "")) is None

    # ----------------------------------------------------------------- apply

    def update_step(self, gradient: tf.Tensor, variable: tf.Variable, learning_rate: Any) -> None:
        """Apply one dense, reduced, clipped gradient to one variable."""
        raise NotImplementedError(f"{type(self).__name__} must implement update_step()")

    def _update_shared_state(self) -> None:
        """Hook run once per ``apply`` before the per-variable updates (Nadam's product)."""
        return None

    def scale_loss(self, loss: Any) -> Any:
        """Multiply ``loss`` by ``loss_scale_factor`` (gradients are divided back in ``apply``)."""
        return loss if self.loss_scale_factor is None else loss * self.loss_scale_factor

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Any]]) -> tf.Variable:
        """``apply`` for ``(gradient, variable)`` pairs; returns ``iterations``."""
        pairs = list(grads_and_vars)
        if not pairs:
            return self._iterations
        grads, variables = zip(*pairs)
        return self.apply(list(grads), list(variables))

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None = None) -> tf.Variable:
        """Update ``trainable_variables`` (default: those given to ``build``) with ``grads``."""
        grads, variables = self._paired_gradients(grads, trainable_variables)
        if not grads:
            return self._iterations
        grads, variables, indices = self._present_gradients(grads, variables)
        if self.loss_scale_factor is not None:
            grads = [g / tf.cast(self.loss_scale_factor, g.dtype) for g in grads]
        if not tf.distribute.has_strategy():
            grads = self._clip_now(grads)
            self._apply_updates(None, grads, indices, tf.convert_to_tensor(self.learning_rate))
            return self._iterations
        strategy = tf.distribute.get_strategy()
        if tf.distribute.in_cross_replica_context():
            grads = self._clip_now(grads)
            self._apply_updates(strategy, grads, indices, tf.convert_to_tensor(self.learning_rate))
            return self._iterations
        context = tf.distribute.get_replica_context()
        grads = context.all_reduce(tf.distribute.ReduceOp.SUM, grads)
        grads = self._clip_now(grads)
        learning_rate = tf.convert_to_tensor(self.learning_rate)
        context.merge_call(self._apply_updates, args=(grads, indices, learning_rate))
        return self._iterations

    def _paired_gradients(
        self, grads: Sequence[Any], trainable_variables: Sequence[Any] | None
    ) -> tuple[list[Any], list[Any]]:
        """``apply``'s arguments checked: one gradient per variable, the optimizer built on first use.

        Without ``trainable_variables``, the variables given to ``build``.
        """
        grads = list(grads)
        who = type(self).__name__
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    f"{who}.apply() got gradients without variables before it was "
                    "built; pass trainable_variables or call optimizer.build(variables) first."
                )
            variables = list(self._state.model_variables)
        else:
            variables = list(trainable_variables)
            if not self.built:
                self._build_from_any_context(variables)
        if len(grads) != len(variables):
            raise ValueError(
                f"{who}.apply() expected one gradient per variable ({len(variables)}), got {len(grads)} gradients."
            )
        return grads, variables

    def _build_from_any_context(self, variables: list[Any]) -> None:
        if tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context():
            tf.distribute.get_replica_context().merge_call(lambda _strategy: self.build(variables))
        else:
            self.build(variables)

    def _given_gradients(self, grads: list[Any], variables: list[Any]) -> list[tuple[Any, Any]]:
        """The (gradient, variable) pairs whose gradient is not ``None``; a warning names the others.

        Raises ``ValueError`` when every gradient is ``None`` (the loss does not depend on the variables).
        """
        pairs = [(grad, variable) for grad, variable in zip(grads, variables) if grad is not None]
        if not pairs:
            raise ValueError(
                f"{type(self).__name__}.apply(): no gradients were given for any variable "
                f"(all {len(variables)} were None). Does the loss depend on the model's variables?"
            )
        if len(pairs) < len(variables):
            missing = [variable_path(v) for g, v in zip(grads, variables) if g is None]
            warnings.warn(f"Gradients do not exist for variables {missing} when minimizing the loss.", stacklevel=4)
        return pairs

    def _present_gradients(
        self, grads: list[Any], variables: list[Any]
    ) -> tuple[list[tf.Tensor], list[Any], list[int]]:
        """Drop ``None`` gradients, densify ``IndexedSlices`` and cast to each variable's dtype."""
        kept_grads, kept_vars, indices = [], [], []
        for grad, variable in self._given_gradients(grads, variables):
            grad = tf.convert_to_tensor(grad)
            if grad.dtype != variable.dtype:
                grad = tf.cast(grad, variable.dtype)
            kept_grads.append(grad)
            kept_vars.append(variable)
            indices.append(self.variable_index(variable))
        return kept_grads, kept_vars, indices

    def _clip_now(self, grads: list[tf.Tensor]) -> list[tf.Tensor]:
        """Clipped gradients; accumulated gradients are clipped when averaged, at the update (as Keras)."""
        return grads if self.gradient_accumulation_steps else self._clip(grads)

    def _clip(self, grads: list[tf.Tensor]) -> list[tf.Tensor]:
        if self.clipnorm is not None:
            return [tf.clip_by_norm(g, tf.cast(self.clipnorm, g.dtype)) for g in grads]
        if self.global_clipnorm is not None:
            norm = tf.sqrt(tf.add_n([tf.reduce_sum(tf.square(tf.cast(g, tf.float32))) for g in grads]))
            clip = tf.constant(self.global_clipnorm, tf.float32)
            # Keras 3: clip * min(1/norm, 1/clip); a NaN norm stays NaN instead of passing through.
            scale = clip * tf.minimum(1.0 / norm, 1.0 / clip) + (norm - norm)
            return [g * tf.cast(scale, g.dtype) for g in grads]
        if self.clipvalue is not None:
            return [tf.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def _apply_updates(self, strategy: Any, grads: Sequence[Any], indices: Sequence[int], learning_rate: Any) -> None:
        """Everything that writes variables; runs once (cross-replica) per ``apply``."""
        variables = self._state.model_variables
        if strategy is None:

            def update(variable: Any, fn: Callable[..., Any], *args: Any) -> None:
                fn(variable, *args)
        else:

            def update(variable: Any, fn: Callable[..., Any], *args: Any) -> None:
                strategy.extended.update(variable, fn, args=args, group=False)

        steps = self.gradient_accumulation_steps
        self._state.per_step = None if steps else {}  # values made in one tf.cond branch stay there
        try:
            if steps:
                due = tf.equal((self._iterations + 1) % steps, 0)
                averaged = self._clip(
                    [(g + a) / steps for g, a in zip(grads, (self._state.accumulators[i] for i in indices))]
                )
                tf.cond(due, self._update_shared_state, lambda: None)
                for grad, mean, index in zip(grads, averaged, indices):
                    update(variables[index], self._accumulate_or_update, grad, mean, learning_rate, index, due)
            else:
                self._update_shared_state()
                for grad, index in zip(grads, indices):
                    update(variables[index], self._update_variable, grad, learning_rate, index)
            if self.use_ema:
                for index, variable in enumerate(variables):
                    update(variable, self._update_average, index)
        finally:
            self._state.per_step = None
        self._iterations.assign_add(1)

    def once_per_step(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` evaluated once per ``apply`` and shared by every variable's update.

        Scalars such as ``lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)`` are the
        same for all variables; computing them once keeps the compiled step
        small (on CPU, each extra scalar op costs about as much as a small matmul).
        """
        cache = self._state.per_step
        if cache is None:
            return compute()
        if key not in cache:
            cache[key] = compute()
        return cache[key]

    def _update_variable(self, variable: Any, gradient: Any, learning_rate: Any, index: int) -> None:
        if self._state.use_decay[index]:
            decay = tf.cast(learning_rate, variable.dtype) * tf.cast(self.weight_decay, variable.dtype)
            variable.assign_sub(variable * decay)
        self.update_step(gradient, variable, learning_rate)
        constraint = self._state.constraints[index]
        if constraint is not None:
            variable.assign(constraint(variable))

    def _accumulate_or_update(
        self, variable: Any, gradient: Any, mean: Any, learning_rate: Any, index: int, due: tf.Tensor
    ) -> None:
        """Gradient accumulation (Keras 3's): add ``gradient`` up, or on every n-th step apply the mean and reset."""
        accumulator = self._state.accumulators[index]

        def update() -> None:
            self._update_variable(variable, mean, learning_rate, index)
            accumulator.assign(tf.zeros_like(accumulator))

        def accumulate() -> None:
            accumulator.assign_add(gradient)

        tf.cond(due, update, accumulate)

    def _update_average(self, variable: Any, index: int) -> None:
        average = self._state.averages[index]
        # Keras 3: the first step copies the variable, later steps average.
        momentum = tf.cast(tf.not_equal(self.iterations, 0), variable.dtype) * self.ema_momentum
        average.assign(momentum * average + (1.0 - momentum) * variable)
        if self.ema_overwrite_frequency is not None:
            due = tf.equal((self.iterations + 1) % self.ema_overwrite_frequency, 0)

            def overwrite() -> None:
                variable.assign(average)

            def keep() -> None:
                return None

            tf.cond(due, overwrite, keep)

    def finalize_variable_values(self, var_list: Sequence[Any]) -> None:
        """With ``use_ema``, copy the moving averages into ``var_list`` (same order as ``build``)."""
        if not self.use_ema:
            return
        var_list = list(var_list)
        averages = self._state.averages
        if len(var_list) != len(averages):
            raise ValueError(
                f"{type(self).__name__}.finalize_variable_values() expected the {len(averages)} "
                f"variables the optimizer was built with, got {len(var_list)}."
            )
        strategy = tf.distribute.get_strategy() if tf.distribute.has_strategy() else None
        for variable, average in zip(var_list, averages):
            if strategy is None:
                variable.assign(average)
            else:
                strategy.extended.update(variable, lambda v, a: v.assign(a), args=(average,))

    def ema_pairs(self) -> list[tuple[Any, tf.Variable]]:
        """``(variable, its moving average)`` in ``build`` order; empty without ``use_ema`` or before ``build``."""
        return list(zip(self._state.model_variables, self._state.averages))

    # ---------------------------------------------------------------- config

    def get_config(self) -> dict[str, Any]:
        """Constructor arguments as plain data; a schedule is saved as its registered config."""
        schedule = self._state.schedule
        if schedule is None:
            learning_rate: Any = float(str(np.float32(self._learning_rate_variable.numpy())))
        elif isinstance(schedule, schedules_module.LearningRateSchedule):
            learning_rate = registry.to_config("schedules", schedule)
        else:
            learning_rate = registry.name_for("functions", schedule)
        return {
            "name": self.name,
            "learning_rate": learning_rate,
            "weight_decay": self.weight_decay,
            "clipnorm": self.clipnorm,
            "global_clipnorm": self.global_clipnorm,
            "clipvalue": self.clipvalue,
            "use_ema": self.use_ema,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
            "loss_scale_factor": self.loss_scale_factor,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
        }

    @classmethod
    def from_config(cls, config: Mapping[str, Any], custom_objects: Mapping[str, Any] | None = None) -> "Optimizer":
        """Inverse of ``get_config``."""
        config = dict(config)
        learning_rate = config.get("learning_rate")
        if isinstance(learning_rate, dict):
            config["learning_rate"] = registry.resolve("schedules", learning_rate, custom_objects)
        elif isinstance(learning_rate, str):
            config["learning_rate"] = registry.lookup("functions", learning_rate, custom_objects)
        return cls(**config)
