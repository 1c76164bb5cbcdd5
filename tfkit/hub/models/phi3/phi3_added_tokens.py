"""A Transformers SentencePiece tokenizer's added tokens (Phi-3's ``<|endoftext|>``, ``<|end|>``...) made model pieces.

    added = added_tokens(directory)                   # {32000: "<|endoftext|>", 32001: "<|assistant|>", ...}
    proto = with_added_tokens(proto, added, where)    # the tokenizer.model with them as user-defined pieces

Phi-3's ``tokenizer.model`` is Llama 2's 32,000 pieces; Transformers adds its
special tokens after them (``added_tokens_decoder`` in ``tokenizer_config.json``,
or ``added_tokens.json``) and never splits them. KerasHub's Phi-3 tokenizer reads
one SentencePiece model that holds them, so they are appended to the model, in id
order, as user-defined pieces: SentencePiece matches those whole in the text and
never splits them, as Transformers does.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.presets import files


def added_tokens(directory: str) -> dict[int, str]:
    """The added tokens of a Transformers tokenizer folder, by id (none when it lists none).

    Args:
        directory: The checkpoint folder: `tokenizer_config.json`'s
            `added_tokens_decoder`, else `added_tokens.json`.

    Returns:
        `{id: token}`.

    Raises:
        ValueError: If the listing is not `{id: token}` data.
    """
    found: dict[int, str] = {}
    if files.has_file(directory, "tokenizer_config.json"):
        decoder = files.read_json(directory, "tokenizer_config.json").get("added_tokens_decoder") or {}
        for key, token in decoder.items() if isinstance(decoder, dict) else ():
            content = token.get("content") if isinstance(token, dict) else None
            found[_token_id(key, directory)] = _token_text(content, directory)
    if not found and files.has_file(directory, "added_tokens.json"):
        listing = files.read_json(directory, "added_tokens.json")
        for content, key in listing.items() if isinstance(listing, dict) else ():
            found[_token_id(key, directory)] = _token_text(content, directory)
    return found


def _token_id(key: Any, directory: str) -> int:
    if isinstance(key, bool) or not (isinstance(key, int) or isinstance(key, str) and key.isdigit()):
        raise ValueError(f"preset {directory}: an added token's id is {key!r}; expected a non-negative integer")
    return int(key)


def _token_text(content: Any, directory: str) -> str:
    if not isinstance(content, str) or not content:
        raise ValueError(f"preset {directory}: an added token is {content!r}; expected a non-empty string")
    return content


def with_added_tokens(proto: bytes, added: dict[int, str], where: str) -> bytes:
    """The serialized SentencePiece model with the added tokens past its pieces appended as user-defined pieces.

    Args:
        proto: The serialized `tokenizer.model`.
        added: `{id: token}` (`added_tokens`); those within the model must
            be its pieces of those ids.
        where: The files, for errors.

    Returns:
        The serialized model (`proto` itself when nothing is appended).

    Raises:
        ValueError: If an added token within the model is not its piece of
            that id, or the ones past it do not follow it without a gap.

    Example:
        >>> import io
        >>> import sentencepiece
        >>> from tfkit.hub.models.phi3.phi3_added_tokens import with_added_tokens
        >>> model = io.BytesIO()
        >>> sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(["the lazy dog"] * 5),
        ...     model_writer=model, vocab_size=20, model_type="bpe", minloglevel=2)
        >>> proto = with_added_tokens(model.getvalue(), {1: "<s>", 20: "<|endoftext|>", 21: "<|end|>"}, "here")
        >>> processor = sentencepiece.SentencePieceProcessor(model_proto=proto)
        >>> processor.vocab_size(), processor.encode("dog<|end|>")[-1]   # never split
        (22, 21)
    """
    from sentencepiece import sentencepiece_model_pb2  # the model's schema (the tokenizer needs sentencepiece)

    model = sentencepiece_model_pb2.ModelProto()
    model.ParseFromString(proto)
    size = len(model.pieces)
    for index in sorted(added):
        if index < size and model.pieces[index].piece != added[index]:
            raise ValueError(
                f"{where}: added token {added[index]!r} has id {index}, where tokenizer.model has "
                f"{model.pieces[index].piece!r}"
            )
    past = sorted(index for index in added if index >= size)
    if past != list(range(size, size + len(past))):
        raise ValueError(
            f"{where}: the added tokens past tokenizer.model's {size} pieces have ids {past[:8]}; expected "
            f"{size}, {size + 1}, ... without a gap"
        )
    if not past:
        return proto
    for index in past:
        piece = model.pieces.add()
        piece.piece, piece.score, piece.type = (
            added[index],
            0.0,
            sentencepiece_model_pb2.ModelProto.SentencePiece.USER_DEFINED,
        )
    return model.SerializeToString()
