"""``UnicodeCodepointTokenizer``: text as its Unicode code points, KerasHub's own.

tokenizer = keras_hub.tokenizers.UnicodeCodepointTokenizer(sequence_length=4)
tokenizer("hé")                       # [104, 233, 0, 0]
tokenizer.detokenize([104, 233])      # "hé"
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.tokenizers import tensor_io
from tfkit.hub.tokenizers.character_text import check_arguments, folded
from tfkit.hub.tokenizers.tokenizer import Tokenizer
from tfkit.saving import register_keras_serializable


@register_keras_serializable(package="keras_hub")
class UnicodeCodepointTokenizer(Tokenizer):
    """Splits strings into Unicode code points (one id per character), optionally clipped to a vocabulary size.

    With `lowercase` the text is case folded first, with
    `normalization_form` Unicode-normalized (UTF-8 input only). Invalid
    input is handled by `errors`; with `vocabulary_size`, ids above it are
    clipped to `vocabulary_size - 1`. `detokenize` drops id 0 (the padding)
    and encodes the rest. TensorFlow ops: eagerly, in `tf.data` and in
    SavedModels.

    Args:
        sequence_length: Pad or truncate each output to this length; `None`
            gives ragged outputs. Defaults to `None`.
        lowercase: Whether to case fold the text. Defaults to `True`.
        normalization_form: `None`, `"NFC"`, `"NFKC"`, `"NFD"` or `"NFKD"`.
            Defaults to `None`.
        errors: What to do with invalid input: `"strict"`, `"replace"` or
            `"ignore"`. Defaults to `"replace"`.
        replacement_char: The code point `errors="replace"` writes. Defaults
            to `65533` (U+FFFD).
        input_encoding: The encoding of the input strings. Defaults to
            `"UTF-8"`.
        output_encoding: The encoding `detokenize` writes. Defaults to
            `"UTF-8"`.
        vocabulary_size: Clip ids to `vocabulary_size - 1`, or `None`.
            Defaults to `None`.
        dtype: The integer dtype of the ids. Defaults to `"int32"`.
        **kwargs: Layer keyword arguments, such as `name`.

    Raises:
        ValueError: If `dtype` is not an integer type, `normalization_form`
            or `errors` is not one of the values above, or a normalization
            form is asked for input that is not UTF-8.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> tokenizer = keras_hub.tokenizers.UnicodeCodepointTokenizer()
        >>> np.asarray(tokenizer("Hé")).tolist()
        [104, 233]
        >>> tokenizer.detokenize([104, 233])
        'hé'
    """

    def __init__(
        self,
        sequence_length: int | None = None,
        lowercase: bool = True,
        normalization_form: str | None = None,
        errors: str = "replace",
        replacement_char: int = 65533,
        input_encoding: str = "UTF-8",
        output_encoding: str = "UTF-8",
        vocabulary_size: int | None = None,
        dtype: Any = "int32",
        **kwargs: Any,
    ) -> None:
        who = f"UnicodeCodepointTokenizer '{kwargs.get('name', 'unicode_codepoint_tokenizer')}'"
        check_arguments(who, dtype, normalization_form, errors)
        if normalization_form and input_encoding != "UTF-8":
            raise ValueError(f"{who}: normalization forms are only supported for input_encoding 'UTF-8'")
        super().__init__(dtype=dtype, **kwargs)
        self.sequence_length = sequence_length
        self.lowercase = lowercase
        self.normalization_form = normalization_form
        self.errors = errors
        self.replacement_char = replacement_char
        self.input_encoding = input_encoding
        self.output_encoding = output_encoding
        self._vocabulary_size = vocabulary_size
        self._update_special_token_ids()

    def vocabulary_size(self) -> int | None:
        """The `vocabulary_size` given (ids are clipped below it), or `None`."""
        return self._vocabulary_size

    def get_vocabulary(self) -> dict[str, int]:
        """`{chr(i): i}` below `vocabulary_size`, as KerasHub gives it."""
        return {chr(i): i for i in range(self.vocabulary_size())}

    def id_to_token(self, id: int) -> str:
        """The character of code point `id`; `ValueError` outside the vocabulary."""
        if id < 0 or (self._vocabulary_size is not None and id >= self._vocabulary_size):
            raise ValueError(f"`id` must be in range [0, {(self._vocabulary_size or 0) - 1}]. Received: {id}")
        return chr(id)

    def token_to_id(self, token: str) -> int:
        """The code point of a one-character `token`; `ValueError` beyond the vocabulary."""
        id = ord(token)
        if self._vocabulary_size is not None and id >= self._vocabulary_size:
            raise ValueError(f"Token {token} is not supported by `UnicodeCodepointTokenizer`.")
        return id

    def tokenize(self, inputs: Any) -> Any:
        """Strings to their code points.

        Args:
            inputs: A string, a list of strings, or a string tensor.

        Returns:
            Per string, its code points: ragged (lists when called eagerly),
            or dense with `sequence_length`; one sequence for a single string.
        """
        text = tensor_io.string_input(inputs, self._who())
        unbatched = text.shape.rank == 0
        with tf.device("/cpu:0"):
            text = folded(text[tf.newaxis] if unbatched else text, self.lowercase, self.normalization_form, self._who())
            tokens = tf.strings.unicode_decode(
                text, self.input_encoding, errors=self.errors, replacement_char=self.replacement_char
            )
            tokens = tensor_io.shaped_output(tf.cast(tokens, self.compute_dtype), self.sequence_length, unbatched, 0)
            if self._vocabulary_size:
                tokens = tf.clip_by_value(tokens, 0, self._vocabulary_size - 1)
        return self._returned(tokens)

    def detokenize(self, inputs: Any) -> Any:
        """Code points back to text, id 0 dropped.

        Args:
            inputs: Token ids: an int, a list (of lists) of ints, or an
                integer tensor, dense or ragged.

        Returns:
            One string per sequence (a `str`, or a list of them when called
            eagerly).
        """
        ids, rank = tensor_io.id_batch(inputs, self._who())
        with tf.device("/cpu:0"):
            ids = tf.ragged.boolean_mask(ids, tf.not_equal(ids, 0))
            text = tf.strings.unicode_encode(
                tf.cast(ids, tf.int32), self.output_encoding, errors=self.errors, replacement_char=self.replacement_char
            )
        return self._returned(tensor_io.unbatched_strings(text, rank))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            sequence_length=self.sequence_length,
            lowercase=self.lowercase,
            normalization_form=self.normalization_form,
            errors=self.errors,
            replacement_char=self.replacement_char,
            input_encoding=self.input_encoding,
            output_encoding=self.output_encoding,
            vocabulary_size=self._vocabulary_size,
        )
        return config
