"""``SKLearnClassifier``, ``SKLearnRegressor``, ``SKLearnTransformer``: tfkit models as sklearn estimators.

    est = SKLearnRegressor(model=make_model, model_kwargs={"units": 32}, fit_kwargs={"epochs": 10})
    est.fit(X, y)                      # make_model(X=X, y=y, units=32) builds and compiles a model
    r2 = est.score(X, y)               # sklearn's RegressorMixin.score

``model`` is a compiled ``tfkit.Model`` (cloned with ``tfkit.models.clone_model``
at each fit, unless ``warm_start``) or a callable ``model(X=..., y=..., **model_kwargs)``
returning a compiled model. Classifiers one-hot encode the labels for training and
turn predicted scores back into labels (``classes_``), as Keras 3's wrappers do.
This module imports scikit-learn; ``tfkit.wrappers`` imports it on first use.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from tfkit.models.cloning import clone_model
from tfkit.models.model import Model
from tfkit.wrappers.pickling import ModelBytes, history_from_state, history_state
from tfkit.wrappers.target_reshaper import TargetReshaper


def _validate_data(estimator: Any, *args: Any, **kwargs: Any) -> Any:
    """sklearn's input validation (``validate_data`` from 1.6, the estimator method before)."""
    try:
        from sklearn.utils.validation import validate_data
    except ImportError:  # scikit-learn < 1.6
        return estimator._validate_data(*args, **kwargs)
    return validate_data(estimator, *args, **kwargs)


def _target_type(y: Any) -> str:
    target_type = type_of_target(y)
    if target_type == "unknown":
        raise ValueError(f"Unknown label type for the target y: {y!r}")
    return target_type


def _check_compiled(model: Any, who: str) -> None:
    if not isinstance(model, Model):
        raise TypeError(f"{who}: `model` must be a tfkit Model or a callable returning one, got {type(model).__name__}")
    if not getattr(model, "compiled", False) or not model.loss or not model.optimizer:
        raise RuntimeError(
            f"{who}: the model needs to be compiled with a loss and an optimizer before fit; call "
            "model.compile(optimizer=..., loss=...) (in the function that builds it, if `model` "
            "is a callable)"
        )


class SKLBase(BaseEstimator):
    """What the three wrappers share: constructor, fit, predict, cloning.

    Args:
        model: a compiled ``tfkit.Model`` (cloned before each fit unless
            ``warm_start=True``) or a callable taking ``X=`` and ``y=`` (and
            ``model_kwargs``) that returns a compiled model.
        warm_start: reuse the weights of the previous fit instead of starting afresh.
        model_kwargs: keyword arguments for ``model`` when it is a callable.
        fit_kwargs: keyword arguments for ``Model.fit`` (those given to ``fit``
            itself take precedence).

    Attributes (after fit): ``model_`` (the fitted model), ``history_`` (what
    ``Model.fit`` returned), ``n_features_in_``.
    """

    def __init__(
        self,
        model: Any,
        warm_start: bool = False,
        model_kwargs: dict[str, Any] | None = None,
        fit_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.warm_start = warm_start
        self.model_kwargs = model_kwargs
        self.fit_kwargs = fit_kwargs

    def _more_tags(self) -> dict[str, Any]:  # scikit-learn < 1.6
        return {"non_deterministic": True}

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    def __sklearn_clone__(self) -> SKLBase:
        """An unfitted copy with the same parameters; the model itself is shared (fit clones it)."""
        return type(self)(
            model=self.model, warm_start=self.warm_start, model_kwargs=self.model_kwargs, fit_kwargs=self.fit_kwargs
        )

    def __getstate__(self) -> dict[str, Any]:
        """Pickle-able state: tfkit models (``model``, ``model_``) as saved-file bytes, ``history_`` as data."""
        state = dict(super().__getstate__())
        for key in ("model", "model_"):
            if isinstance(state.get(key), Model):
                state[key] = ModelBytes.from_model(state[key])
        if "history_" in state:
            state["history_"] = history_state(state["history_"])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        for key in ("model", "model_"):
            if isinstance(state.get(key), ModelBytes):
                state[key] = state[key].to_model()
        if isinstance(state.get("history_"), dict):
            state["history_"] = history_from_state(state["history_"], state.get("model_"))
        super().__setstate__(state)

    @property
    def epoch_(self) -> int:
        """How many epochs the last fit ran (0 before fitting)."""
        history = getattr(self, "history_", None)
        return len(getattr(history, "epoch", [])) if history is not None else 0

    def set_fit_request(self, **kwargs: Any) -> SKLBase:
        """Request metadata (such as ``sample_weight``) for ``fit`` under sklearn's metadata routing."""
        if not sklearn.get_config().get("enable_metadata_routing", False):
            raise RuntimeError(
                "set_fit_request() is only available when metadata routing is enabled: call "
                "sklearn.set_config(enable_metadata_routing=True) first"
            )
        from sklearn.utils.metadata_routing import MetadataRequest

        self._metadata_request = MetadataRequest(owner=type(self).__name__)
        for param, alias in kwargs.items():
            self._metadata_request.fit.add_request(param=param, alias=alias)
        return self

    def _get_model(self, X: np.ndarray, y: np.ndarray) -> Any:
        if self.warm_start and hasattr(self, "model_"):
            return self.model_
        if isinstance(self.model, Model):
            return self.model if self.warm_start else clone_model(self.model)
        if not callable(self.model):
            raise TypeError(
                f"{type(self).__name__}: `model` must be a tfkit Model or a callable returning one, "
                f"got {type(self.model).__name__}"
            )
        return self.model(X=X, y=y, **(self.model_kwargs or {}))

    def fit(self, X: Any, y: Any, **kwargs: Any) -> SKLBase:
        """Build (or reuse) the model and train it on ``X`` (n_samples, n_features) and ``y``.

        ``kwargs`` go to ``Model.fit`` on top of ``fit_kwargs``.
        """
        X, y = _validate_data(self, X, y)
        y = self._process_target(y, reset=True)
        model = self._get_model(X, y)
        _check_compiled(model, type(self).__name__)
        fit_kwargs = dict(self.fit_kwargs or {})
        fit_kwargs.update(kwargs)
        self.history_ = model.fit(X, y, **fit_kwargs)
        self.model_ = model
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The model's predictions for ``X``, in the shape (and, for classifiers, the labels) of ``y``."""
        check_is_fitted(self)
        X = _validate_data(self, X, reset=False)
        return self._reverse_process_target(self.model_.predict(X))

    def _process_target(self, y: np.ndarray, reset: bool = False) -> np.ndarray:
        _target_type(y)
        if reset:
            self._target_encoder = TargetReshaper().fit(y)
        return self._target_encoder.transform(y)

    def _reverse_process_target(self, y: np.ndarray) -> np.ndarray:
        return self._target_encoder.inverse_transform(y)


class SKLearnClassifier(ClassifierMixin, SKLBase):
    """A tfkit model as a scikit-learn classifier, as Keras's `keras.wrappers.SKLearnClassifier`.

    Labels (binary or multiclass, of any sortable type) are one-hot encoded for training, so the
    model should end in `len(classes_)` units (softmax) and be compiled with
    `categorical_crossentropy`; `predict` returns the label of the highest score and
    `decision_function` the raw scores. `score` is sklearn's accuracy. The estimator works with
    sklearn's tools (`clone`, pipelines, `cross_val_score`, grid search) and pickles (its models
    are stored as saved-model bytes). scikit-learn is imported when the class is first looked
    up; a missing scikit-learn is an `ImportError` naming `pip install scikit-learn`.

    Args:
        model: A compiled `tfkit.Model`, cloned with `tfkit.models.clone_model` (fresh weights)
            before each fit unless `warm_start=True`; or a callable `model(X=..., y=...,
            **model_kwargs)` returning a compiled model, called at each fit with the training data
            (after the target is encoded) so it can size the model from them.
        warm_start: Whether to keep training the model of the previous fit instead of starting
            afresh. Defaults to `False`.
        model_kwargs: Optional dict of keyword arguments for `model` when it is a callable.
            Defaults to `None`.
        fit_kwargs: Optional dict of keyword arguments for `Model.fit` (e.g. `epochs`,
            `batch_size`, `verbose`); those given to the estimator's `fit` take precedence.
            Defaults to `None`.

    After `fit`, the estimator holds `model_` (the fitted `tfkit.Model`), `history_` (the
    `History` returned by `Model.fit`), `n_features_in_` (the number of features seen) and
    `classes_` (the sorted class labels).

    Raises:
        ValueError: From `fit`, if the target is not binary or multiclass, or holds one class.
        TypeError: From `fit`, if `model` is neither a `tfkit.Model` nor a callable returning one.
        RuntimeError: From `fit`, if the model is not compiled with a loss and an optimizer.

    Example:
        >>> def make_model(X, y):
        ...     model = tfkit.Sequential([tfkit.Input((X.shape[1],)), tfkit.layers.Dense(2, activation="softmax")])
        ...     model.compile(optimizer="sgd", loss="categorical_crossentropy")
        ...     return model
        >>> X = np.random.rand(8, 3).astype("float32")
        >>> y = np.array(["cat", "dog"] * 4)
        >>> clf = tfkit.wrappers.SKLearnClassifier(model=make_model, fit_kwargs={"epochs": 1, "verbose": 0})
        >>> clf.fit(X, y).classes_
        array(['cat', 'dog'], dtype='<U3')
        >>> clf.predict(X[:3]).shape
        1/1 ...
        (3,)
    """

    def decision_function(self, X: Any) -> np.ndarray:
        """The model's raw outputs (one score per class) for ``X``."""
        check_is_fitted(self)
        X = _validate_data(self, X, reset=False)
        return self.model_.predict(X)

    def _process_target(self, y: np.ndarray, reset: bool = False) -> np.ndarray:
        target_type = _target_type(y)
        if target_type not in ("binary", "multiclass"):
            raise ValueError(
                f"{type(self).__name__} supports binary and multiclass targets only; the target y is {target_type!r}"
            )
        if reset:
            self._target_encoder = make_pipeline(TargetReshaper(), OneHotEncoder(sparse_output=False)).fit(y)
            self.classes_ = np.unique(y)
            if len(self.classes_) == 1:
                raise ValueError(
                    f"{type(self).__name__} can't train when only one class is present in y "
                    f"(class {self.classes_[0]!r})"
                )
        return self._target_encoder.transform(y)

    def _more_tags(self) -> dict[str, Any]:
        return {**super()._more_tags(), "poor_score": True}

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


class SKLearnRegressor(RegressorMixin, SKLBase):
    """A tfkit model as a scikit-learn regressor, as Keras's `keras.wrappers.SKLearnRegressor`.

    A target `y` of shape `(n,)` is trained as `(n, 1)`, and predictions come back as `(n,)`.
    `score` is sklearn's R^2. The estimator works with sklearn's tools (`clone`, pipelines,
    `cross_val_score`, grid search) and pickles (its models are stored as saved-model bytes).
    scikit-learn is imported when the class is first looked up; a missing scikit-learn is an
    `ImportError` naming `pip install scikit-learn`.

    Args:
        model: A compiled `tfkit.Model`, cloned with `tfkit.models.clone_model` (fresh weights)
            before each fit unless `warm_start=True`; or a callable `model(X=..., y=...,
            **model_kwargs)` returning a compiled model, called at each fit with the training data
            (after the target is encoded) so it can size the model from them.
        warm_start: Whether to keep training the model of the previous fit instead of starting
            afresh. Defaults to `False`.
        model_kwargs: Optional dict of keyword arguments for `model` when it is a callable.
            Defaults to `None`.
        fit_kwargs: Optional dict of keyword arguments for `Model.fit` (e.g. `epochs`,
            `batch_size`, `verbose`); those given to the estimator's `fit` take precedence.
            Defaults to `None`.

    After `fit`, the estimator holds `model_` (the fitted `tfkit.Model`), `history_` (the
    `History` returned by `Model.fit`) and `n_features_in_` (the number of features seen).

    Raises:
        TypeError: From `fit`, if `model` is neither a `tfkit.Model` nor a callable returning one.
        RuntimeError: From `fit`, if the model is not compiled with a loss and an optimizer.

    Example:
        >>> def make_model(X, y, units=4):
        ...     model = tfkit.Sequential([tfkit.Input((X.shape[1],)), tfkit.layers.Dense(units, activation="relu"),
        ...                               tfkit.layers.Dense(1)])
        ...     model.compile(optimizer="sgd", loss="mse")
        ...     return model
        >>> X = np.random.rand(8, 3).astype("float32")
        >>> reg = tfkit.wrappers.SKLearnRegressor(
        ...     model=make_model, model_kwargs={"units": 4}, fit_kwargs={"epochs": 1, "verbose": 0})
        >>> reg.fit(X, X.sum(axis=1)).n_features_in_
        3
        >>> reg.predict(X).shape
        1/1 ...
        (8,)
    """

    def _more_tags(self) -> dict[str, Any]:
        return {**super()._more_tags(), "poor_score": True}

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True
        return tags


class SKLearnTransformer(TransformerMixin, SKLBase):
    """A tfkit model as a scikit-learn transformer, as Keras's `keras.wrappers.SKLearnTransformer`.

    `transform(X)` returns the model's outputs (e.g. an embedding) for `X`. `fit` trains the
    model on `(X, y)` first; wrap the estimator in `sklearn.frozen.FrozenEstimator` to use an
    already trained model as it is. The estimator works with sklearn's tools (`clone`,
    pipelines) and pickles. scikit-learn is imported when the class is first looked up; a
    missing scikit-learn is an `ImportError` naming `pip install scikit-learn`.

    Args:
        model: A compiled `tfkit.Model`, cloned with `tfkit.models.clone_model` (fresh weights)
            before each fit unless `warm_start=True`; or a callable `model(X=..., y=...,
            **model_kwargs)` returning a compiled model, called at each fit with the training data
            (after the target is encoded) so it can size the model from them.
        warm_start: Whether to keep training the model of the previous fit instead of starting
            afresh. Defaults to `False`.
        model_kwargs: Optional dict of keyword arguments for `model` when it is a callable.
            Defaults to `None`.
        fit_kwargs: Optional dict of keyword arguments for `Model.fit` (e.g. `epochs`,
            `batch_size`, `verbose`); those given to the estimator's `fit` take precedence.
            Defaults to `None`.

    After `fit`, the estimator holds `model_` (the fitted `tfkit.Model`), `history_` (the
    `History` returned by `Model.fit`) and `n_features_in_` (the number of features seen).

    Raises:
        TypeError: From `fit`, if `model` is neither a `tfkit.Model` nor a callable returning one.
        RuntimeError: From `fit`, if the model is not compiled with a loss and an optimizer.

    Example:
        >>> def make_model(X, y):
        ...     model = tfkit.Sequential([tfkit.Input((X.shape[1],)), tfkit.layers.Dense(1)])
        ...     model.compile(optimizer="sgd", loss="mse")
        ...     return model
        >>> X = np.random.rand(8, 3).astype("float32")
        >>> transformer = tfkit.wrappers.SKLearnTransformer(model=make_model, fit_kwargs={"epochs": 1, "verbose": 0})
        >>> transformer.fit(X, X.sum(axis=1)).transform(X).shape
        1/1 ...
        (8, 1)
    """

    def transform(self, X: Any) -> np.ndarray:
        """The model's outputs for ``X`` (n_samples, n_features)."""
        check_is_fitted(self)
        X = _validate_data(self, X, reset=False)
        return self.model_.predict(X)

    def _more_tags(self) -> dict[str, Any]:
        return {**super()._more_tags(), "preserves_dtype": []}

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []
        return tags
