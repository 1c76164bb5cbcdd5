"""``TargetReshaper``: 1-D targets as one column for sklearn encoders, and back after prediction.

    reshaper = TargetReshaper().fit(y)        # remembers y.ndim
    column = reshaper.transform(y)            # (n,) -> (n, 1); 2-D targets pass through
    y_again = reshaper.inverse_transform(column)

Imported only by ``tfkit.wrappers.sklearn_wrapper``, i.e. once scikit-learn is known to be installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted


class TargetReshaper(TransformerMixin, BaseEstimator):
    """Makes 1-D targets 2-D (one column) and undoes it on predictions.

    Attributes:
        ndim_: the number of dimensions of the target it was fitted on.
    """

    def fit(self, y: Any) -> TargetReshaper:
        self.ndim_ = np.ndim(y)
        return self

    def transform(self, y: Any) -> np.ndarray:
        y = np.asarray(y)
        return y.reshape(-1, 1) if y.ndim == 1 else y

    def inverse_transform(self, y: Any) -> np.ndarray:
        check_is_fitted(self)
        y = np.asarray(y)
        if self.ndim_ == 1 and y.ndim == 2 and y.shape[1] == 1:
            return y[:, 0]
        return y
