"""A tfkit optimizer's variables in Keras 3's order: the ``optimizer/vars/<i>`` of a ``.keras`` archive, both ways.

    stored = keras_order(optimizer, model.trainable_weights)    # writing: index i holds stored[i]
    groups = stored_groups(optimizer, model.trainable_weights)   # optimizer/vars, (LossScale) inner_optimizer/vars
    pairs = stored_pairs(optimizer, model.trainable_weights, table, source)   # reading: all checked first

Keras 3 keeps an optimizer's variables in one list, which its files store by
position: ``iterations``, the learning-rate variable (none for a schedule),
then what ``build`` creates, in order: the moving averages (``use_ema``), the
gradient accumulators (``gradient_accumulation_steps``), then the algorithm's
slots, made variable by variable where it makes several at once (Adam:
``m0, v0, m1, v1, ...``, then ``amsgrad``'s velocity_hats; RMSprop: every
velocity, then every momentum, then every average gradient; SGD: one momentum
each). tfkit's optimizers create theirs in the same order, so for most the
two lists are the same. Two differ, and this module is the one place that
says how:

- ``Adafactor``: for a variable of rank < 2 Keras keeps two placeholder int32
  scalars (zero) where the row and column moments of a matrix go; tfkit keeps
  none.
- ``LossScaleOptimizer``: Keras lists the wrapper's own (unused) iteration and
  learning rate, its ``step_counter`` and ``dynamic_scale``, then the inner
  optimizer's list; tfkit lists the scale, the counter, then the inner list.

A placeholder is written as Keras writes it and, when read, only checked. An
optimizer not built yet is stored as Keras stores one just compiled (Keras
builds it in ``compile_from_config``): a copy built for the trainable weights,
its slots zero (``built_copy``), so Keras's loader finds every variable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import tensorflow as tf

from tfkit import optimizers
from tfkit.saving import weights_io


@dataclass(frozen=True)
class Placeholder:
    """A variable Keras keeps where tfkit keeps none: written as ``value``, checked for shape and dtype when read."""

    dtype: str
    value: float = 0
    shape: tuple[int, ...] = ()

    def array(self) -> np.ndarray:
        return np.full(self.shape, self.value, dtype=self.dtype)


def keras_order(optimizer: Any, trainable: Sequence[Any]) -> list[Any]:
    """The optimizer's variables (and placeholders) in the order Keras 3 stores them.

    ``trainable`` is the list the optimizer was built for (the model's trainable weights).
    """
    if isinstance(optimizer, optimizers.LossScaleOptimizer):
        inner = optimizer.inner_optimizer
        return [
            Placeholder("int64"),
            Placeholder("float32"),
            optimizer.step_counter,
            optimizer.dynamic_scale,
            *keras_order(inner, trainable),
        ]
    variables = list(optimizer.variables)
    if not isinstance(optimizer, optimizers.Adafactor):
        return variables
    head = 2 if isinstance(optimizer.learning_rate, tf.Variable) else 1  # iterations, learning rate
    shared = len(trainable) * (bool(optimizer.use_ema) + bool(optimizer.gradient_accumulation_steps))
    order, rest = variables[: head + shared], iter(variables[head + shared :])
    for variable in trainable:
        if len(variable.shape) < 2:
            order += [Placeholder("int32"), Placeholder("int32")]
        else:
            order += [next(rest), next(rest)]  # the row and column moments
        order.append(next(rest))  # the velocity
    return order


def built_copy(optimizer: Any, trainable: Sequence[Any]) -> Any:
    """``optimizer`` if built, else a copy built for ``trainable`` (its slots zero): what Keras stores for a model
    compiled and never trained, whose ``compile_from_config`` builds the optimizer at once."""
    if optimizer.built:
        return optimizer
    copy = type(optimizer).from_config(optimizer.get_config())
    copy.build(list(trainable))
    return copy


def stored_groups(
    optimizer: Any, trainable: Sequence[Any], as_compiled: bool = True
) -> list[tuple[str, str, list[tuple[np.ndarray, str]]]]:
    """``(group, name, arrays)`` a Keras file stores for ``optimizer``: ``optimizer/vars`` with every variable in
    Keras's order, and, for a ``LossScaleOptimizer``, ``optimizer/inner_optimizer/vars`` with the inner one's
    (Keras walks that attribute too; its loader reads the first copy).

    An optimizer not built yet is stored built (``built_copy``) in a ``.keras`` archive (``as_compiled``), whose
    loading compiles and builds it at once, and as it stands (its counter and learning rate) in a
    ``.weights.h5``, as Keras's ``save_weights`` stores it: Keras's ``load_weights`` leaves its optimizer unbuilt
    and warns of any other count."""
    if not as_compiled and not optimizer.built:
        trainable = []
    else:
        optimizer = built_copy(optimizer, trainable)
    groups = [("optimizer", optimizer.name, stored_arrays(optimizer, trainable))]
    if isinstance(optimizer, optimizers.LossScaleOptimizer):
        inner = optimizer.inner_optimizer
        groups.append(("optimizer/inner_optimizer", inner.name, stored_arrays(inner, trainable)))
    return groups


def stored_arrays(optimizer: Any, trainable: Sequence[Any]) -> list[tuple[np.ndarray, str]]:
    """``(array, dtype name)`` for ``optimizer/vars/0, 1, ...``: what a ``.keras`` archive stores."""
    out = []
    for slot in keras_order(optimizer, trainable):
        if isinstance(slot, Placeholder):
            out.append((slot.array(), slot.dtype))
        else:
            value = slot.numpy()
            out.append((np.asarray(value), slot.dtype.name))
    return out


def stored_pairs(
    optimizer: Any, trainable: Sequence[Any], table: dict[str, Any], source: str
) -> list[tuple[tf.Variable, Any, str]]:
    """``(variable, dataset, where)`` for the archive's ``optimizer/vars/<i>`` (``table``: ``"vars/<i>"`` ->
    dataset) into a built ``optimizer``; one ``ValueError`` listing every count, shape or dtype problem."""
    indices = {}
    for key, dataset in table.items():
        head, _, index = key.rpartition("/")
        if key.startswith("inner_optimizer/"):
            continue  # a LossScaleOptimizer's inner optimizer, stored again: optimizer/vars has it
        if head != "vars" or not index.isdigit():
            raise ValueError(f"{source}: optimizer/{key} is not an optimizer variable (optimizer/vars/<index>)")
        indices[int(index)] = dataset
    order = keras_order(optimizer, trainable)
    if sorted(indices) != list(range(len(indices))) or len(indices) != len(order):
        raise ValueError(
            f"{source} stores {len(indices)} optimizer variables (optimizer/vars/0..), but "
            f"{type(optimizer).__name__} built for these {len(trainable)} trainable weights has {len(order)} in "
            f"Keras's order; the trainable weights or the optimizer differ from those saved. "
            f"Load with compile=False and compile again to start with a fresh optimizer."
        )
    pairs, problems = [], []
    for index, slot in enumerate(order):
        dataset, where = indices[index], f"optimizer/vars/{index}"
        if isinstance(slot, Placeholder):
            if tuple(dataset.shape) != slot.shape or dataset.tf_dtype != slot.dtype:
                problems.append(
                    f"{where}: expected Keras's placeholder {slot.shape} {slot.dtype}, found "
                    f"{tuple(dataset.shape)} {dataset.tf_dtype}"
                )
            continue
        problem = weights_io.problem(slot, dataset)
        if problem:
            problems.append(f"{where} ({slot.name.split(':')[0]}): {problem}")
        else:
            pairs.append((slot, dataset, where))
    if problems:
        raise ValueError(
            f"{source}: the optimizer state does not match {type(optimizer).__name__}:\n  "
            + "\n  ".join(problems[:25])
            + "\nLoad with compile=False and compile again to start with a fresh optimizer."
        )
    return pairs
