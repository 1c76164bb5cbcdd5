"""Speculative decoding (a draft model's guesses, prompt lookup's) gives the ids of greedy decoding, row for row.

The reference is the same model's own greedy `generate` (the sampler loop, one token a step), which the
families' own tests check against KerasHub. Batches mix prompt lengths (a row's own prompt tokens sit past
where the shortest prompt ends), rows stop on a token greedy decoding writes, guesses run past the end of the
sequence, and the draft is a different model (few guesses kept), the target itself (all kept) or prompt lookup.
"""

import numpy as np
import pytest
import tensorflow as tf

import tfkit.hub as tk_hub
from tfkit.hub.models.draft_proposals import PromptLookupProposer

LENGTH = 20


def gpt2(num_layers, hidden_dim, seed, vocabulary_size=40):
    tf.random.set_seed(seed)
    backbone = tk_hub.models.GPT2Backbone(
        vocabulary_size=vocabulary_size,
        num_layers=num_layers,
        num_heads=2,
        hidden_dim=hidden_dim,
        intermediate_dim=2 * hidden_dim,
        max_sequence_length=32,
    )
    causal_lm = tk_hub.models.GPT2CausalLM(backbone)
    causal_lm.compile(sampler="greedy")
    return causal_lm


def llama3(seed):
    tf.random.set_seed(seed)
    backbone = tk_hub.models.Llama3Backbone(
        vocabulary_size=40, num_layers=2, num_query_heads=4, num_key_value_heads=2, hidden_dim=16, intermediate_dim=32
    )
    causal_lm = tk_hub.models.Llama3CausalLM(backbone)
    causal_lm.compile(sampler="greedy")
    return causal_lm


@pytest.fixture(scope="module")
def models():
    return {"gpt2": gpt2(2, 16, seed=0), "draft": gpt2(1, 8, seed=1), "llama3": llama3(seed=2)}


def prompts():
    rng = np.random.default_rng(7)
    lengths = np.array([3, 6, 9])
    mask = np.arange(LENGTH)[None, :] < lengths[:, None]
    ids = np.where(mask, rng.integers(1, 40, size=(3, LENGTH)), 0).astype("int32")
    ids[2, 4:8] = ids[2, :4]  # a repeated run, which prompt lookup finds
    return {"token_ids": ids, "padding_mask": mask}


def assert_same(expected, got):
    np.testing.assert_array_equal(got["token_ids"], expected["token_ids"])
    np.testing.assert_array_equal(got["padding_mask"], expected["padding_mask"])


@pytest.mark.parametrize(
    "target, speculation",
    [
        ("gpt2", {"prompt_lookup_num_tokens": 3}),
        ("gpt2", {"prompt_lookup_num_tokens": 40, "max_matching_ngram_size": 3}),  # more guesses than positions
        ("gpt2", {"assistant_model": "target", "num_assistant_tokens": 5}),  # the target as its own draft: all kept
        ("llama3", {"assistant_model": "draft", "num_assistant_tokens": 3}),  # a GPT-2 draft for a Llama 3 target
    ],
    ids=["gpt2-lookup3", "gpt2-lookup40", "gpt2-self5", "llama3-gpt2_draft3"],
)
def test_speculative_ids_are_greedy_ids_with_and_without_stop_tokens(models, target, speculation):
    causal_lm = models[target]
    speculation = dict(speculation)
    if "assistant_model" in speculation:
        speculation["assistant_model"] = models[target if speculation["assistant_model"] == "target" else "draft"]
    greedy = causal_lm.generate(prompts(), stop_token_ids=None)
    assert_same(greedy, causal_lm.generate(prompts(), stop_token_ids=None, **speculation))
    # stop on a token the longest-prompt row writes in its third generated position, so rows stop apart
    stop = int(greedy["token_ids"][2, 11])
    expected = causal_lm.generate(prompts(), stop_token_ids=(stop,))
    assert not expected["padding_mask"].all()
    assert_same(expected, causal_lm.generate(prompts(), stop_token_ids=(stop,), **speculation))


def test_speculative_text_generation_matches_greedy_text(tmp_path):
    from hub_presets import gpt2_preset

    causal_lm = tk_hub.models.CausalLM.from_preset(gpt2_preset(str(tmp_path / "gpt2")))
    causal_lm.compile(sampler="greedy")
    prompts_text = ["the quick brown fox", "hello"]
    greedy = causal_lm.generate(prompts_text, max_length=16)
    assert causal_lm.generate(prompts_text, max_length=16, prompt_lookup_num_tokens=4) == greedy


def test_prompt_lookup_guesses_what_followed_the_latest_match_of_the_longest_ngram():
    ids = tf.constant([[5, 6, 7, 1, 5, 6, 8, 2, 9, 5, 6, 0, 0, 0]])
    held = tf.zeros_like(ids, tf.bool)
    # last two tokens before index 11: (5, 6); matches at 0 and 4, the latest (4) was followed by 8, 2, 9
    guesses, found, _ = PromptLookupProposer(3, 2).propose(ids, tf.constant(11), (), held)
    assert guesses.numpy().tolist() == [[8, 2, 9]] and found.numpy().tolist() == [True]
    # before index 9: neither (2, 9) nor 9 occurred earlier, so the row guesses its last token and says so
    guesses, found, _ = PromptLookupProposer(2, 2).propose(ids, tf.constant(9), (), held)
    assert found.numpy().tolist() == [False] and guesses.numpy().tolist() == [[9, 9]]
    # before index 5: (1, 5) occurred nowhere earlier; 5 alone did (at 0, followed by 6, 7), but single tokens are
    # matched only when max_matching_ngram_size is 1
    guesses, found, _ = PromptLookupProposer(2, 2).propose(ids, tf.constant(5), (), held)
    assert found.numpy().tolist() == [False]
    guesses, found, _ = PromptLookupProposer(2, 1).propose(ids, tf.constant(5), (), held)
    assert found.numpy().tolist() == [True] and guesses.numpy().tolist() == [[6, 7]]
    # a repeating row: the latest match of (7, 7) before index 4 (at 1) is followed by one known token only, so
    # the earliest (at 0) is used, followed by two
    repeating = tf.constant([[7, 7, 7, 7, 0, 0, 0, 0]])
    guesses, _, _ = PromptLookupProposer(3, 2).propose(repeating, tf.constant(4), (), tf.zeros_like(repeating, tf.bool))
    assert guesses.numpy().tolist() == [[7, 7, 0]]


def test_speculative_arguments_are_checked_before_anything_runs(models):
    causal_lm = models["gpt2"]
    with pytest.raises(ValueError, match="not both"):
        causal_lm.generate(prompts(), stop_token_ids=None, assistant_model=models["draft"], prompt_lookup_num_tokens=2)
    with pytest.raises(ValueError, match="prompt_lookup_num_tokens.*at least 1.*0"):
        causal_lm.generate(prompts(), stop_token_ids=None, prompt_lookup_num_tokens=0)
    with pytest.raises(ValueError, match="vocabulary has 41 tokens and the model's 40"):
        causal_lm.generate(prompts(), stop_token_ids=None, assistant_model=gpt2(1, 8, 3, vocabulary_size=41))
    with pytest.raises(ValueError, match="decoder-only causal LM.*assistant_model, got str"):
        causal_lm.generate(prompts(), stop_token_ids=None, assistant_model="gpt2")
    sampling = gpt2(1, 8, seed=4)
    sampling.compile(sampler="top_k")
    with pytest.raises(ValueError, match="greedy decoding's ids.*TopKSampler.*sampler='greedy'"):
        sampling.generate(prompts(), stop_token_ids=None, prompt_lookup_num_tokens=2)
