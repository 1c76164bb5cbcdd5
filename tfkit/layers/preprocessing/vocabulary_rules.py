"""Keras 3's rules for a vocabulary passed to a lookup layer, checked in linear time.

    special = ["", "[UNK]"]                                  # the mask token, then the OOV token(s)
    terms = vocabulary_terms(["", "[UNK]", "a", "b"], special, "", "[UNK]", False, "StringLookup 'l'")
    terms == ["a", "b"]; vocabulary_terms(["a", "b", "a"], ...)   # ValueError: ... repeated term ... ['a']

As in Keras: special tokens are dropped only when the vocabulary starts with
exactly the special block (mask token, then ``num_oov_indices`` OOV tokens);
a repeated term, the mask token anywhere else, or (with ``invert=True``) the
OOV token anywhere else is a ``ValueError`` with Keras's wording. An OOV
token elsewhere with ``invert=False`` stays an ordinary term, as in Keras.
One pass over the tokens with a set: a vocabulary of a million repeated
tokens (from a small compressed file) is refused in well under a second.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["vocabulary_terms"]
_SHOWN = 20  # repeated terms named in the error; Keras lists all of them


def vocabulary_terms(
    tokens: Sequence[Any], special: Sequence[Any], mask_token: Any, oov_token: Any, invert: bool, who: str
) -> list[Any]:
    """The terms of ``tokens`` (a leading special block removed), or ``ValueError`` as Keras 3 raises it."""
    tokens = tokens if isinstance(tokens, list) else list(tokens)  # no copies: a vocabulary may hold millions
    special = list(special)
    start = len(special) if tokens[: len(special)] == special else 0
    seen: set[Any] = set()
    repeated: dict[Any, None] = {}  # insertion-ordered: the first repeat first, as Keras's Counter lists them
    for index in range(start, len(tokens)):
        token = tokens[index]
        if token in seen:
            repeated[token] = None
        else:
            seen.add(token)
    if repeated:
        names = list(repeated)
        more = f" ... ({len(names)} repeated terms in all)" if len(names) > _SHOWN else ""
        raise ValueError(
            f"{who}: The passed vocabulary has at least one repeated term. Please uniquify your "
            f"dataset. The repeated terms are: {names[:_SHOWN]}{more}"
        )
    for token, reserved, name in (
        (mask_token, mask_token is not None, "mask_token"),
        (oov_token, oov_token is not None and invert, "oov_token"),
    ):
        if reserved and token in seen:
            index = len(tokens) - 1 - tokens[::-1].index(token)
            raise ValueError(
                f"{who}: Found reserved {'mask' if name == 'mask_token' else 'OOV'} token at unexpected location "
                f"in `vocabulary`. Note that passed `vocabulary` does not need to include the OOV and mask tokens. "
                f"Either remove all mask and OOV tokens, or include them only at the start of the vocabulary in "
                f"precisely this order: {special}. Received: {name}={token} at vocabulary index {index}"
            )
    return tokens[start:] if start else tokens
