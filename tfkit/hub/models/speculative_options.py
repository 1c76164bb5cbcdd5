"""What ``generate``'s speculative arguments ask for: a draft model's guesses, prompt lookup's, or none.

    proposer = make_proposer(causal_lm, assistant_model=draft_lm, num_assistant_tokens=4)
    proposer = make_proposer(causal_lm, prompt_lookup_num_tokens=10)    # n-grams from the sequence itself

The arguments are Hugging Face Transformers' (``generate(assistant_model=...,
prompt_lookup_num_tokens=...)``): KerasHub's ``generate`` has none, and
these are the names its users meet elsewhere. Bad combinations are refused
here, before anything is traced.
"""

from __future__ import annotations

from typing import Any

from tfkit.hub.models.draft_proposals import DraftModelProposer, PromptLookupProposer
from tfkit.hub.samplers.greedy_sampler import GreedySampler


def _check_decoder(model: Any, who: str, role: str) -> None:
    """A `ValueError` unless `model` decodes with the cached forward pass speculation extends."""
    if not hasattr(model, "make_speculative_function"):
        raise ValueError(
            f"{who}: speculative decoding needs a decoder-only causal LM with a key/value cache as the {role}, "
            f"got {type(model).__name__}"
        )
    if model.prefix_length() or model.keeps_prompt_cache:
        raise ValueError(
            f"{who}: speculative decoding does not cover {type(model).__name__} (the {role}): its prompt pass "
            "puts image tokens before the text or keeps the prompt's cache, which a multi-token check would rewrite"
        )


def _check_count(value: Any, name: str, who: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{who}: `{name}` must be an integer of at least 1, got {value!r}")
    return value


def make_proposer(
    model: Any,
    assistant_model: Any = None,
    num_assistant_tokens: int = 4,
    prompt_lookup_num_tokens: int | None = None,
    max_matching_ngram_size: int = 2,
) -> Any:
    """The proposer `generate`'s speculative arguments ask for, or `None` when they ask for none.

    Args:
        model: The target causal LM.
        assistant_model: A draft causal LM with the target's vocabulary, or
            `None`.
        num_assistant_tokens: The draft's guesses a round.
        prompt_lookup_num_tokens: Guesses a round copied from the sequence
            (prompt lookup), or `None`.
        max_matching_ngram_size: The longest n-gram prompt lookup matches.

    Returns:
        A `DraftModelProposer`, a `PromptLookupProposer`, or `None`.

    Raises:
        ValueError: If both kinds are asked for, the model's sampler is not
            greedy, a model cannot decode speculatively, the vocabularies
            differ, or a count is not a positive integer.

    Example:
        >>> from tfkit.hub.models.speculative_options import make_proposer
        >>> make_proposer(None) is None   # no speculative argument: plain decoding
        True
    """
    if assistant_model is None and prompt_lookup_num_tokens is None:
        return None
    who = f"{type(model).__name__}.generate"
    if assistant_model is not None and prompt_lookup_num_tokens is not None:
        raise ValueError(f"{who}: pass `assistant_model` or `prompt_lookup_num_tokens`, not both")
    if not isinstance(model.sampler, GreedySampler):
        raise ValueError(
            f"{who}: speculative decoding returns greedy decoding's ids, and this model samples with "
            f"{type(model.sampler).__name__}; call compile(sampler='greedy') first"
        )
    _check_decoder(model, who, "target")
    if prompt_lookup_num_tokens is not None:
        tokens = _check_count(prompt_lookup_num_tokens, "prompt_lookup_num_tokens", who)
        return PromptLookupProposer(tokens, _check_count(max_matching_ngram_size, "max_matching_ngram_size", who))
    _check_decoder(assistant_model, who, "assistant_model")
    vocabularies = model.backbone.vocabulary_size, assistant_model.backbone.vocabulary_size
    if vocabularies[0] != vocabularies[1]:
        raise ValueError(
            f"{who}: `assistant_model` must share the model's tokenizer; its vocabulary has {vocabularies[1]} "
            f"tokens and the model's {vocabularies[0]}"
        )
    return DraftModelProposer(assistant_model, _check_count(num_assistant_tokens, "num_assistant_tokens", who))
