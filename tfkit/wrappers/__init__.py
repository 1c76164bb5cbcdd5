"""``tfkit.wrappers``: scikit-learn estimators around tfkit models (Keras's ``keras.wrappers``).

    est = tfkit.wrappers.SKLearnClassifier(model=make_model, fit_kwargs={"epochs": 5})
    est.fit(X, y).predict(X)                                 # labels, as sklearn expects
    sklearn.model_selection.cross_val_score(est, X, y, cv=3)

scikit-learn is optional: it is imported the first time one of these classes is
looked up, and a missing scikit-learn is an ``ImportError`` naming
``pip install scikit-learn``. ``import tfkit`` never imports it.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'tfkit.wrappers' has no attribute {name!r}")
    try:
        import sklearn  # noqa: F401  (optional dependency, checked here to name it in the error)
    except ImportError as error:
        raise ImportError(
            f"tfkit.wrappers.{name} requires scikit-learn, which is not installed. "
            "Run `pip install scikit-learn` to install it."
        ) from error
    module = importlib.import_module("tfkit.wrappers.sklearn_wrapper")
    value = getattr(module, name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
