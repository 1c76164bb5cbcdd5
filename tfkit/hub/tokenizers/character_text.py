"""What the character-level tokenizers (``ByteTokenizer``, ``UnicodeCodepointTokenizer``) share: checks and folding.

check_arguments("ByteTokenizer 'b'", dtype="int32", normalization_form="NFC", errors="replace")
text = folded(text, lowercase=True, normalization_form="NFC")     # case folded, then normalized
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.layers.preprocessing_tensors import tensorflow_text
from tfkit.hub.tokenizers.tensor_io import is_int_dtype

NORMALIZATION_FORMS = (None, "NFC", "NFKC", "NFD", "NFKD")
ERRORS = ("strict", "replace", "ignore")


def check_arguments(who: str, dtype: Any, normalization_form: Any, errors: Any) -> None:
    """``ValueError`` naming the argument unless the output dtype is an integer type and the others are known."""
    if not is_int_dtype(getattr(dtype, "name", dtype)):
        raise ValueError(f"{who}: output dtype must be an integer type. Received: dtype={dtype}")
    if normalization_form not in NORMALIZATION_FORMS:
        raise ValueError(
            f'{who}: `normalization_form` must be one of None, "NFC", "NFKC", "NFD", "NFKD". '
            f"Received: normalization_form={normalization_form}"
        )
    if errors not in ERRORS:
        raise ValueError(f'{who}: `errors` must be one of "strict", "replace", "ignore". Received: errors={errors}')


def folded(text: tf.Tensor, lowercase: bool, normalization_form: str | None, who: str) -> tf.Tensor:
    """``text`` case folded (Unicode's full folding: "ß" becomes "ss") and normalized, as KerasHub's do."""
    if lowercase or normalization_form:
        tf_text = tensorflow_text(who)
        if lowercase:
            text = tf_text.case_fold_utf8(text)
        if normalization_form:
            text = tf_text.normalize_utf8(text, normalization_form)
    return text
