"""What ``compile(loss=..., metrics=...)`` turns into: one loss and one metric container.

    loss = CompileLoss({"digits": "sparse_categorical_crossentropy"}, None, ["digits"])
    total = loss(y_true, y_pred, sample_weight)        # weighted sum over outputs
    metrics = CompileMetrics(["accuracy"], None, ["digits"]); metrics.build(y, y_pred, loss)

Outputs are matched by name (dicts), position (lists) or, for a single
output, directly. Fewer targets than outputs pair, in order, with the outputs
that have a loss (Keras 3's ``compile(loss=[fn, None])`` fitted with one
``y``; ``pair_targets``). Per-output losses are logged as ``<output>_loss``
when a model has several outputs, as Keras does.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import tensorflow as tf

from tfkit import losses as losses_module
from tfkit import metrics as metrics_module
from tfkit.engine import masking


def display_name(metric: Any) -> str:
    """The name ``fit`` logs a compiled metric under (``"output_1_accuracy"``, ``"weighted_mae"``), else its own."""
    return getattr(metric, "_tfkit_display_name", metric.name)


def _flat_outputs(value: Any, output_names: Sequence[str], allow_missing: bool = False) -> list[Any]:
    """Outputs (or targets) as a list in ``output_names`` order; ``allow_missing``: None for absent names."""
    if isinstance(value, dict):
        missing = [n for n in output_names if n not in value]
        if allow_missing:
            return [value.get(n) for n in output_names]
        if missing:
            raise ValueError(
                f"Expected entries for outputs {list(output_names)}, missing {missing}; got keys {sorted(value)}"
            )
        return [value[n] for n in output_names]
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _per_output(spec: Any, output_names: Sequence[str], what: str) -> list[Any]:
    """``spec`` expanded to one entry per output (None where an output has none)."""
    n = len(output_names)
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(output_names))
        if unknown:
            raise ValueError(
                f"compile({what}=...) names unknown outputs {unknown}; the model's outputs are {list(output_names)}"
            )
        return [spec.get(name) for name in output_names]
    if isinstance(spec, (list, tuple)) and n > 1:
        if len(spec) != n:
            raise ValueError(
                f"compile({what}=...) got a list of {len(spec)} entries for a model with {n} outputs {list(output_names)}"
            )
        return list(spec)
    if n > 1 and what == "loss" and spec is not None:
        return [spec] * n
    return [spec] + [None] * (n - 1)


def pair_targets(value: Any, output_names: Sequence[str], with_loss: Sequence[bool], what: str = "y") -> list[Any]:
    """``value`` (targets or sample weights) as one entry per output, None where an output gets none.

    A dict is matched by output name and a list or tuple of one entry per output by
    position. Fewer entries than outputs go, in order, to the outputs that have a loss:
    Keras 3's ``compile(loss=[loss_fn, None])`` fitted with one ``y`` (``CompileLoss.call``
    in ``keras/src/trainers/compile_utils.py``). Keras 3 refuses that pairing when the
    loss is a dict with None values (a ``KeyError``); tfkit pairs it the same way.
    Any other count raises Keras's error: "y_true and y_pred have different structures".
    """
    names = list(output_names)
    if value is None:
        return [None] * len(names)
    if isinstance(value, dict):
        return _flat_outputs(value, names, allow_missing=True)
    flat = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(flat) == len(names):
        return flat
    takers = [i for i, has_loss in enumerate(with_loss) if has_loss]
    if len(flat) == len(takers):
        paired: list[Any] = [None] * len(names)
        for i, entry in zip(takers, flat):
            paired[i] = entry
        return paired
    with_names = [names[i] for i in takers]
    raise ValueError(
        f"y_true and y_pred have different structures: the model has {len(names)} outputs {names}, "
        f"{len(takers)} of them with a loss {with_names}, but {what} holds {len(flat)} "
        f"entr{'y' if len(flat) == 1 else 'ies'}. Pass one per output, or one per output that has a loss, "
        f"in output order (or a dict keyed by output name)."
    )


class CompileLoss:
    """The compiled loss of a model: a weighted sum of one loss per output."""

    def __init__(self, loss: Any, loss_weights: Any, output_names: Sequence[str]) -> None:
        self.output_names = list(output_names)
        self.config_is_none = loss is None  # compile(loss=None): targets are never looked at
        self.losses = [
            losses_module.loss_object(l) if l is not None else None
            for l in _per_output(loss, self.output_names, "loss")
        ]
        if loss_weights is None:
            self.weights = [1.0] * len(self.output_names)
        else:
            self.weights = [
                1.0 if w is None else float(w) for w in _per_output(loss_weights, self.output_names, "loss_weights")
            ]
        # "<output>_loss" for each output that has a loss, when more than one has (as Keras 3 logs them)
        with_loss = [i for i, l in enumerate(self.losses) if l is not None]
        self._tracker_of = (
            {i: metrics_module.Mean(name=f"{self.output_names[i]}_loss") for i in with_loss}
            if len(with_loss) > 1
            else {}
        )
        self.trackers = list(self._tracker_of.values())

    @property
    def empty(self) -> bool:
        return all(l is None for l in self.losses)

    @property
    def with_loss(self) -> list[bool]:
        """For each output, whether it has a loss (and so takes a target when fewer targets than outputs come)."""
        return [l is not None for l in self.losses]

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> tf.Tensor | None:
        if self.empty and (self.config_is_none or y_true is None):
            return None
        if y_true is None:
            raise ValueError(
                "The model was compiled with a loss but no targets were given: pass y to fit/evaluate, "
                "or compile without a loss to train on add_loss() losses only."
            )
        preds = _flat_outputs(y_pred, self.output_names)
        if len(preds) != len(self.losses):
            raise ValueError(
                f"The model has {len(self.losses)} outputs {self.output_names} but its call returned "
                f"{len(preds)} predictions"
            )
        trues = pair_targets(y_true, self.output_names, self.with_loss)  # targets only where a loss needs them
        missing = [
            name for name, loss, t in zip(self.output_names, self.losses, trues) if loss is not None and t is None
        ]
        if missing:
            given = (
                f"the target dict has keys {sorted(y_true)}" if isinstance(y_true, dict) else "their targets are None"
            )
            raise ValueError(f"No targets for the outputs {missing}, which have a loss: {given}")
        weights = (
            pair_targets(sample_weight, self.output_names, self.with_loss, "sample_weight")
            if isinstance(sample_weight, (dict, list, tuple))
            else [sample_weight] * len(preds)
        )
        total = None
        for i, (loss, weight, t, p, sw) in enumerate(zip(self.losses, self.weights, trues, preds, weights)):
            if loss is None:
                continue
            value = loss(t, p, sample_weight=sw)
            if i in self._tracker_of:
                self._tracker_of[i].update_state(value)
            value = value * weight if weight != 1.0 else value
            total = value if total is None else total + value
        return total


class CompileMetrics:
    """Every compiled metric of a model, one list per output; built from the first batch."""

    name = "compile_metrics"

    def __init__(
        self, metrics: Any, weighted_metrics: Any, output_names: Sequence[str], with_loss: Sequence[bool] | None = None
    ) -> None:
        self.metrics_config = metrics
        self.weighted_config = weighted_metrics
        self.output_names = list(output_names)
        # which outputs have a loss: fewer targets than outputs pair with those (pair_targets)
        self.with_loss = list(with_loss) if with_loss is not None else [True] * len(self.output_names)
        self.built = False
        self.per_output: list[list[Any]] = [[] for _ in self.output_names]
        self.weighted_per_output: list[list[Any]] = [[] for _ in self.output_names]

    def build(self, y_true: Any, y_pred: Any, compile_loss: CompileLoss | None) -> None:
        """Resolve names such as ``"accuracy"`` by the loss and the target/prediction shapes."""
        if self.built:
            return
        trues = self._targets(y_true)
        preds = _flat_outputs(y_pred, self.output_names)
        loss_objs = compile_loss.losses if compile_loss is not None else [None] * len(preds)
        prefix = len(self.output_names) > 1
        for config, target in (
            (self.metrics_config, self.per_output),
            (self.weighted_config, self.weighted_per_output),
        ):
            if config is None:
                continue
            expanded = self._expand(config)
            for i, entries in enumerate(expanded):
                if entries and y_true is not None and trues[i] is None:
                    self._warn_no_target(i, entries)
                    continue
                for entry in entries or []:
                    metric = self._resolve(entry, loss_objs[i] if i < len(loss_objs) else None, trues[i], preds[i])
                    target[i].append(metric)
        self._name_logs(prefix)
        self.built = True

    def _name_logs(self, prefix: bool) -> None:
        """The names ``fit`` logs the metrics under, as Keras 3's ``CompileMetrics.result`` gives them.

        ``<output>_<name>`` with several outputs; a repeated name gets ``_1``, ``_2``; a weighted metric keeps
        its name unless an unweighted one has it, and is then ``weighted_<name>`` (``weighted_mae``).
        """
        counts: dict[str, int] = {}
        for i, name in enumerate(self.output_names):
            for metric in self.per_output[i]:
                base = f"{name}_{metric.name}" if prefix else metric.name
                index = counts.get(base, 0)
                counts[base] = index + 1
                metric._tfkit_display_name = base if index == 0 else f"{base}_{index}"
        for i, name in enumerate(self.output_names):
            for metric in self.weighted_per_output[i]:
                base = f"{name}_{metric.name}" if prefix else metric.name
                if base not in counts:
                    counts[base] = 1
                    metric._tfkit_display_name = base
                    continue
                base = f"{name}_weighted_{metric.name}" if prefix else f"weighted_{metric.name}"
                index = counts.get(base, 0)
                counts[base] = index + 1
                metric._tfkit_display_name = base if index == 0 else f"{base}_{index}"

    def _targets(self, value: Any, what: str = "y") -> list[Any]:
        """Targets (or sample weights) per output, as the loss pairs them; counts the loss would refuse go
        by position from the first output, as Keras 3's metrics zip them (a custom step's own targets)."""
        try:
            return pair_targets(value, self.output_names, self.with_loss, what)
        except ValueError:
            flat = (list(value) if isinstance(value, (list, tuple)) else [value])[: len(self.output_names)]
            return flat + [None] * (len(self.output_names) - len(flat))

    def _warn_no_target(self, index: int, entries: list[Any]) -> None:
        """Targets were given, yet none for an output with metrics: its metrics are left out, with a warning.

        Keras 3 leaves them out silently, or (``metrics=[[m], [m]]`` with ``loss=[None, fn]`` and one
        target) computes the first output's metrics against the second output's target.
        """
        name = self.output_names[index]
        takers = [n for n, has_loss in zip(self.output_names, self.with_loss) if has_loss]
        shown = [e if isinstance(e, str) else getattr(e, "name", getattr(e, "__name__", repr(e))) for e in entries]
        warnings.warn(
            f"compile(metrics=...) gives output '{name}' the metrics {shown}, but the targets given hold none "
            f"for it (fewer targets than outputs go to the outputs with a loss, {takers}); they are not computed. "
            f"Pass a target for '{name}' too to compute them.",
            stacklevel=4,
        )

    def _expand(self, config: Any) -> list[list[Any]]:
        n = len(self.output_names)
        if isinstance(config, dict):
            per = _per_output(config, self.output_names, "metrics")
            return [p if isinstance(p, (list, tuple)) else ([p] if p is not None else []) for p in per]
        if isinstance(config, (list, tuple)):
            if n > 1 and config and all(isinstance(c, (list, tuple)) or c is None for c in config):
                if len(config) != n:
                    raise ValueError(f"compile(metrics=...) got {len(config)} lists for {n} outputs")
                return [list(c or []) for c in config]
            return [list(config) for _ in range(n)]
        return [[config] for _ in range(n)]

    @staticmethod
    def _resolve(entry: Any, loss: Any, y_true: Any, y_pred: Any) -> Any:
        if isinstance(entry, str) and entry in ("accuracy", "acc"):
            return metrics_module.resolve_accuracy(
                entry, loss, getattr(y_true, "shape", None), getattr(y_pred, "shape", None)
            )
        return metrics_module.get(entry)

    @property
    def metrics(self) -> list[Any]:
        return [m for group in self.per_output + self.weighted_per_output for m in group]

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if not self.built:
            self.build(y_true, y_pred, None)
        trues = self._targets(y_true)
        preds = _flat_outputs(y_pred, self.output_names)
        weights = (
            self._targets(sample_weight, "sample_weight")
            if isinstance(sample_weight, (dict, list, tuple))
            else [sample_weight] * len(preds)
        )
        for i, (t, p) in enumerate(zip(trues, preds)):
            if t is None and not self.per_output[i] and not self.weighted_per_output[i]:
                continue  # an output trained by no loss or metric needs no target
            p = _as_float32_if_half(p)  # mixed precision: metrics computed in float32, as losses are
            for metric in self.per_output[i]:
                metric.update_state(t, p)
            for metric in self.weighted_per_output[i]:
                metric.update_state(t, p, sample_weight=weights[i])

    def result(self) -> dict[str, Any]:
        return {display_name(m): m.result() for m in self.metrics}

    def reset_state(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    @property
    def variables(self) -> list[tf.Variable]:
        return [v for m in self.metrics for v in m.variables]


def _as_float32_if_half(value: Any) -> Any:
    """16-bit floating predictions (mixed precision) as float32; anything else unchanged."""
    if isinstance(value, (tf.Tensor, tf.Variable)) and value.dtype in (tf.float16, tf.bfloat16):
        cast = tf.cast(value, tf.float32)
        mask = masking.get_mask(value)
        if mask is not None:
            masking.set_mask(cast, mask)
        return cast
    return value
