"""The ROUGE scores KerasHub's ``RougeN`` and ``RougeL`` average: n-gram and longest-common-subsequence overlap.

    precision, recall, f1 = rouge_score("the cat sat down", "the cat sat", "rouge2")   # reference, prediction
    rouge = RougeN(order=2)            # or RougeL(): the per-sample scores averaged over all batches seen

The text is tokenized as the original ROUGE (and the ``rouge-score`` package
KerasHub uses) does: lowercase, every run of characters other than ``a-z0-9``
a separator; with ``use_stemmer=True`` words longer than three letters are
Porter-stemmed by ``rouge-score``'s stemmer (the one optional dependency:
``pip install rouge-score``). The scores themselves are computed here.
"""

from __future__ import annotations

import collections
import re
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.metrics.base import Metric

_SEPARATORS = re.compile(r"[^a-z0-9]+")
VARIANTS = tuple(f"rouge{order}" for order in range(1, 10)) + ("rougeL",)


def porter_stemmer() -> Any:
    """``rouge-score``'s Porter stemmer (NLTK's, imported on first use); ``ImportError`` saying how to install it."""
    try:
        from rouge_score.tokenizers import porter
    except ImportError as error:
        raise ImportError("use_stemmer=True needs the `rouge_score` package: pip install rouge-score") from error
    return porter.PorterStemmer()


def tokenize(text: str, stemmer: Any = None) -> list[str]:
    """ROUGE's tokens of ``text``: lowercase alphanumeric runs, stemmed when longer than three letters."""
    tokens = [t for t in _SEPARATORS.split(text.lower()) if t]
    if stemmer is not None:
        tokens = [stemmer.stem(t) if len(t) > 3 else t for t in tokens]
    return [t for t in tokens if t and _SEPARATORS.search(t) is None]


def _f_measure(overlap: float, predicted: int, reference: int) -> tuple[float, float, float]:
    precision = overlap / predicted if predicted else 0.0
    recall = overlap / reference if reference else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def _ngrams(tokens: list[str], order: int) -> collections.Counter:
    return collections.Counter(tuple(tokens[i : i + order]) for i in range(len(tokens) - order + 1))


def _lcs_length(a: list[str], b: list[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def rouge_score(reference: str, prediction: str, variant: str, stemmer: Any = None) -> tuple[float, float, float]:
    """``(precision, recall, f1)`` of ``prediction`` against ``reference`` for ``variant`` (``"rouge2"``, ``"rougeL"``)."""
    ours, theirs = tokenize(prediction, stemmer), tokenize(reference, stemmer)
    if variant == "rougeL":
        return _f_measure(float(_lcs_length(theirs, ours)), len(ours), len(theirs))
    order = int(variant[len("rouge") :])
    predicted, referenced = _ngrams(ours, order), _ngrams(theirs, order)
    overlap = sum((predicted & referenced).values())
    return _f_measure(float(overlap), sum(predicted.values()), sum(referenced.values()))


def _strings(inputs: Any, name: str) -> list[str]:
    """A batch of strings from a scalar, a batch, or a batch with a trailing axis of 1."""
    inputs = inputs if isinstance(inputs, tf.Tensor) else tf.convert_to_tensor(inputs)
    if inputs.shape.rank == 0:
        inputs = inputs[tf.newaxis]
    elif inputs.shape.rank == 2:
        if inputs.shape[1] != 1:
            raise ValueError(f"{name} must be of shape `[batch_size, 1]`. Found shape: {inputs.shape}")
        inputs = tf.squeeze(inputs, axis=1)
    elif inputs.shape.rank != 1:
        raise ValueError(f"{name} must be of rank 0 (scalar input), 1 or 2. Found rank: {inputs.shape.rank}")
    return [s.decode("utf-8") if isinstance(s, bytes) else str(s) for s in np.asarray(inputs).tolist()]


class RougeBase(Metric):
    """The mean ROUGE precision, recall and F1 of the samples seen (the base of `RougeN` and `RougeL`).

    Args:
        variant: `"rouge1"` to `"rouge9"` or `"rougeL"`. Defaults to `"rouge2"`.
        use_stemmer: Whether to Porter-stem words longer than three letters
            (needs `rouge-score`). Defaults to `False`.
        dtype: A floating dtype for the state and results. Defaults to
            `"float32"`.
        name: The metric's name. Defaults to `"rouge"`.
        **kwargs: Other `Metric` keyword arguments.

    Raises:
        ValueError: If `variant` is not one of those or `dtype` is not a
            floating dtype.
        ImportError: With `use_stemmer=True` and no `rouge-score`.

    Example:
        >>> from tfkit.hub.metrics.rouge_base import RougeBase
        >>> rouge = RougeBase(variant="rouge1")
        >>> rouge.update_state(["the cat sat"], ["the cat"])
        >>> {key: round(float(value), 4) for key, value in rouge.result().items()}
        {'precision': 1.0, 'recall': 0.6667, 'f1_score': 0.8}
    """

    def __init__(
        self, variant: str = "rouge2", use_stemmer: bool = False, dtype: Any = "float32", name: str = "rouge", **kwargs
    ) -> None:
        if not tf.as_dtype(dtype or "float32").is_floating:
            raise ValueError(f"{type(self).__name__}: `dtype` must be a floating point type. Received: dtype={dtype}")
        if variant not in VARIANTS:
            raise ValueError(
                "Invalid variant of ROUGE. Should be one of: rougeN, rougeL, with N ranging from 1 to 9. "
                f"Received: variant={variant}"
            )
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.variant = variant
        self.use_stemmer = use_stemmer
        self._stemmer = porter_stemmer() if use_stemmer else None
        self._rouge_precision = self.add_variable((), name="rouge_precision")
        self._rouge_recall = self.add_variable((), name="rouge_recall")
        self._rouge_f1_score = self.add_variable((), name="rouge_f1_score")
        self._number_of_samples = self.add_variable((), name="number_of_samples")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        references, predictions = _strings(y_true, "y_true"), _strings(y_pred, "y_pred")
        totals = np.zeros(3)
        for reference, prediction in zip(references, predictions):
            totals += rouge_score(reference, prediction, self.variant, self._stemmer)
        self._rouge_precision.assign_add(totals[0])
        self._rouge_recall.assign_add(totals[1])
        self._rouge_f1_score.assign_add(totals[2])
        self._number_of_samples.assign_add(float(len(references)))

    def result(self) -> dict[str, tf.Tensor]:
        count = tf.convert_to_tensor(self._number_of_samples)
        safe = tf.where(tf.equal(count, 0.0), tf.ones_like(count), count)
        values = {"precision": self._rouge_precision, "recall": self._rouge_recall, "f1_score": self._rouge_f1_score}
        return {
            key: tf.where(tf.equal(count, 0.0), tf.zeros_like(count), value / safe) for key, value in values.items()
        }

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(variant=self.variant, use_stemmer=self.use_stemmer)
        return config
