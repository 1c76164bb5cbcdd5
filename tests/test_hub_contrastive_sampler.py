"""ContrastiveSampler beside KerasHub's: the same ids from a fixed `next`, and from a tiny GPT-2's generate."""

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, gpt2_preset, keras_hub

import tfkit.hub as tk_hub

VOCAB, HIDDEN = 11, 6
TABLE = np.random.default_rng(3).normal(size=(VOCAB, VOCAB)).astype("float32")
STATES = np.random.default_rng(4).normal(size=(VOCAB, HIDDEN)).astype("float32")


def fixed_next(prompt, cache, index):
    """Logits and hidden state from the token before `index`: a tiny deterministic language model."""
    last = tf.gather(tf.convert_to_tensor(prompt), index - 1, axis=1)
    return tf.gather(TABLE, last), tf.gather(STATES, last), cache


@pytest.mark.parametrize("k, alpha", [(3, 0.6), (5, 0.2), (2, 0.0)])
def test_ids_as_kerashubs_on_a_fixed_model(k, alpha):
    prompt = np.array([[1, 4, 0, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0, 0, 0]], "int32")
    mask = prompt != 0
    hidden = tf.gather(STATES, prompt)
    arguments = dict(prompt=prompt, index=1, mask=mask, hidden_states=hidden)
    ours = tk_hub.samplers.ContrastiveSampler(k=k, alpha=alpha)(fixed_next, **arguments)
    theirs = keras_hub.samplers.ContrastiveSampler(k=k, alpha=alpha)(fixed_next, **arguments)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    if alpha == 0.0:  # no penalty: greedy search
        greedy = tk_hub.samplers.GreedySampler()(fixed_next, prompt, index=1, mask=mask)
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(greedy))


def test_compiled_and_by_name_and_config():
    sampler = tk_hub.samplers.get("contrastive")
    assert isinstance(sampler, tk_hub.samplers.ContrastiveSampler) and (sampler.k, sampler.alpha) == (5, 0.6)
    config = tk_hub.samplers.serialize(tk_hub.samplers.ContrastiveSampler(k=3, alpha=0.4))
    assert config["registered_name"] == "keras_hub>ContrastiveSampler"
    assert keras_hub.samplers.deserialize(config).get_config() == tk_hub.samplers.deserialize(config).get_config()
    prompt = np.array([[1, 0, 0, 0, 0]], "int32")
    eager = tk_hub.samplers.ContrastiveSampler(k=3)(
        fixed_next, prompt, index=1, hidden_states=tf.gather(STATES, prompt)
    )
    compiled = tf.function(
        lambda p: tk_hub.samplers.ContrastiveSampler(k=3)(fixed_next, p, index=1, hidden_states=tf.gather(STATES, p)),
        jit_compile=True,
    )(prompt)
    np.testing.assert_array_equal(np.asarray(eager), np.asarray(compiled))
    with pytest.raises(ValueError, match="requires passing a `hidden_states`"):
        tk_hub.samplers.ContrastiveSampler()(fixed_next, prompt)


def test_generate_with_contrastive_search_gives_kerashubs_text(tmp_path):
    folder = gpt2_preset(str(tmp_path / "gpt2"))
    ours = tk_hub.models.CausalLM.from_preset(folder)
    theirs = keras_hub.models.CausalLM.from_preset(folder)
    ours.compile(sampler=tk_hub.samplers.ContrastiveSampler(k=3, alpha=0.5))
    theirs.compile(sampler=keras_hub.samplers.ContrastiveSampler(k=3, alpha=0.5))
    assert ours.generate(TEXTS[:2], max_length=12) == theirs.generate(TEXTS[:2], max_length=12)
