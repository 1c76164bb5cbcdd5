"""The length check of ``generate``: a sequence longer than a learned position embedding's rows is refused by name.

Without it the compiled loop fails deep inside the embedding's slice ("Expected size[0] in [0, 6], but got 8").
"""

from __future__ import annotations

from typing import Any


def check_generate_length(model: Any, length: int) -> None:
    """Refuses a `generate` call whose (decoder) sequences are longer than the backbone's positions.

    Args:
        model: The task (`CausalLM`, `Seq2SeqLM`, `AudioToText`); its backbone's `positions_argument` names the
            constructor argument that bounds the positions, or is `None` (rotary, relative, ALiBi: no bound).
        length: The padded length of the token ids to generate into.

    Raises:
        ValueError: If `length` is more than the bound, naming the model, the bound and `max_length`.
    """
    argument = getattr(model.backbone, "positions_argument", None)
    limit = getattr(model.backbone, argument, None) if argument else None
    if limit is not None and length is not None and length > limit:
        raise ValueError(
            f"{type(model).__name__} '{model.name}'.generate: the sequences are {length} tokens long (max_length, "
            f"or the preprocessor's sequence length), more than the {limit} positions of its backbone "
            f"({argument}={limit}); pass max_length={limit} or less"
        )
