"""tfkit.hub.samplers: KerasHub's samplers on a toy `next`, compared with KerasHub's own and with known answers.

The toy language model is a fixed table of logits indexed by the last token,
plus a term read from a key/value-like cache that `next` fills in place
(position `index - 1` gets the last token's embedding), so the ids depend on the
whole history and a beam's cache must follow its beam. Greedy ids, and beam
ids with `match_keras_hub=True`, equal KerasHub 0.32's on the same inputs (rows
of different lengths through `mask`, stop tokens, `return_all_beams`); tfkit's
own beam search of rows of different lengths equals each row searched alone,
with no duplicate beams, where KerasHub's repeats beams. tfkit keeps the padding after a row's
stop token where KerasHub goes on writing (see `Sampler`'s docstring), so
KerasHub's ids are compared with those positions reset. Sampling samplers are
checked against the distributions they must draw from.
"""

from __future__ import annotations

import os
import pathlib
import sys

import numpy as np
import pytest
import tensorflow as tf

import tfkit
import tfkit.hub as keras_hub
from tfkit.hub import samplers

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import api_reference  # noqa: E402

VOCAB = 11
LENGTH = 9
RNG = np.random.default_rng(1)
FAVOURITE = np.eye(VOCAB)[RNG.permutation(VOCAB)]  # each last token favours one next token
TABLE = tf.constant(RNG.normal(size=(VOCAB, VOCAB)) + 2.5 * FAVOURITE, tf.float32)  # logits by last token
EMBED = tf.constant(RNG.normal(size=(VOCAB,)), tf.float32)  # what the cache holds per token
MIX = tf.constant(RNG.normal(size=(VOCAB,)) * 1.5, tf.float32)  # how the cache's history moves the logits
PROMPT = np.array(
    [[3, 1, 4, 1, 5, 0, 0, 0, 0], [2, 7, 0, 0, 0, 0, 0, 0, 0], [9, 2, 6, 5, 0, 0, 0, 0, 0]], dtype=np.int32
)
MASK = PROMPT > 0
START = int(MASK.sum(axis=1).min())


def toy_next(prompt, cache, index):
    """Logits of the token at `index`: by the last token and the history in `cache` (filled here, in place)."""
    last = tf.gather(prompt, index - 1, axis=1)
    at = tf.equal(tf.range(tf.shape(cache)[1]), index - 1)[None, :]
    cache = tf.where(at, tf.gather(EMBED, last)[:, None], cache)
    logits = tf.gather(TABLE, last) + tf.tanh(tf.reduce_sum(cache, axis=1))[:, None] * MIX
    return logits, tf.zeros_like(logits), cache


def toy_cache(prompt=PROMPT, start=START):
    """The cache after the prompt's forward pass: embeddings of the tokens before `start`."""
    before = np.arange(prompt.shape[1]) < start - 1
    return tf.constant(np.where(before, tf.gather(EMBED, prompt).numpy(), 0.0), tf.float32)


def after_first_stop(ids, stop_token_ids, mask=MASK):
    new_stop = np.isin(ids, stop_token_ids) & ~mask
    return np.cumsum(new_stop, axis=-1) - new_stop > 0


@pytest.fixture(scope="module")
def kh():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    return pytest.importorskip("keras_hub")


def run(sampler, **kwargs):
    args = dict(next=toy_next, prompt=PROMPT, cache=toy_cache(), index=START, mask=MASK)
    args.update(kwargs)
    out = sampler(**args)
    return tf.nest.map_structure(lambda t: np.asarray(t), out)


# Greedy and beam: the same ids as KerasHub.


@pytest.mark.parametrize("stop_token_ids", [None, [3], [10, 4]])
@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_greedy_ids_equal_keras_hub(kh, stop_token_ids, temperature):
    ours = run(samplers.GreedySampler(temperature=temperature), stop_token_ids=stop_token_ids)
    theirs = run(kh.samplers.GreedySampler(temperature=temperature), stop_token_ids=stop_token_ids)
    if stop_token_ids is not None:
        stopped = after_first_stop(theirs, stop_token_ids)
        assert stopped.any(), "the case must stop a row early"
        theirs = np.where(stopped, PROMPT, theirs)  # KerasHub goes on writing there
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(ours[MASK], PROMPT[MASK])  # the prompts' own tokens are kept


@pytest.mark.parametrize("stop_token_ids", [None, [3]])
@pytest.mark.parametrize("num_beams", [1, 3])
def test_beam_ids_equal_keras_hub(kh, stop_token_ids, num_beams):
    ours = run(samplers.BeamSampler(num_beams=num_beams, match_keras_hub=True), stop_token_ids=stop_token_ids)
    theirs = run(kh.samplers.BeamSampler(num_beams=num_beams), stop_token_ids=stop_token_ids)
    if stop_token_ids is not None:
        theirs = np.where(after_first_stop(theirs, stop_token_ids), PROMPT, theirs)
    np.testing.assert_array_equal(ours, theirs)
    if num_beams == 1:  # one beam is greedy search
        np.testing.assert_array_equal(ours, run(samplers.GreedySampler(), stop_token_ids=stop_token_ids))


@pytest.mark.parametrize("stop_token_ids", [None, [3]])
def test_beam_return_all_beams_equals_keras_hub(kh, stop_token_ids):
    ours, our_log_probs = run(
        samplers.BeamSampler(num_beams=4, return_all_beams=True, match_keras_hub=True), stop_token_ids=stop_token_ids
    )
    theirs, their_log_probs = run(
        kh.samplers.BeamSampler(num_beams=4, return_all_beams=True), stop_token_ids=stop_token_ids
    )
    assert ours.shape == (3, 4, LENGTH) and our_log_probs.shape == (3, 4)
    if stop_token_ids is not None:
        theirs = np.where(after_first_stop(theirs, stop_token_ids, MASK[:, None, :]), PROMPT[:, None, :], theirs)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(our_log_probs, their_log_probs)
    assert (np.diff(our_log_probs, axis=1) <= 0).all()  # most likely first
    best = run(samplers.BeamSampler(num_beams=4, match_keras_hub=True), stop_token_ids=stop_token_ids)
    np.testing.assert_array_equal(best, ours[:, 0])
    assert has_duplicate_beams(theirs), "the case must show KerasHub's duplicate beams"


def has_duplicate_beams(sequences):
    return any(len({tuple(beam) for beam in row}) < len(row) for row in sequences)


@pytest.mark.parametrize("stop_token_ids", [None, [3]])
def test_beam_search_of_rows_of_different_lengths_equals_each_row_searched_alone(stop_token_ids):
    sampler = samplers.BeamSampler(num_beams=4, return_all_beams=True)
    sequences, log_probs = run(sampler, stop_token_ids=stop_token_ids)
    assert not has_duplicate_beams(sequences)
    if stop_token_ids is not None:
        theirs, _ = run(
            samplers.BeamSampler(num_beams=4, return_all_beams=True, match_keras_hub=True),
            stop_token_ids=stop_token_ids,
        )
        assert has_duplicate_beams(theirs), "the case must show KerasHub's repeated finished beams"
    for row, length in enumerate(MASK.sum(axis=1)):
        alone = PROMPT[row : row + 1]
        alone_sequences, alone_log_probs = run(
            sampler,
            prompt=alone,
            cache=toy_cache(alone, length),
            index=length,
            mask=MASK[row : row + 1],
            stop_token_ids=stop_token_ids,
        )
        np.testing.assert_array_equal(sequences[row], alone_sequences[0])
        np.testing.assert_allclose(log_probs[row], alone_log_probs[0], rtol=1e-6)
    np.testing.assert_array_equal(
        run(samplers.BeamSampler(num_beams=4), stop_token_ids=stop_token_ids), sequences[:, 0]
    )  # the best beam


def test_beam_search_of_rows_of_one_length_is_keras_hubs_with_or_without_match_keras_hub():
    prompt = np.where(np.arange(LENGTH) < 2, PROMPT, 0)  # three prompts of two tokens
    args = dict(prompt=prompt, cache=toy_cache(prompt, 2), index=2, mask=prompt > 0)
    ours = run(samplers.BeamSampler(num_beams=3, return_all_beams=True), **args)
    matched = run(samplers.BeamSampler(num_beams=3, return_all_beams=True, match_keras_hub=True), **args)
    for a, b in zip(ours, matched):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("match_keras_hub", [False, True])
def test_beam_log_probs_are_the_sums_of_the_tokens_log_probabilities(match_keras_hub):
    # Every row, from its own length on; with match_keras_hub, only the shortest row (row 1): a longer
    # row's beams also add the log-probabilities of the candidates its prompt tokens overwrite, as KerasHub's do.
    sampler = samplers.BeamSampler(num_beams=3, return_all_beams=True, match_keras_hub=match_keras_hub)
    sequences, log_probs = run(sampler)
    for row in [1] if match_keras_hub else range(len(PROMPT)):
        length = int(MASK[row].sum())
        for beam in range(3):
            ids = tf.constant(sequences[row, beam][None])
            cache, total = toy_cache(ids.numpy(), length), 0.0
            for index in range(length, LENGTH):
                logits, _, cache = toy_next(ids, cache, index)
                total += float(tf.nn.log_softmax(logits)[0, ids[0, index]])
            np.testing.assert_allclose(log_probs[row, beam], total, rtol=1e-5)


def test_match_keras_hub_is_in_the_config_only_when_set(kh):
    assert "match_keras_hub" not in samplers.BeamSampler(num_beams=2).get_config()
    kh.samplers.BeamSampler(**samplers.BeamSampler(num_beams=2).get_config())  # KerasHub loads the default's config
    config = samplers.BeamSampler(num_beams=2, match_keras_hub=True).get_config()
    assert samplers.BeamSampler.from_config(config).match_keras_hub is True


# Stop tokens, the mask and the loop's contract, by hand.

SEQUENTIALLY = [ord(c) - ord("a") for c in "sequentially"]


def spell(prompt, cache, index):
    """KerasHub's own sampler-test model: the next letter of `cache` is certain."""
    return tf.one_hot(tf.gather(cache, index, axis=1), 26) * 1e9, None, cache


def letters(ids):
    return ["".join(chr(i + ord("a")) for i in row) for row in np.asarray(ids)]


@pytest.mark.parametrize("sampler", [samplers.GreedySampler(), samplers.BeamSampler(num_beams=3)])
def test_each_row_stops_after_its_own_stop_token(sampler):
    cache = tf.constant([SEQUENTIALLY, SEQUENTIALLY[:6] + [ord("t") - ord("a")] * 6])
    prompt = tf.fill((2, 12), ord("z") - ord("a"))
    out = sampler(spell, prompt, cache=cache, stop_token_ids=[ord("t") - ord("a")])
    # the second row writes "t" at position 6 and stops there; the first goes on to its own "t" at 6 too
    assert letters(out) == ["sequentzzzzz", "sequentzzzzz"]
    out = sampler(spell, prompt, cache=cache, stop_token_ids=[ord("n") - ord("a"), ord("l") - ord("a")])
    assert letters(out) == ["sequenzzzzzz", "sequenzzzzzz"]


def test_a_row_that_stops_first_keeps_its_padding_while_others_go_on():
    cache = tf.constant([SEQUENTIALLY, list(range(12))])  # the second row never writes "t"
    out = samplers.GreedySampler()(spell, tf.zeros((2, 12), "int32"), cache=cache, stop_token_ids=[19])
    assert letters(out) == ["sequentaaaaa", "abcdefghijkl"]


def test_padding_equal_to_a_stop_id_is_not_a_stop_token(kh):
    # Only written tokens count: KerasHub also counts the padding ahead of the loop and writes nothing.
    cache = tf.constant([[3, 4, 0, 5, 6, 7]])
    out = samplers.GreedySampler()(spell, tf.constant([[2, 0, 0, 0, 0, 0]]), index=1, stop_token_ids=[0], cache=cache)
    np.testing.assert_array_equal(out, [[2, 4, 0, 0, 0, 0]])
    theirs = kh.samplers.GreedySampler()(
        spell, tf.constant([[2, 0, 0, 0, 0, 0]]), index=1, stop_token_ids=[0], cache=cache
    )
    np.testing.assert_array_equal(theirs, [[2, 0, 0, 0, 0, 0]])


def test_index_starts_the_loop_and_the_cache_is_optional():
    def first_id(prompt, cache, index):
        return tf.one_hot(tf.zeros([tf.shape(prompt)[0]], "int32"), 26) * 1e9, None, cache

    out = samplers.GreedySampler()(first_id, tf.fill((1, 12), 25), index=5)
    assert letters(out) == ["zzzzzaaaaaaa"]


@pytest.mark.parametrize("stop_token_ids", [None, [3]])
@pytest.mark.parametrize("make", [samplers.GreedySampler, lambda: samplers.TopKSampler(k=3, seed=4)])
def test_first_logits_stand_for_the_first_call_of_next(make, stop_token_ids):
    calls = []

    def counting_next(prompt, cache, index):
        calls.append(int(index))
        return toy_next(prompt, cache, index)

    first_logits, _, cache = toy_next(tf.constant(PROMPT), toy_cache(), START)  # as a prompt pass leaves them
    given = run(make(), next=counting_next, cache=cache, first_logits=first_logits, stop_token_ids=stop_token_ids)
    np.testing.assert_array_equal(given, run(make(), stop_token_ids=stop_token_ids))
    assert calls and calls[0] == START + 1
    full = run(make(), next=counting_next, index=LENGTH, first_logits=first_logits)  # nothing left to fill
    np.testing.assert_array_equal(full, PROMPT)


def test_the_loop_is_traced_once_and_compiles_with_xla():
    traces = []

    def counting_next(prompt, cache, index):
        traces.append(1)
        return toy_next(prompt, cache, index)

    for sampler in (samplers.GreedySampler(), samplers.BeamSampler(num_beams=3), samplers.TopKSampler(k=3, seed=1)):
        eager = run(sampler, next=toy_next, stop_token_ids=[3])

        @tf.function(jit_compile=True)
        def generate(prompt, cache, mask):
            return sampler(counting_next, prompt, cache=cache, index=START, mask=mask, stop_token_ids=[3])

        traces.clear()
        compiled = generate(tf.constant(PROMPT), toy_cache(), tf.constant(MASK))
        compiled = generate(tf.constant(PROMPT), toy_cache(), tf.constant(MASK))
        assert len(traces) == 1  # one trace of the body for the whole loop, and no retrace on the second call
        compiled = np.asarray(compiled)
        if isinstance(sampler, samplers.TopKSampler):  # XLA draws other numbers: check the contract instead
            assert compiled.shape == PROMPT.shape and (compiled[MASK] == PROMPT[MASK]).all()
        else:
            np.testing.assert_array_equal(compiled, eager)


def test_sampler_contract_errors_name_the_argument():
    with pytest.raises(ValueError, match="GreedySampler expected `prompt` to be a 2-D"):
        samplers.GreedySampler()(toy_next, tf.zeros((4,), "int32"))
    with pytest.raises(ValueError, match="`mask` to have the prompt's shape"):
        samplers.GreedySampler()(toy_next, PROMPT, mask=MASK[:, :3])
    with pytest.raises(ValueError, match="`index` to be between 0 and the prompt's length 9, got 12"):
        samplers.BeamSampler()(toy_next, PROMPT, index=12)
    with pytest.raises(ValueError, match="`stop_token_ids`"):
        samplers.GreedySampler()(toy_next, PROMPT, stop_token_ids=["eos"])
    with pytest.raises(ValueError, match="at most the vocabulary size 11, got 20"):
        run(samplers.TopKSampler(k=20))
    with pytest.raises(NotImplementedError, match="Sampler must define get_next_token"):
        run(samplers.Sampler())


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: samplers.GreedySampler(temperature=0), "GreedySampler expected `temperature` to be a number above 0"),
        (lambda: samplers.TopKSampler(k=0), "TopKSampler expected `k` to be a positive integer, got 0"),
        (lambda: samplers.TopPSampler(p=1.5), "TopPSampler expected `p` to be a number between 0 and 1, got 1.5"),
        (lambda: samplers.TopPSampler(k=2.5), "TopPSampler expected `k` to be a positive integer or None"),
        (lambda: samplers.RandomSampler(seed="a"), "RandomSampler expected `seed` to be an integer or None"),
        (lambda: samplers.BeamSampler(num_beams=0), "BeamSampler expected `num_beams` to be a positive integer"),
        (lambda: samplers.BeamSampler(match_keras_hub=1), "BeamSampler expected `match_keras_hub` to be True or False"),
    ],
)
def test_constructor_errors_name_the_argument(make, message):
    with pytest.raises(ValueError, match=message):
        make()


# Sampling: drawn from the distribution each sampler must draw from.

PROBS = np.array([0.02, 0.3, 0.08, 0.25, 0.15, 0.2], dtype=np.float32)
DRAWS = (400, 11)  # 400 rows of 10 new tokens: 4000 draws


def draw(sampler, probs=PROBS):
    logits = tf.math.log(tf.constant(probs))[None, :]

    def fixed(prompt, cache, index):
        return tf.repeat(logits, tf.shape(prompt)[0], axis=0), None, cache

    ids = sampler(fixed, tf.zeros(DRAWS, "int32"), index=1).numpy()[:, 1:]
    return np.bincount(ids.ravel(), minlength=len(probs)) / ids.size


def assert_frequencies(frequencies, expected):
    expected = np.asarray(expected) / np.sum(expected)
    assert (frequencies[expected == 0] == 0).all(), f"drew outside the allowed set: {frequencies}"
    # 4000 draws: a standard error of at most 0.008; 0.035 is more than four of them
    np.testing.assert_allclose(frequencies, expected, atol=0.035)


def test_top_k_draws_only_among_the_k_most_probable_in_proportion():
    assert_frequencies(draw(samplers.TopKSampler(k=3, seed=1)), np.where(PROBS >= 0.2, PROBS, 0))
    assert_frequencies(draw(samplers.TopKSampler(k=1, seed=1)), [0, 1, 0, 0, 0, 0])


@pytest.mark.parametrize(
    "p, k, kept",
    [
        (0.5, None, [1, 3]),  # 0.3 alone is not past 0.5; 0.3 + 0.25 is
        (0.6, None, [1, 3, 5]),  # 0.55 is not past 0.6: add 0.2
        (0.0, None, [1]),  # the most probable is always kept
        (1.0, None, [0, 1, 2, 3, 4, 5]),
        (0.9, 2, [1, 3]),  # only the 2 most probable are ranked
    ],
)
def test_top_p_draws_among_the_fewest_tokens_past_p(p, k, kept):
    expected = np.zeros_like(PROBS)
    expected[kept] = PROBS[kept]
    assert_frequencies(draw(samplers.TopPSampler(p=p, k=k, seed=2)), expected)


@pytest.mark.parametrize("temperature", [1.0, 2.0, 0.5])
def test_random_draws_with_the_model_probabilities_at_the_temperature(temperature):
    scaled = np.exp(np.log(PROBS) / temperature)
    assert_frequencies(draw(samplers.RandomSampler(seed=3, temperature=temperature)), scaled)


def test_temperature_divides_the_logits_before_the_softmax(kh):
    logits = np.array([[1.0, 2.0, -1.0, 0.5], [0.0, 0.0, 3.0, -2.0]], dtype=np.float32)
    for temperature in (1.0, 0.5, 3.0):
        expected = np.exp(logits / temperature) / np.exp(logits / temperature).sum(axis=-1, keepdims=True)
        ours = samplers.GreedySampler(temperature=temperature).compute_probabilities(tf.constant(logits, "float16"))
        assert ours.dtype == tf.float32
        np.testing.assert_allclose(ours, expected, atol=1e-3)  # float16 logits, float32 softmax
        ours = samplers.TopKSampler(temperature=temperature).compute_probabilities(logits)
        theirs = kh.samplers.TopKSampler(temperature=temperature).compute_probabilities(logits)
        np.testing.assert_allclose(ours, expected, rtol=1e-6)
        np.testing.assert_array_equal(ours, theirs)


def test_seeded_sampling_repeats_and_equals_keras_hub(kh):
    for name, arguments in [("RandomSampler", {}), ("TopKSampler", {"k": 3}), ("TopPSampler", {"p": 0.7})]:
        first = run(getattr(samplers, name)(seed=123, **arguments))
        again = getattr(samplers, name)(seed=123, **arguments)
        np.testing.assert_array_equal(run(again), first)  # a new sampler, the same seed: the same ids
        assert (run(again) != first).any()  # the same sampler draws anew on its next call, as KerasHub's
        theirs = run(getattr(kh.samplers, name)(seed=123, **arguments))
        np.testing.assert_array_equal(first, theirs)  # eagerly, even KerasHub's draws


def test_seed_state_is_tracked_state_and_exports(tmp_path):
    sampler = samplers.TopKSampler(k=2, seed=5)
    assert len(sampler.variables) == 1

    class Holder(tfkit.layers.Layer):
        def __init__(self):
            super().__init__()
            self.sampler = sampler

    assert Holder().weights == []  # state, never a weight

    module = tf.Module()
    module.sampler = sampler
    module.generate = tf.function(
        lambda prompt: sampler(toy_next, prompt, cache=tf.zeros(prompt.shape, tf.float32), index=1),
        input_signature=[tf.TensorSpec((2, 5), tf.int32)],
    )
    path = str(tmp_path / "sampler")
    tf.saved_model.save(module, path)
    loaded = tf.saved_model.load(path)
    out = loaded.generate(tf.constant([[1, 0, 0, 0, 0], [2, 0, 0, 0, 0]])).numpy()
    assert out.shape == (2, 5) and out[:, 0].tolist() == [1, 2] and ((out >= 0) & (out < VOCAB)).all()


# get / serialize / deserialize.

ALL = [
    ("greedy", {}),
    ("top_k", {"k": 3, "seed": 4, "temperature": 0.5}),
    ("top_p", {"p": 0.8, "k": 10, "seed": None}),
    ("random", {"seed": 7}),
    ("beam", {"num_beams": 2, "return_all_beams": True}),
]


@pytest.mark.parametrize("name, arguments", ALL)
def test_get_serialize_deserialize_round_trip_and_equal_keras_hub(kh, name, arguments):
    ours, theirs = samplers.get(name), kh.samplers.get(name)
    assert type(ours).__name__ == type(theirs).__name__
    assert ours.get_config() == theirs.get_config()
    ours, theirs = type(ours)(**arguments), type(theirs)(**arguments)
    config, their_config = samplers.serialize(ours), kh.samplers.serialize(theirs)
    assert set(config) == set(their_config)
    assert {key: config[key] for key in config if key != "module"} == {
        key: their_config[key] for key in their_config if key != "module"
    }
    back = samplers.deserialize(config)
    assert type(back) is type(ours) and back.get_config() == ours.get_config()
    assert samplers.get(their_config).get_config() == ours.get_config()  # KerasHub's config, read by tfkit
    assert kh.samplers.deserialize(config).get_config() == ours.get_config()  # and tfkit's by KerasHub


def test_get_takes_classes_and_samplers_and_refuses_the_rest():
    sampler = samplers.TopKSampler()
    assert samplers.get(sampler) is sampler
    assert samplers.get(None) is None
    assert type(samplers.get(samplers.GreedySampler)) is samplers.GreedySampler  # KerasHub returns the class
    assert type(samplers.deserialize({"class_name": "GreedySampler", "config": {}})) is samplers.GreedySampler
    assert type(samplers.deserialize({"class_name": "top_k", "config": {"k": 2}})) is samplers.TopKSampler
    with pytest.raises(KeyError, match="lowercase string identifier"):
        samplers.get("Greedy")
    with pytest.raises(ValueError, match="Unknown sampler 'nope': use one of 'beam', 'contrastive', 'greedy'"):
        samplers.get("nope")  # KerasHub returns the string
    with pytest.raises(ValueError, match="SpeculativeSampler is not in tfkit.hub.samplers yet"):
        samplers.get("speculative")
    with pytest.raises(ValueError, match="Could not interpret sampler identifier: 3"):
        samplers.get(3)
    with pytest.raises(ValueError, match="does not name a Sampler class"):
        samplers.deserialize({"class_name": "Mine", "config": {}}, custom_objects={"Mine": dict})

    class Mine(samplers.GreedySampler):
        pass

    with pytest.raises(ValueError, match="Unknown sampler 'Mine'"):
        samplers.get({"class_name": "Mine", "config": {}})  # unknown without custom_objects
    assert type(samplers.deserialize({"class_name": "Mine", "config": {}}, {"Mine": Mine})) is Mine


def test_get_unknown_class_name_is_refused():
    with pytest.raises(ValueError, match="Unknown sampler 'Missing'"):
        samplers.deserialize({"class_name": "Missing", "config": {}})


# Docstrings follow the rules (their examples run in test_docstring_examples[hub]).

PUBLIC = [getattr(samplers, name) for name in samplers.__all__]


def test_docstrings_follow_the_rules_and_parse():
    assert keras_hub.samplers is samplers
    for obj in PUBLIC:
        assert api_reference.problems(obj) == [], obj.__name__
        assert api_reference.restructured_text_warnings(obj) == [], obj.__name__
