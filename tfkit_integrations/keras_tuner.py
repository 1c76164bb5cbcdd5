"""keras-tuner's tuners, searching over tfkit models.

    from tfkit_integrations.keras_tuner import RandomSearch
    tuner = RandomSearch(build_model, objective="val_loss", max_trials=5, directory="tuning")
    tuner.search(x, y, epochs=3, validation_split=0.2)
    best = tuner.get_best_models(1)[0]          # a tfkit model, with the best epoch's weights

keras-tuner's own `RandomSearch`, `Hyperband`, `BayesianOptimization` and
`GridSearch` stop at `isinstance(model, keras.Model)` when the build function
returns a tfkit model, and read the result of `fit` only as a
`keras.callbacks.History`. The classes here are those tuners (subclasses, with
their oracles, search spaces, trial folders, `TunerCallback` and best-epoch
checkpoints unchanged); `TfkitTunerMixin` changes only where the model is built,
checked, trained and reloaded. This module imports keras_tuner (and so Keras);
tfkit never imports it.
"""

from __future__ import annotations

import math
from typing import Any

import keras
import keras_tuner
from keras_tuner.engine.tuner import maybe_distribute

import tfkit

__all__ = ["BayesianOptimization", "GridSearch", "Hyperband", "RandomSearch", "TfkitTunerMixin", "keras_results"]


def keras_results(results: Any) -> Any:
    """What a hypermodel's `fit` returned, in the types keras-tuner reads.

    keras-tuner takes a float, a dict of metrics, a `keras.callbacks.History` or a
    list of these. A tfkit `History` (what `tfkit.Model.fit` returns) becomes a
    `keras.callbacks.History` with the same `history` and `epoch`, so keras-tuner
    picks the best epoch's metrics from it as it does for Keras; anything else
    is returned as it is.

    Args:
        results: The value a `HyperModel.fit` (by default `model.fit(...)`) returned.

    Returns:
        `results`, with every tfkit `History` in it replaced by a `keras.callbacks.History`.

    Example:
        >>> history = tfkit.callbacks.History()
        >>> history.on_train_begin()
        >>> history.on_epoch_end(0, {"val_loss": 0.5})
        >>> converted = keras_results(history)
        >>> type(converted).__module__.startswith("keras"), converted.history, converted.epoch
        (True, {'val_loss': [0.5]}, [0])
    """
    if isinstance(results, list):
        return [keras_results(item) for item in results]
    if isinstance(results, tfkit.callbacks.History):
        converted = keras.callbacks.History()
        converted.history = {name: list(values) for name, values in results.history.items()}
        converted.epoch = list(results.epoch)
        return converted
    return results


class TfkitTunerMixin:
    """Makes a keras-tuner `Tuner` build, train and reload tfkit models.

    Put it first among the bases of a keras-tuner tuner class
    (`class MyTuner(TfkitTunerMixin, keras_tuner.RandomSearch)`); the classes in
    this module are built that way. The build function (or `HyperModel.build`)
    returns a compiled `tfkit.Model`; `search` passes its `fit` arguments to
    `tfkit.Model.fit`, with keras-tuner's callbacks (which run in tfkit's `fit`
    as they are) and any given in `search(callbacks=...)`. The tuner's
    `optimizer=`, `loss=` and `metrics=` arguments recompile each model, as in
    keras-tuner; give tfkit objects or names there. keras-tuner's best-epoch
    checkpoints are written with `model.save_weights` and read back by
    `get_best_models` with `model.load_weights`.

    Example:
        >>> import keras_tuner
        >>> class MyRandomSearch(TfkitTunerMixin, keras_tuner.RandomSearch):
        ...     pass
        >>> issubclass(MyRandomSearch, keras_tuner.Tuner)
        True
    """

    def _try_build(self, hp: Any) -> tfkit.Model:
        tfkit.backend.clear_session(free_memory=False)  # keras-tuner clears Keras's session before each build
        model = self._build_hypermodel(hp)
        if not isinstance(model, tfkit.Model):
            raise keras_tuner.errors.FatalTypeError(
                "Expected the model-building function, or HyperModel.build(), to return a tfkit.Model "
                f"(these tuners train tfkit models); received {model!r} of type {type(model).__name__}."
            )
        if self.max_model_size and model.built:
            size = sum(math.prod(w.shape) for w in model.trainable_weights)
            if size > self.max_model_size:
                raise keras_tuner.errors.FailedTrialError(f"Oversized model: {size} parameters. Skip model.")
        return model

    def _build_hypermodel(self, hp: Any) -> Any:
        with maybe_distribute(self.distribution_strategy):
            model = self.hypermodel.build(hp)
            if isinstance(model, tfkit.Model):
                self._override_compile_args(model)
            return model

    def _override_compile_args(self, model: tfkit.Model) -> None:
        if not (self.optimizer or self.loss or self.metrics):
            return
        config = model.get_compile_config() if model.compiled else {}
        if self.optimizer:
            # A fresh optimizer for each trial, from the given one's config (a name stays a name).
            config["optimizer"] = (
                self.optimizer if isinstance(self.optimizer, str) else tfkit.optimizers.serialize(self.optimizer)
            )
        if self.loss:
            config["loss"] = self.loss
        if self.metrics:
            config["metrics"] = self.metrics
        model.compile_from_config(config)

    def _build_and_fit_model(self, trial: Any, *args: Any, **kwargs: Any) -> Any:
        hp = trial.hyperparameters
        model = self._try_build(hp)
        return keras_results(self.hypermodel.fit(hp, model, *args, **kwargs))

    def load_model(self, trial: Any) -> tfkit.Model:
        """The model of a trial, rebuilt from its hyperparameters, with its best epoch's weights.

        Args:
            trial: A finished `keras_tuner.engine.trial.Trial` of this tuner.

        Returns:
            The trial's `tfkit.Model`, its weights read from the trial's checkpoint.
        """
        model = self._try_build(trial.hyperparameters)
        with maybe_distribute(self.distribution_strategy):
            model.load_weights(self._get_checkpoint_fname(trial.trial_id))
        return model


class RandomSearch(TfkitTunerMixin, keras_tuner.RandomSearch):
    """keras-tuner's `RandomSearch` over tfkit models: hyperparameters drawn at random.

    Takes the arguments of `keras_tuner.RandomSearch` (see its documentation);
    the build function returns a compiled `tfkit.Model`.

    Args:
        hypermodel: A `keras_tuner.HyperModel`, or a function of `hp` that returns a
            compiled `tfkit.Model`.
        **kwargs: The other arguments of `keras_tuner.RandomSearch`: `objective`,
            `max_trials`, `seed`, `directory`, `project_name`, `overwrite`, ...

    Example:
        >>> def build_model(hp):
        ...     model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(hp.Int("units", 2, 4)),
        ...                               tfkit.layers.Dense(1)])
        ...     model.compile(tfkit.optimizers.SGD(hp.Choice("learning_rate", [0.01, 0.1])), "mse")
        ...     return model
        >>> tuner = RandomSearch(build_model, objective="val_loss", max_trials=2, seed=0,
        ...                      directory="tuning", project_name="random_search", overwrite=True)
        >>> x = np.random.rand(32, 3); y = x.sum(axis=1, keepdims=True)
        >>> tuner.search(x, y, epochs=2, validation_split=0.25, verbose=0)
        >>> best = tuner.get_best_models(1)[0]
        >>> isinstance(best, tfkit.Model), len(tuner.oracle.trials)
        (True, 2)
    """

    def __init__(self, hypermodel: Any = None, **kwargs: Any) -> None:
        super().__init__(hypermodel=hypermodel, **kwargs)


class BayesianOptimization(TfkitTunerMixin, keras_tuner.BayesianOptimization):
    """keras-tuner's `BayesianOptimization` over tfkit models: a Gaussian process picks the next trial.

    Takes the arguments of `keras_tuner.BayesianOptimization` (see its
    documentation); the build function returns a compiled `tfkit.Model`.

    Args:
        hypermodel: A `keras_tuner.HyperModel`, or a function of `hp` that returns a
            compiled `tfkit.Model`.
        **kwargs: The other arguments of `keras_tuner.BayesianOptimization`:
            `objective`, `max_trials`, `num_initial_points`, `seed`, `directory`, ...

    Example:
        >>> def build_model(hp):
        ...     model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
        ...     model.compile(tfkit.optimizers.SGD(hp.Float("learning_rate", 0.01, 0.1)), "mse")
        ...     return model
        >>> tuner = BayesianOptimization(build_model, objective="loss", max_trials=2, seed=0,
        ...                              directory="tuning", project_name="bayesian", overwrite=True)
        >>> x = np.random.rand(16, 3); y = x.sum(axis=1, keepdims=True)
        >>> tuner.search(x, y, epochs=1, verbose=0)
        >>> len(tuner.oracle.trials)
        2
    """

    def __init__(self, hypermodel: Any = None, **kwargs: Any) -> None:
        super().__init__(hypermodel=hypermodel, **kwargs)


class GridSearch(TfkitTunerMixin, keras_tuner.GridSearch):
    """keras-tuner's `GridSearch` over tfkit models: every combination of the hyperparameters, in order.

    Takes the arguments of `keras_tuner.GridSearch` (see its documentation); the
    build function returns a compiled `tfkit.Model`.

    Args:
        hypermodel: A `keras_tuner.HyperModel`, or a function of `hp` that returns a
            compiled `tfkit.Model`.
        **kwargs: The other arguments of `keras_tuner.GridSearch`: `objective`,
            `max_trials`, `seed`, `directory`, `project_name`, ...

    Example:
        >>> def build_model(hp):
        ...     model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
        ...     model.compile(tfkit.optimizers.SGD(hp.Choice("learning_rate", [0.01, 0.1])), "mse")
        ...     return model
        >>> tuner = GridSearch(build_model, objective="loss", directory="tuning", project_name="grid", overwrite=True)
        >>> x = np.random.rand(16, 3); y = x.sum(axis=1, keepdims=True)
        >>> tuner.search(x, y, epochs=1, verbose=0)
        >>> sorted(t.hyperparameters.get("learning_rate") for t in tuner.oracle.trials.values())
        [0.01, 0.1]
    """

    def __init__(self, hypermodel: Any = None, **kwargs: Any) -> None:
        super().__init__(hypermodel=hypermodel, **kwargs)


class Hyperband(TfkitTunerMixin, keras_tuner.Hyperband):
    """keras-tuner's `Hyperband` over tfkit models: many short trials, the best ones trained on.

    Takes the arguments of `keras_tuner.Hyperband` (see its documentation); the
    build function returns a compiled `tfkit.Model`. A trial that continues an
    earlier one starts from that trial's best checkpoint, read with
    `model.load_weights`, and trains from its `initial_epoch`, as in keras-tuner.

    Args:
        hypermodel: A `keras_tuner.HyperModel`, or a function of `hp` that returns a
            compiled `tfkit.Model`.
        **kwargs: The other arguments of `keras_tuner.Hyperband`: `objective`,
            `max_epochs`, `factor`, `hyperband_iterations`, `seed`, `directory`, ...

    Example:
        >>> def build_model(hp):
        ...     model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(1)])
        ...     model.compile(tfkit.optimizers.SGD(hp.Choice("learning_rate", [0.01, 0.1])), "mse")
        ...     return model
        >>> tuner = Hyperband(build_model, objective="loss", max_epochs=3, factor=3, seed=0,
        ...                   directory="tuning", project_name="hyperband", overwrite=True)
        >>> x = np.random.rand(16, 3); y = x.sum(axis=1, keepdims=True)
        >>> tuner.search(x, y, verbose=0)
        >>> isinstance(tuner.get_best_models(1)[0], tfkit.Model)
        True
    """

    def __init__(self, hypermodel: Any = None, **kwargs: Any) -> None:
        super().__init__(hypermodel=hypermodel, **kwargs)

    def _build_hypermodel(self, hp: Any) -> Any:
        model = super()._build_hypermodel(hp)
        earlier = hp.values.get("tuner/trial_id")
        if earlier is not None and isinstance(model, tfkit.Model):  # go on from the earlier trial's best epoch
            with maybe_distribute(self.distribution_strategy):
                model.load_weights(self._get_checkpoint_fname(earlier))
        return model
