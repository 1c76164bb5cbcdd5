"""``SentencePieceTokenizer``: a SentencePiece model (unigram or BPE) run by TensorFlow Text's kernel.

    tokenizer = SentencePieceTokenizer(proto="vocabulary.spm")       # or the serialized model's bytes
    tokenizer(["the quick fox"])                  # [[...]]
    tokenizer.detokenize([[...]])                 # ['the quick fox']

The serialized ``ModelProto`` is checked in Python (``sentence_piece_model``: a
malformed one is refused, never run) and handed to ``tensorflow_text.SentencepieceTokenizer``,
whose model resource the layer tracks: the tokenizer runs in ``tf.data`` and
in a SavedModel that ``tensorflow_text`` is imported beside. The vocabulary
(``get_vocabulary``, ``id_to_token``) is read from the same kernel once, when
the model is set.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import tensorflow as tf

from tfkit.hub.layers.preprocessing_tensors import tensorflow_text
from tfkit.hub.tokenizers import asset_files, sentence_piece_model, tensor_io
from tfkit.hub.tokenizers.sentence_piece_resource import persistent_sentence_piece
from tfkit.hub.tokenizers.tokenizer import Tokenizer
from tfkit.saving import register_keras_serializable

VOCAB_FILENAME = "vocabulary.spm"


def _base64_model(proto: str) -> bytes | None:
    """The model a string holds in base64 (as KerasHub: a string over 2048 base64 characters), else ``None``."""
    if len(proto) <= 2048:
        return None
    try:
        return base64.b64decode(proto, validate=True)
    except binascii.Error:
        return None


def _proto_bytes(proto: Any, who: str) -> bytes:
    """The serialized model: ``proto`` itself (bytes), decoded (a long base64 string), or a file's content."""
    if isinstance(proto, bytes):
        return proto
    if not isinstance(proto, str):
        raise ValueError(
            f"{who}: `proto` must be a file path (str) or a serialized SentencePiece model (bytes), "
            f"got {type(proto).__name__}"
        )
    model = _base64_model(proto)
    return model if model is not None else asset_files.read_bytes(proto, f"{who}: proto")


@register_keras_serializable(package="keras_hub")
class SentencePieceTokenizer(Tokenizer):
    """A SentencePiece tokenizer layer, as KerasHub's `SentencePieceTokenizer`.

    The layer tokenizes with a trained SentencePiece model (the serialized
    `ModelProto` that the `sentencepiece` trainer writes), entirely in the
    TensorFlow graph. For a batch of strings the output is ragged (a Python
    list of lists when called eagerly), or a dense tensor padded (with
    `pad_token_id` where a subclass defines one, else 0) and truncated to
    `sequence_length` when that is set; a single string gives one dense
    sequence.

    Args:
        proto: The model: a file path, or the serialized model as `bytes`
            (or as a base64 string, as configs carry it). Defaults to `None`
            (set one later with `set_proto` or `load_assets`).
        sequence_length: If set, outputs are padded or truncated to this
            length. Defaults to `None`.
        dtype: The output dtype: an integer type for ids, or `"string"` for
            the pieces. Defaults to `"int32"`.
        add_bos: Whether to add the model's beginning-of-sentence token.
            Defaults to `False`.
        add_eos: Whether to add the model's end-of-sentence token (cut
            first when the output is truncated). Defaults to `False`.
        **kwargs: Tokenizer keyword arguments, such as `name`.

    Raises:
        ValueError: If `dtype` is not an integer type or `"string"`, or
            `proto` is neither bytes nor a readable file path.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> import tfkit.hub as keras_hub
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(
        ...     sentence_iterator=iter(["the quick brown fox", "the lazy dog"] * 5), model_writer=model,
        ...     vocab_size=9, model_type="word", minloglevel=2)
        >>> tokenizer = keras_hub.tokenizers.SentencePieceTokenizer(proto=model.getvalue())
        >>> ids = tokenizer(["the quick fox", "the dog"])
        >>> [tokenizer.id_to_token(i) for i in ids[0]]
        ['▁the', '▁quick', '▁fox']
        >>> tokenizer.detokenize(ids)
        ['the quick fox', 'the dog']
    """

    def __init__(
        self,
        proto: Any = None,
        sequence_length: int | None = None,
        dtype: Any = "int32",
        add_bos: bool = False,
        add_eos: bool = False,
        **kwargs: Any,
    ) -> None:
        tensor_io.check_output_dtype(dtype, f"SentencePieceTokenizer {kwargs.get('name') or ''}".strip())
        super().__init__(dtype=dtype, **kwargs)
        self.sequence_length = sequence_length
        self.add_bos = add_bos
        self.add_eos = add_eos
        self.set_proto(proto)
        self.file_assets = [VOCAB_FILENAME]

    # --------------------------------------------------------------- vocabulary

    def set_proto(self, proto: Any) -> None:
        """Sets the SentencePiece model: a file path, serialized bytes, a base64 string, or `None`.

        Args:
            proto: The model.

        Raises:
            ValueError: If `proto` is none of these, or not a SentencePiece
                model.
        """
        if proto is None:
            for name in ("proto", "_vocabulary", "_token_to_id_map", "_unk_token_id"):
                object.__setattr__(self, name, None)
            self._sentence_piece = None
            return
        proto = _proto_bytes(proto, self._who())
        sentence_piece_model.check_model(proto, f"{self._who()}: `proto`")  # before native code parses it
        tf_text = tensorflow_text(type(self).__name__)
        with tf.init_scope():  # its model resource is made once, eagerly; graphs and exports capture it
            try:
                model = persistent_sentence_piece(
                    tf_text, proto, out_type=tf.as_dtype(self.compute_dtype), add_bos=self.add_bos, add_eos=self.add_eos
                )
                size = int(model.vocab_size())
                pieces = [p.decode("utf-8") for p in model.id_to_string(tf.range(size)).numpy().tolist()]
            except (tf.errors.OpError, UnicodeDecodeError) as error:  # (a message quoting bytes that are not UTF-8)
                message = getattr(error, "message", None) or str(error)
                raise ValueError(f"{self._who()}: `proto` is not a SentencePiece model ({message})") from None
            token_to_id = {piece: index for index, piece in enumerate(pieces)}
            absent = "\u0000"  # a string that is not a piece: the kernel maps it to the unknown piece's id
            while absent in token_to_id:
                absent += "\u0000"
            unk_id = int(model.string_to_id(absent))
        self._sentence_piece = model
        for name, value in (("proto", proto), ("_vocabulary", pieces), ("_token_to_id_map", token_to_id)):
            object.__setattr__(self, name, value)  # plain containers: no tf.Module tracking wrappers
        object.__setattr__(self, "_unk_token_id", unk_id)
        self._update_special_token_ids()

    def save_assets(self, dir_path: str) -> None:
        """Writes the serialized model to `vocabulary.spm` in folder `dir_path`, as KerasHub does.

        Args:
            dir_path: An existing folder.
        """
        self._check_vocabulary()
        with open(f"{dir_path}/{VOCAB_FILENAME}", "wb") as handle:
            handle.write(self.proto)

    def load_assets(self, dir_path: str) -> None:
        """Reads the model from `vocabulary.spm` in folder `dir_path`.

        Args:
            dir_path: A folder holding `vocabulary.spm`.
        """
        self.set_proto(f"{dir_path}/{VOCAB_FILENAME}")

    vocabulary_noun = "model"
    vocabulary_setter = "pass `proto` when creating it, or call set_proto()"

    def _vocabulary_tables(self) -> tuple[Any, Any, dict[str, int]] | None:
        if getattr(self, "proto", None) is None:
            return None
        return self._vocabulary, self._vocabulary, self._token_to_id_map

    def _unknown_token_id(self) -> int | None:
        return self._unk_token_id  # as SentencePiece: a string that is no piece is the unknown piece

    # ------------------------------------------------------------- tokenizing

    def tokenize(self, inputs: Any) -> Any:
        """Splits strings into pieces (ids, or strings with `dtype="string"`).

        Args:
            inputs: A string, a list of strings, or a string tensor.

        Returns:
            Per string, its pieces: ragged (a list of lists when called
            eagerly), or dense with `sequence_length`; one sequence for a
            single string.

        Raises:
            ValueError: If no model is set or the inputs are not strings.
        """
        self._check_vocabulary()
        text = tensor_io.string_input(inputs, self._who())
        unbatched = text.shape.rank == 0
        with tf.device("/cpu:0"):
            if unbatched:
                text = tf.expand_dims(text, 0)
            tokens = self._sentence_piece.tokenize(text)
            pad = "" if tokens.dtype == tf.string else (getattr(self, "pad_token_id", None) or 0)
            tokens = tensor_io.shaped_output(tokens, self.sequence_length, unbatched, pad)
        return self._returned(tokens)

    def detokenize(self, inputs: Any) -> Any:
        """Turns ids back into text.

        Args:
            inputs: Token ids: an int, a list (of lists) of ints, or an
                integer tensor, dense or ragged.

        Returns:
            One string per sequence (a `str`, or a list of them when called
            eagerly).

        Raises:
            ValueError: If no model is set, the inputs are not integer ids, or
                an id is outside the model's pieces.
        """
        self._check_vocabulary()
        ids, rank = tensor_io.id_batch(inputs, self._who())
        ids = tensor_io.ids_in_range(ids, self.vocabulary_size(), self._who())
        with tf.device("/cpu:0"):
            text = self._sentence_piece.detokenize(tf.cast(ids, tf.int32))  # the kernel takes int32 ids
        return self._returned(tensor_io.unbatched_strings(text, rank))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The output's shape: the input's with a last axis of `sequence_length` (`None` when ragged).

        Args:
            input_shape: The shape of the string input.

        Returns:
            A shape tuple.
        """
        return (*tuple(input_shape), self.sequence_length)

    def get_config(self) -> dict[str, Any]:
        """The config: KerasHub's keys, with `proto` `None` (the model is saved as an asset).

        Returns:
            A dict, serializable to JSON.
        """
        return {
            **super().get_config(),
            "proto": None,
            "sequence_length": self.sequence_length,
            "add_bos": self.add_bos,
            "add_eos": self.add_eos,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "SentencePieceTokenizer":
        """Rebuilds the tokenizer from `get_config`'s output (a file path as `proto` only out of safe mode).

        Args:
            config: A dict, as `get_config` returns it.

        Returns:
            A new tokenizer.

        Raises:
            ValueError: If the config names a model file and safe mode is on.
        """
        proto = config.get("proto")
        if isinstance(proto, str) and _base64_model(proto) is None:  # a path, not the model itself
            asset_files.refuse_path_in_safe_mode(config, ("proto",), cls.__name__)
        return super().from_config(config)
