"""`stream_generate` hands out what `generate` makes, piece by piece: joined, the pieces are `generate`'s output.

The reference is the same model's `generate(..., strip_prompt=True)` (checked against KerasHub by the
families' own tests). Covered: text and token ids, a scalar prompt, a batch of prompts of different lengths,
stop tokens, seeded random samplers (the same draws in the same order across the parts), parts of one step
(`interval=0`), and the samplers that cannot stream refused.
"""

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import gpt2_preset

import tfkit.hub as tk_hub

PROMPTS = ["the quick brown fox", "hello", "a"]


@pytest.fixture(scope="module")
def causal_lm(tmp_path_factory):
    return tk_hub.models.CausalLM.from_preset(gpt2_preset(str(tmp_path_factory.mktemp("gpt2"))))


def joined(pieces, rows):
    return ["".join(piece[row] for piece in pieces) for row in range(rows)]


@pytest.mark.parametrize("sampler", ["greedy", "top_k"])  # top_k: a seeded sampler's draws, part after part
def test_streamed_text_joins_to_generates_completions(causal_lm, sampler):
    make = {  # the same seed for both runs: the streamed parts must draw what the whole loop draws
        "greedy": lambda: "greedy",
        "top_k": lambda: tk_hub.samplers.TopKSampler(k=5, seed=3),
    }[sampler]
    causal_lm.compile(sampler=make())
    expected = causal_lm.generate(PROMPTS, max_length=16, strip_prompt=True)
    causal_lm.compile(sampler=make())
    pieces = list(causal_lm.stream_generate(PROMPTS, max_length=16, interval=0))
    assert len(pieces) > 3 and all(isinstance(piece, list) and len(piece) == 3 for piece in pieces)
    assert joined(pieces, 3) == expected


def test_a_scalar_prompt_streams_strings_and_a_stop_token_ends_its_row(causal_lm):
    causal_lm.compile(sampler="greedy")
    pieces = list(causal_lm.stream_generate("the quick", max_length=16, interval=0))
    assert all(isinstance(piece, str) for piece in pieces)
    assert "".join(pieces) == causal_lm.generate("the quick", max_length=16, strip_prompt=True)


def test_token_ids_stream_without_a_preprocessor_rows_apart_and_stopping(causal_lm):
    causal_lm.compile(sampler="greedy")
    preprocessor, causal_lm.preprocessor = causal_lm.preprocessor, None
    try:
        mask = np.arange(14)[None, :] < np.array([[2], [5]])
        prompt = {"token_ids": np.where(mask, np.arange(7, 21)[None, :], 0), "padding_mask": mask}
        full = causal_lm.generate(dict(prompt), stop_token_ids=None)["token_ids"]
        stop = int(full[0, 6])  # a token the first row writes, so that row stops early
        expected = causal_lm.generate(dict(prompt), stop_token_ids=(stop,), strip_prompt=True)
        pieces = list(causal_lm.stream_generate(dict(prompt), stop_token_ids=(stop,), interval=0))
        for row in range(2):
            streamed = np.concatenate([piece[row] for piece in pieces])
            want = expected["token_ids"][row][expected["padding_mask"][row]]
            np.testing.assert_array_equal(streamed, want)
        assert np.concatenate([piece[0] for piece in pieces])[-1] == stop
    finally:
        causal_lm.preprocessor = preprocessor


def test_samplers_that_do_not_pick_a_token_a_step_are_refused(causal_lm):
    causal_lm.compile(sampler="beam")
    try:
        with pytest.raises(ValueError, match="BeamSampler does not pick one token a step.*generate"):
            next(iter(causal_lm.stream_generate("a")))
    finally:
        causal_lm.compile(sampler="greedy")


def test_sampler_decode_keeps_the_state_a_later_call_goes_on_from():
    def next_token(prompt, cache, index):
        return tf.one_hot(tf.gather(prompt, index - 1, axis=1) + 1, 10), None, cache

    sampler = tk_hub.samplers.GreedySampler()
    prompt = tf.constant([[2, 0, 0, 0, 0, 0]])
    prompt, _, index = sampler.decode(next_token, prompt, index=1, max_steps=2)
    assert prompt.numpy().tolist() == [[2, 3, 4, 0, 0, 0]] and int(index) == 3
    prompt, _, index = sampler.decode(next_token, prompt, index=index, max_steps=10, stop_token_ids=[6])
    assert prompt.numpy().tolist() == [[2, 3, 4, 5, 6, 0]] and int(index) == 5
