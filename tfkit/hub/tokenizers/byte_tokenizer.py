"""``ByteTokenizer``: text as its UTF-8 bytes, ids 0 to 255, KerasHub's own.

tokenizer = keras_hub.tokenizers.ByteTokenizer(sequence_length=8)
tokenizer("hi")                  # [104, 105, 0, 0, 0, 0, 0, 0]
tokenizer.detokenize([104, 105])  # "hi" (id 0 is padding and dropped)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit.hub.tokenizers import tensor_io
from tfkit.hub.tokenizers.character_text import check_arguments, folded
from tfkit.hub.tokenizers.tokenizer import Tokenizer
from tfkit.saving import register_keras_serializable

_BYTE_STRINGS = [bytes([i]) for i in range(256)]  # a tensor made on use: importing tfkit starts no runtime


@register_keras_serializable(package="keras_hub")
class ByteTokenizer(Tokenizer):
    """Splits strings into their UTF-8 bytes: a vocabulary of the 256 byte values, nothing to load.

    With `lowercase` the text is case folded first, with
    `normalization_form` Unicode-normalized. `detokenize` drops id 0 (the
    padding), joins the bytes and decodes them as UTF-8, handling invalid
    sequences by `errors`. TensorFlow ops (and TensorFlow Text's case
    folding): it runs eagerly, in `tf.data` and in SavedModels.

    Args:
        lowercase: Whether to case fold the text. Defaults to `True`.
        sequence_length: Pad or truncate each output to this length; `None`
            gives ragged outputs. Defaults to `None`.
        normalization_form: `None`, `"NFC"`, `"NFKC"`, `"NFD"` or `"NFKD"`.
            Defaults to `None`.
        errors: What `detokenize` does with invalid UTF-8: `"strict"`,
            `"replace"` or `"ignore"`. Defaults to `"replace"`.
        replacement_char: The code point `errors="replace"` writes. Defaults
            to `65533` (U+FFFD).
        dtype: The integer dtype of the ids. Defaults to `"int32"`.
        **kwargs: Layer keyword arguments, such as `name`.

    Raises:
        ValueError: If `dtype` is not an integer type, or
            `normalization_form` or `errors` is not one of the values above.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> tokenizer = keras_hub.tokenizers.ByteTokenizer()
        >>> np.asarray(tokenizer("Hé")).tolist()
        [104, 195, 169]
        >>> tokenizer.detokenize([104, 195, 169])
        'hé'
    """

    def __init__(
        self,
        lowercase: bool = True,
        sequence_length: int | None = None,
        normalization_form: str | None = None,
        errors: str = "replace",
        replacement_char: int = 65533,
        dtype: Any = "int32",
        **kwargs: Any,
    ) -> None:
        check_arguments(f"ByteTokenizer '{kwargs.get('name', 'byte_tokenizer')}'", dtype, normalization_form, errors)
        super().__init__(dtype=dtype, **kwargs)
        self.lowercase = lowercase
        self.sequence_length = sequence_length
        self.normalization_form = normalization_form
        self.errors = errors
        self.replacement_char = replacement_char
        self._update_special_token_ids()

    def vocabulary_size(self) -> int:
        """The number of ids: 256."""
        return 256

    def get_vocabulary(self) -> dict[str, int]:
        """`{chr(i): i}` for the 256 byte values, as KerasHub gives it."""
        return {chr(i): i for i in range(256)}

    def id_to_token(self, id: int) -> str:
        """The character of byte value `id`; `ValueError` outside 0 to 255."""
        if id >= 256 or id < 0:
            raise ValueError(f"`id` must be in range [0, 255]. Received: {id}")
        return chr(id)

    def token_to_id(self, token: str) -> int:
        """The byte value of a one-character `token`; `ValueError` beyond 255."""
        if ord(token) >= 256:
            raise ValueError(f"Token {token} is not supported by `ByteTokenizer`.")
        return ord(token)

    def tokenize(self, inputs: Any) -> Any:
        """Strings to their UTF-8 byte values.

        Args:
            inputs: A string, a list of strings, or a string tensor.

        Returns:
            Per string, its bytes: ragged (lists when called eagerly), or
            dense with `sequence_length`; one sequence for a single string.
        """
        text = tensor_io.string_input(inputs, self._who())
        unbatched = text.shape.rank == 0
        with tf.device("/cpu:0"):
            text = folded(text[tf.newaxis] if unbatched else text, self.lowercase, self.normalization_form, self._who())
            pieces = tf.strings.bytes_split(text)
            tokens = tf.ragged.map_flat_values(lambda b: tf.io.decode_raw(b, tf.uint8)[:, 0], pieces)
            tokens = tensor_io.shaped_output(tf.cast(tokens, self.compute_dtype), self.sequence_length, unbatched, 0)
        return self._returned(tokens)

    def detokenize(self, inputs: Any) -> Any:
        """Byte values back to text, id 0 dropped, invalid UTF-8 handled by `errors`.

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
            text = tf.strings.reduce_join(tf.gather(tf.constant(_BYTE_STRINGS), ids), axis=-1)
            text = tf.strings.unicode_transcode(
                text, "UTF-8", "UTF-8", errors=self.errors, replacement_char=self.replacement_char
            )
        return self._returned(tensor_io.unbatched_strings(text, rank))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            lowercase=self.lowercase,
            sequence_length=self.sequence_length,
            normalization_form=self.normalization_form,
            errors=self.errors,
            replacement_char=self.replacement_char,
        )
        return config
