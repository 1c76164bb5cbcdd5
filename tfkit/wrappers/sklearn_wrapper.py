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
    except ImportError:                                   # scikit-learn < 1.6
        return estimator._validate_data(*args, **kwargs)
    return validate_data(estimator, *args, **kwargs)


def _target_type(y: Any) -> str:
    target_type = type_of_target(y)
    if target_type == "unknown":
        raise ValueError(f"Unknown label type for the target y: {y!r}")
    return target_type


def _check_compiled(model: Any, who: str) -> None:
    if not isinstance(model, Model):
        raise TypeError(f"{who}: `model` must be a tfkit Model or a callable returning one, got "
                        f"{type(model).__name__}")
    if not getattr(model, "compiled", False) or not model.loss or not model.optimizer:
        raise RuntimeError(f"{who}: the model needs to be compiled with a loss and an optimizer before fit; call "
                           "model.compile(optimizer=..., loss=...) (in the function that builds it, if `model` "
                           "is a callable)")


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

    def __init__(self, model: Any, warm_start: bool = False, model_kwargs: dict[str, Any] | None = None,
                 fit_kwargs: dict[str, Any] | None = None) -> None:
        self.model = model
        self.warm_start = warm_start
        self.model_kwargs = model_kwargs
        self.fit_kwargs = fit_kwargs

    def _more_tags(self) -> dict[str, Any]:              # scikit-learn < 1.6
        return {"non_deterministic": True}

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    def __sklearn_clone__(self) -> SKLBase:
        """An unfitted copy with the same parameters; the model itself is shared (fit clones it)."""
        return type(self)(model=self.model, warm_start=self.warm_start, model_kwargs=self.model_kwargs,
                          fit_kwargs=self.fit_kwargs)

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
            raise RuntimeError("set_fit_request() is only available when metadata routing is enabled: call "
                               "sklearn.set_config(enable_metadata_routing=True) first")
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
            raise TypeError(f"{type(self).__name__}: `model` must be a tfkit Model or a callable returning one, "
                            f"got {type(self.model).__name__}")
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
    """A tfkit model as a scikit-learn classifier.

    Labels (binary or multiclass, any sortable type) are one-hot encoded for
    training, so the model should end in ``len(classes_)`` units (softmax) and
    be compiled with ``categorical_crossentropy``; ``predict`` returns the label
    of the highest score. Arguments are ``SKLBase``'s. Attributes after fit:
    ``model_``, ``history_``, ``classes_``.
    """

    def decision_function(self, X: Any) -> np.ndarray:
        """The model's raw outputs (one score per class) for ``X``."""
        check_is_fitted(self)
        X = _validate_data(self, X, reset=False)
        return self.model_.predict(X)

    def _process_target(self, y: np.ndarray, reset: bool = False) -> np.ndarray:
        target_type = _target_type(y)
        if target_type not in ("binary", "multiclass"):
            raise ValueError(f"{type(self).__name__} supports binary and multiclass targets only; the target y "
                             f"is {target_type!r}")
        if reset:
            self._target_encoder = make_pipeline(TargetReshaper(), OneHotEncoder(sparse_output=False)).fit(y)
            self.classes_ = np.unique(y)
            if len(self.classes_) == 1:
                raise ValueError(f"{type(self).__name__} can't train when only one class is present in y "
                                 f"(class {self.classes_[0]!r})")
        return self._target_encoder.transform(y)

    def _more_tags(self) -> dict[str, Any]:
        return {**super()._more_tags(), "poor_score": True}

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


class SKLearnRegressor(RegressorMixin, SKLBase):
    """A tfkit model as a scikit-learn regressor.

    ``y`` of shape ``(n,)`` is trained as ``(n, 1)`` and predictions come back
    as ``(n,)``. Arguments are ``SKLBase``'s; ``score`` is R^2.
    """

    def _more_tags(self) -> dict[str, Any]:
        return {**super()._more_tags(), "poor_score": True}

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True
        return tags


class SKLearnTransformer(TransformerMixin, SKLBase):
    """A tfkit model as a scikit-learn transformer: ``transform(X)`` is the model's output (an embedding).

    ``fit`` trains the model on ``(X, y)`` first; wrap it in
    ``sklearn.frozen.FrozenEstimator`` to use an already trained model as is.
    Arguments are ``SKLBase``'s.
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
