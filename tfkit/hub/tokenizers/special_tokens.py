"""Special tokens written in text (``"[CLS]"``, ``"<|endoftext|>"``) as one RE2 pattern that splitting keeps whole.

    pattern = special_tokens_pattern(["[CLS]", "<|endoftext|>"])    # '<\\|endoftext\\|>|\\[CLS\\]'

The tokens are escaped and ordered longest first, so that a token containing
another (``"<s>"`` inside ``"<s>x"``) wins wherever both match. KerasHub joins
them in the order of a Python set, which changes between runs; where no token
contains another the splits are the same.
"""

from __future__ import annotations

import re
from typing import Sequence


def special_tokens_pattern(tokens: Sequence[str] | None) -> str | None:
    """An RE2 alternation matching any of ``tokens`` literally, longest first; ``None`` for no tokens."""
    if not tokens:
        return None
    ordered = sorted(dict.fromkeys(tokens), key=lambda token: (-len(token), token))
    return "|".join(re.escape(token) for token in ordered)
