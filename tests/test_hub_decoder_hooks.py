"""``DecoderCausalLM`` as the one decoding loop: the hooks families declare, and ``score`` on every family.

GPT-2 and Gemma 3 became real subclasses of ``DecoderCausalLM``: GPT-2 gains
KerasHub's ``score`` (checked against KerasHub's, its intercept between the
summed embeddings and the dropout), Gemma 3's ``score`` agrees with its own
forward pass, and the two declared rules (a model's own ``call_with_cache``,
a sampler's own ``__call__``) turn the prompt pass's first logits off unless
the class says otherwise.
"""

import numpy as np
import pytest
from hub_presets import keras_hub

import tfkit.hub as tk_hub
from tfkit.hub.models.decoder_causal_lm import DecoderCausalLM

GPT2_CONFIG = dict(
    vocabulary_size=40, num_layers=2, num_heads=2, hidden_dim=16, intermediate_dim=32, max_sequence_length=16
)
IDS = np.array([[5, 9, 30, 2, 7, 0], [11, 3, 8, 0, 0, 0]], "int32")
MASK = IDS != 0


@pytest.fixture(scope="module")
def gpt2_pair():
    """tfkit's GPT2CausalLM and KerasHub's with the same random weights."""
    ours = tk_hub.models.GPT2CausalLM(tk_hub.models.GPT2Backbone(**GPT2_CONFIG))
    theirs = keras_hub.models.GPT2CausalLM(keras_hub.models.GPT2Backbone(**GPT2_CONFIG))
    assert [w.path for w in ours.backbone.weights] == [w.path for w in theirs.backbone.weights]
    theirs.backbone.set_weights([np.asarray(w) for w in ours.backbone.weights])
    return ours, theirs


def test_gpt2_scores_as_keras_hub_does_logits_losses_and_the_intercepted_embeddings(gpt2_pair):
    ours, theirs = gpt2_pair
    targets = np.roll(IDS, -1, axis=1)
    np.testing.assert_allclose(np.asarray(ours.score(IDS, MASK)), np.asarray(theirs.score(IDS, MASK)), atol=1e-5)
    np.testing.assert_allclose(
        np.asarray(ours.score(IDS, MASK, scoring_mode="loss", target_ids=targets)),
        np.asarray(theirs.score(IDS, MASK, scoring_mode="loss", target_ids=targets)),
        atol=1e-5,
    )
    seen = {}

    def record(name):
        def intercept(x, i):
            seen.setdefault(name, []).append((i, np.asarray(x)))
            return x * 0.5 if i == -1 else x  # what it returns goes on

        return intercept

    mine = np.asarray(ours.score(IDS, MASK, layer_intercept_fn=record("ours")))
    reference = np.asarray(theirs.score(IDS, MASK, layer_intercept_fn=record("theirs")))
    np.testing.assert_allclose(mine, reference, atol=1e-5)
    assert [i for i, _ in seen["ours"]] == [i for i, _ in seen["theirs"]] == [-1, 0, 1]
    backbone = ours.backbone  # index -1 is tokens + positions, before the dropout (hand-computed)
    summed = (
        np.asarray(backbone.token_embedding.embeddings)[IDS]
        + np.asarray(backbone.position_embedding.position_embeddings)[: IDS.shape[1]]
    )
    np.testing.assert_allclose(seen["ours"][0][1], summed, atol=1e-6)


def test_gemma3_scores_its_own_forward_pass():
    backbone = tk_hub.models.Gemma3Backbone(
        vocabulary_size=40, image_size=None, num_layers=2, num_query_heads=2, num_key_value_heads=1,
        hidden_dim=8, intermediate_dim=16, head_dim=4,
    )  # fmt: skip
    causal_lm = tk_hub.models.Gemma3CausalLM(backbone)
    full = np.ones_like(IDS, bool)
    logits = np.asarray(causal_lm.score(IDS, full))
    np.testing.assert_allclose(logits, np.asarray(causal_lm({"token_ids": IDS, "padding_mask": full})), atol=1e-5)
    with pytest.raises(ValueError, match="Gemma3CausalLM.score: scoring_mode='loss' needs target_ids"):
        causal_lm.score(IDS, scoring_mode="loss")


def test_every_decoder_family_is_a_decoder_causal_lm_and_declares_its_loop():
    names = ("GPT2", "Gemma", "Gemma3", "Llama", "Llama3", "Mistral", "Qwen", "Qwen3")
    classes = [getattr(tk_hub.models, f"{name}CausalLM") for name in names]
    assert all(issubclass(cls, DecoderCausalLM) for cls in classes)
    # only Gemma 3 keeps its prompt's cache and passes its padding mask to the prompt pass, as KerasHub's
    assert [cls.__name__ for cls in classes if cls.keeps_prompt_cache] == ["Gemma3CausalLM"]
    assert [cls.__name__ for cls in classes if not cls.prefill_buckets] == ["Gemma3CausalLM"]
    assert tk_hub.models.GemmaCausalLM.block_arguments["cache"] == "cache"
    assert tk_hub.models.LlamaCausalLM.block_arguments["cache"] == "self_attention_cache"


def test_own_call_with_cache_or_own_sampler_loop_turns_first_logits_off_unless_declared():
    class OwnPass(tk_hub.models.GPT2CausalLM):
        def call_with_cache(self, token_ids, cache, cache_update_index, **block_inputs):
            return super().call_with_cache(token_ids, cache, cache_update_index, **block_inputs)

    class OwnPassSameLogits(OwnPass):
        first_logits_from_prompt_pass = True

    class OwnLoop(tk_hub.samplers.GreedySampler):
        def __call__(self, *args, **kwargs):
            return super().__call__(*args, **kwargs)

    assert tk_hub.models.GPT2CausalLM.first_logits_from_prompt_pass
    assert not OwnPass.first_logits_from_prompt_pass and OwnPassSameLogits.first_logits_from_prompt_pass
    assert tk_hub.samplers.GreedySampler.accepts_first_logits and not OwnLoop.accepts_first_logits
    assert not tk_hub.samplers.BeamSampler.accepts_first_logits
    assert not tk_hub.samplers.ContrastiveSampler.accepts_first_logits
