"""``Bleu``: KerasHub's corpus BLEU score, n-gram precision with a brevity penalty, over all batches seen.

bleu = keras_hub.metrics.Bleu(max_order=4)
bleu.update_state([["the cat sat on the mat"]], ["the cat sat on a mat"])   # references, translations
bleu.result()
"""

from __future__ import annotations

import collections
import math
from typing import Any, Callable

import numpy as np
import tensorflow as tf

from tfkit.metrics.base import Metric
from tfkit.saving import register_keras_serializable

# SacreBLEU's "13a" tokenizer (mteval-v13a), which KerasHub's default reproduces: unescapes, then regexes in order.
_UNESCAPES = [
    ("<skipped>", ""),
    ("-\n", ""),
    ("\n", " "),
    ("&quot;", '"'),
    ("&amp;", "&"),
    ("&lt;", "<"),
    ("&gt;", ">"),
]
_SPLITS = [
    (r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 "),  # symbols and punctuation become tokens
    (r"([^0-9])([\.,])", r"\1 \2 "),  # a period or comma not after a digit
    (r"([\.,])([^0-9])", r" \1 \2"),  # a period or comma not before a digit
    (r"([0-9])(-)", r"\1 \2 "),  # a dash after a digit
    (r"[\.,]$", r" \0 \1"),  # a period or comma at the end
    (r"\s+", r" "),
]


def tokenize_13a(inputs: tf.Tensor) -> tf.RaggedTensor:
    """Strings split into tokens as SacreBLEU's default (13a) tokenizer, KerasHub's default for `Bleu`."""
    for pattern, rewrite in _UNESCAPES + _SPLITS:
        inputs = tf.strings.regex_replace(inputs, pattern, rewrite, replace_global=True)
    return tf.strings.split(inputs)


def _as_lists(value: Any) -> Any:
    """Nested Python lists of ``value`` (a tensor or ragged tensor), strings decoded as UTF-8."""
    value = value.to_list() if isinstance(value, tf.RaggedTensor) else np.asarray(value).tolist()

    def decode(item: Any) -> Any:
        if isinstance(item, list):
            return [decode(i) for i in item]
        return item.decode("utf-8") if isinstance(item, bytes) else item

    return decode(value)


def _ngrams(tokens: list, max_order: int) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    for order in range(1, max_order + 1):
        for start in range(len(tokens) - order + 1):
            counts[tuple(tokens[start : start + order])] += 1
    return counts


def _rank_fixed(inputs: Any, name: str, base_rank: int) -> tf.Tensor:
    inputs = inputs if isinstance(inputs, (tf.Tensor, tf.RaggedTensor)) else tf.convert_to_tensor(inputs)
    rank = inputs.shape.rank
    if rank == base_rank:
        return inputs[tf.newaxis]
    if rank == base_rank + 1:
        return inputs
    if rank == base_rank + 2:
        if inputs.shape[-1] != 1:
            raise ValueError(f"Bleu: {name} is of rank {rank}. The last dimension must be of size 1.")
        return tf.squeeze(inputs, axis=-1)
    raise ValueError(
        f"Bleu: {name} must be of rank {base_rank}, {base_rank + 1}, or {base_rank + 2}. Found rank: {rank}"
    )


@register_keras_serializable(package="keras_hub")
class Bleu(Metric):
    """BLEU score over a corpus (Papineni et al., 2002), as KerasHub 0.32 computes it.

    Each translation's n-grams (orders 1 to `max_order`) are matched against
    the union of its references' (clipped counts); the score is the geometric
    mean of the corpus-level precisions times a brevity penalty against the
    shortest reference of each sample. Counts accumulate over `update_state`
    calls, so the result is the BLEU of all samples seen. It runs eagerly
    (Python n-gram counting), as KerasHub's does.

    Args:
        tokenizer: A callable (such as a `tfkit.hub` tokenizer) turning a
            string tensor into token sequences, or `None` for SacreBLEU's
            default "13a" tokenization. Defaults to `None`.
        max_order: The longest n-gram counted. Defaults to `4`.
        smooth: Whether to add one to every order's matches and possible
            matches (Lin and Och, 2004). Defaults to `False`.
        dtype: A floating dtype for the state and result. Defaults to
            `"float32"`.
        name: The metric's name. Defaults to `"bleu"`.
        **kwargs: Other `Metric` keyword arguments.

    Raises:
        ValueError: If `dtype` is not a floating dtype, or on update, if the
            inputs' ranks are not a sample's, a batch's or a batch's with a
            trailing axis of 1.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> bleu = keras_hub.metrics.Bleu(max_order=2)
        >>> bleu.update_state([["the cat sat on the mat"]], ["the cat sat on the mat"])
        >>> float(bleu.result())
        1.0
    """

    def __init__(
        self,
        tokenizer: Callable[[Any], Any] | None = None,
        max_order: int = 4,
        smooth: bool = False,
        dtype: Any = "float32",
        name: str = "bleu",
        **kwargs: Any,
    ) -> None:
        if not tf.as_dtype(dtype or "float32").is_floating:
            raise ValueError(f"Bleu: `dtype` must be a floating point type. Received: dtype={dtype}")
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.tokenizer = tokenizer
        self.max_order = max_order
        self.smooth = smooth
        self._matches = self.add_variable((max_order,), name="bleu_matches")
        self._possible_matches = self.add_variable((max_order,), name="bleu_possible_matches")
        self._translation_length = self.add_variable((), name="bleu_translation_length")
        self._reference_length = self.add_variable((), name="bleu_reference_length")
        self._bleu = self.add_variable((), name="bleu")

    def _tokenize(self, inputs: Any) -> Any:
        return self.tokenizer(inputs) if self.tokenizer else tokenize_13a(inputs)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        references = _as_lists(self._tokenize(_rank_fixed(y_true, "y_true", 1)))
        translations = _as_lists(self._tokenize(_rank_fixed(y_pred, "y_pred", 0)))
        matches = self._matches.numpy().astype(np.float64)
        possible = self._possible_matches.numpy().astype(np.float64)
        translation_length = float(self._translation_length.numpy())
        reference_length = float(self._reference_length.numpy())
        for sample_references, translation in zip(references, translations):
            reference_length += min(len(r) for r in sample_references)
            translation_length += len(translation)
            merged: collections.Counter = collections.Counter()
            for reference in sample_references:
                merged |= _ngrams(reference, self.max_order)
            overlap = _ngrams(translation, self.max_order) & merged
            for ngram, count in overlap.items():
                matches[len(ngram) - 1] += count
            for order in range(1, self.max_order + 1):
                possible[order - 1] += max(len(translation) - order + 1, 0)
        self._matches.assign(matches)
        self._possible_matches.assign(possible)
        self._translation_length.assign(translation_length)
        self._reference_length.assign(reference_length)
        self._bleu.assign(self._score(matches, possible, translation_length, reference_length))

    def _score(self, matches: np.ndarray, possible: np.ndarray, translation_length: float, reference_length: float):
        if self.smooth:
            precisions = [(m + 1.0) / (p + 1.0) for m, p in zip(matches, possible)]
        else:
            precisions = [m / p if p > 0 else 0.0 for m, p in zip(matches, possible)]
        if min(precisions) <= 0:
            return 0.0
        geometric_mean = math.exp(sum(math.log(p) for p in precisions) / self.max_order)
        ratio = translation_length / reference_length
        return geometric_mean * (1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio))

    def result(self) -> tf.Tensor:
        return tf.identity(self._bleu)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(tokenizer=self.tokenizer, max_order=self.max_order, smooth=self.smooth)
        return config
