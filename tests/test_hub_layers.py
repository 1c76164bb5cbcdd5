"""tfkit.hub.layers side by side with KerasHub 0.32: weights both ways, configs, cached decoding, packers.

Each modeling layer is built in KerasHub (inside a tiny Keras model), given
random weights and saved as ``.weights.h5``; tfkit's twin loads the file and
must compute the same outputs, and a file tfkit writes must load back into
KerasHub's layer with the same outputs. Configs must equal KerasHub's and
rebuild tfkit's class from KerasHub's serialized entry (``keras_hub>Name``).
Cached decoding (one token at a time) must equal the full-sequence call, also
under XLA; the packers and the mask generator must give KerasHub's outputs,
eagerly and inside ``tf.data``.
"""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest
import tensorflow as tf

import tfkit
import tfkit.hub as hub
from tfkit.engine import masking, tracking

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
keras = pytest.importorskip("keras")
keras_hub = pytest.importorskip("keras_hub")
pytest.importorskip("tensorflow_text")

RNG = np.random.default_rng(55)
X = RNG.normal(size=(2, 5, 8)).astype("float32")
ENCODED = RNG.normal(size=(2, 3, 8)).astype("float32")
IDS = RNG.integers(1, 20, size=(2, 5)).astype("int32")
PADDED_IDS = np.array([[3, 4, 5, 0, 0], [6, 7, 8, 9, 0]], "int32")
POSITIONS = np.array([[1, 3], [0, 4]], "int32")


def randomize(model, seed):
    rng = np.random.default_rng(seed)
    for weight in model.weights:
        weight.assign((rng.normal(size=tuple(weight.shape)) * 0.3).astype(tf.as_dtype(weight.dtype).as_numpy_dtype))


def assert_all_close(got, want, atol=1e-5):
    got, want = tf.nest.flatten(got), tf.nest.flatten(want)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=atol, rtol=0)


# ------------------------------------------------------------------ weights, both ways

# (name, KerasHub layer, tfkit layer, inputs, call): call(layer, *symbolic inputs) -> outputs
CASES = {
    "ReversibleEmbedding": (
        lambda m: m.ReversibleEmbedding(20, 8, tie_weights=False, logit_soft_cap=2.0),
        [IDS],
        lambda layer, ids: [layer(ids), layer(layer(ids), reverse=True)],
    ),
    "PositionEmbedding": (lambda m: m.PositionEmbedding(7), [X], None),
    "TokenAndPositionEmbedding": (lambda m: m.TokenAndPositionEmbedding(20, 7, 8, mask_zero=True), [PADDED_IDS], None),
    "RMSNormalization": (lambda m: m.RMSNormalization(8), [X], None),
    "CachedMultiHeadAttention": (lambda m: m.CachedMultiHeadAttention(2, 4), [X, ENCODED], None),
    "TransformerEncoder": (
        lambda m: m.TransformerEncoder(16, 2, activation="gelu"),
        [X, PADDED_IDS != 0],
        lambda layer, x, mask: layer(x, padding_mask=mask),
    ),
    "TransformerEncoder-normalize_first": (lambda m: m.TransformerEncoder(16, 2, normalize_first=True), [X], None),
    "TransformerDecoder": (lambda m: m.TransformerDecoder(16, 2), [X], None),
    "TransformerDecoder-cross": (
        lambda m: m.TransformerDecoder(16, 2, normalize_first=True),
        [X, ENCODED, np.array([[1, 1, 0], [1, 1, 1]], bool)],
        lambda layer, x, e, mask: layer(x, e, encoder_padding_mask=mask),
    ),
    "MaskedLMHead": (lambda m: m.MaskedLMHead(20, activation="softmax"), [X, POSITIONS], None),
    "FNetEncoder": (lambda m: m.FNetEncoder(16, activation="gelu"), [X], None),
}


def _twins(case):
    make, inputs, call = CASES[case]
    call = call or (lambda layer, *xs: layer(*xs))
    k_inputs = [keras.Input(batch_shape=x.shape, dtype=str(x.dtype)) for x in inputs]
    k_model = keras.Model(k_inputs, call(make(keras_hub.layers), *k_inputs))
    t_inputs = [tfkit.Input(batch_shape=x.shape, dtype=str(x.dtype)) for x in inputs]
    t_model = tfkit.Model(t_inputs, call(make(hub.layers), *t_inputs))
    return k_model, t_model, inputs


@pytest.mark.parametrize("case", sorted(CASES))
def test_keras_hub_weights_load_into_tfkit_and_back(case, tmp_path):
    k_model, t_model, inputs = _twins(case)
    randomize(k_model, seed=1)
    k_model.save_weights(tmp_path / "keras.weights.h5")
    t_model.load_weights(tmp_path / "keras.weights.h5")
    assert_all_close(t_model(inputs), k_model(inputs))

    randomize(t_model, seed=2)  # other values, written by tfkit, read by Keras
    t_model.save_weights(tmp_path / "tfkit.weights.h5")
    k_model.load_weights(tmp_path / "tfkit.weights.h5")
    assert_all_close(k_model(inputs), t_model(inputs))
    assert len(t_model.trainable_weights) == len(k_model.trainable_weights) > 0


def test_masked_lm_head_ties_to_the_token_embedding(tmp_path):
    outputs = {}
    for name, module, framework in (("keras", keras_hub.layers, keras), ("tfkit", hub.layers, tfkit)):
        ids = framework.Input(batch_shape=IDS.shape, dtype="int32")
        positions = framework.Input(batch_shape=POSITIONS.shape, dtype="int32")
        embedding = module.ReversibleEmbedding(20, 8)
        head = module.MaskedLMHead(token_embedding=embedding, intermediate_activation="gelu")
        outputs[name] = framework.Model([ids, positions], head(embedding(ids), positions))
    randomize(outputs["keras"], seed=3)
    outputs["keras"].save_weights(tmp_path / "head.weights.h5")
    outputs["tfkit"].load_weights(tmp_path / "head.weights.h5")
    assert_all_close(outputs["tfkit"]([IDS, POSITIONS]), outputs["keras"]([IDS, POSITIONS]))
    # the embedding once (the head reaches it too), the head's dense, norm and bias, and no kernel of its own
    assert len(outputs["tfkit"].weights) == len(outputs["keras"].weights) == 6


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"max_wavelength": 100, "scaling_factor": 2.0},
        {"rope_type": "dynamic", "scaling_factor": 4.0},
        {"rope_type": "yarn", "scaling_factor": 4.0, "original_max_position_embeddings": 16},
        {"rope_type": "yarn", "scaling_factor": 8.0, "truncate": False, "denominator_dim": 16},
        {"sequence_axis": 2, "feature_axis": 1},
    ],
)
def test_rotary_embedding_matches_keras_hub(arguments):
    x = RNG.normal(size=(2, 6, 3, 8)).astype("float32")
    if arguments.get("sequence_axis") == 2:
        x = np.transpose(x, (0, 3, 1, 2))  # (batch, features, sequence, heads)
    ours, theirs = hub.layers.RotaryEmbedding(**arguments), keras_hub.layers.RotaryEmbedding(**arguments)
    assert_all_close(ours(x), theirs(x))
    assert_all_close(ours(x, start_index=3), theirs(x, start_index=3))
    positions = np.array([[4, 1, 0, 7, 2, 9], [0, 1, 2, 3, 4, 5]])
    if arguments.get("sequence_axis") != 2:
        assert_all_close(ours(x, positions=positions), theirs(x, positions=positions))
        assert_all_close(ours(x, positions=positions[0]), theirs(x, positions=positions[0]))


def test_rotary_embedding_by_hand():
    # position 1 rotates the pair (x0, x1) = (1, 0) by one radian
    np.testing.assert_allclose(
        hub.layers.RotaryEmbedding()(np.array([[[0.0, 0.0], [1.0, 0.0]]], "float32"))[0, 1], [np.cos(1), np.sin(1)]
    )
    with pytest.raises(ValueError, match="rotary_embedding.*must be even, got 3"):
        hub.layers.RotaryEmbedding(name="rotary_embedding")(np.ones((1, 2, 3)))


# ------------------------------------------------------------------ configs


def _normal(value):
    """A config value with Keras's object entries reduced to what both write: class name and arguments."""
    if isinstance(value, dict) and "class_name" in value:
        if value["class_name"] in ("DTypePolicy", "FloatDTypePolicy"):
            return value["config"]["name"]
        return {"class_name": value["class_name"], "config": _normal(value.get("config"))}
    if isinstance(value, dict):
        return {key: _normal(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normal(item) for item in value]
    return value


CONFIG_CASES = {
    "ReversibleEmbedding": lambda m: m.ReversibleEmbedding(20, 8, tie_weights=False, name="e"),
    "PositionEmbedding": lambda m: m.PositionEmbedding(7, initializer="he_normal", name="p"),
    "TokenAndPositionEmbedding": lambda m: m.TokenAndPositionEmbedding(20, 7, 8, mask_zero=True, name="t"),
    "RotaryEmbedding": lambda m: m.RotaryEmbedding(500, rope_type="yarn", sequence_axis=2, name="r"),
    "RMSNormalization": lambda m: m.RMSNormalization(8),
    "CachedMultiHeadAttention": lambda m: m.CachedMultiHeadAttention(2, 4, dropout=0.1, name="a"),
    "TransformerEncoder": lambda m: m.TransformerEncoder(16, 2, dropout=0.1, activation="gelu", name="enc"),
    "TransformerDecoder": lambda m: m.TransformerDecoder(16, 2, layer_norm_epsilon=1e-6, name="dec"),
    "MaskedLMHead": lambda m: m.MaskedLMHead(token_embedding=m.ReversibleEmbedding(20, 8, name="e"), name="h"),
    "StartEndPacker": lambda m: m.StartEndPacker(6, start_value=[1, 2], end_value=3, return_padding_mask=True),
    "MultiSegmentPacker": lambda m: m.MultiSegmentPacker(8, "[CLS]", "[SEP]", pad_value="[PAD]", truncate="waterfall"),
    "MaskedLMMaskGenerator": lambda m: m.MaskedLMMaskGenerator(10, 0.2, 3, 4, unselectable_token_ids=[0, 1]),
}


def _renamed(config, name):
    """``config`` under the layer name ``name`` (where it records a name)."""
    return {**config, "name": name} if "name" in config else config


@pytest.mark.parametrize("case", sorted(CONFIG_CASES))
def test_configs_equal_keras_hub_and_rebuild_from_its_entries(case):
    theirs, ours = CONFIG_CASES[case](keras_hub.layers), CONFIG_CASES[case](hub.layers)
    if case == "TransformerDecoder":  # its config records the shapes it was built with
        theirs.build((None, 5, 8), (None, 3, 8))
        ours.build((None, 5, 8), (None, 3, 8))
    assert tfkit.saving.get_registered_name(type(ours)) == keras.saving.get_registered_name(type(theirs))
    assert tfkit.saving.get_registered_name(type(ours)) == f"keras_hub>{type(ours).__name__}"
    # default names count the layers each library made before (other test files in the same process)
    assert re.sub(r"_\d+$", "", ours.name) == re.sub(r"_\d+$", "", theirs.name)
    want = _normal(theirs.get_config())
    assert _renamed(_normal(ours.get_config()), theirs.name) == want
    entry = json.loads(json.dumps(keras.saving.serialize_keras_object(theirs)))
    rebuilt = tfkit.saving.deserialize(entry)  # KerasHub's entry names tfkit's class by its registered name
    assert type(rebuilt) is type(ours)
    assert _normal(rebuilt.get_config()) == want
    # and tfkit's config rebuilds KerasHub's layer
    again = type(theirs).from_config(json.loads(json.dumps(ours.get_config()))) if case != "RMSNormalization" else None
    assert again is None or _renamed(_normal(again.get_config()), theirs.name) == want


def test_keras_files_both_ways(tmp_path):
    ids, encoded = tfkit.Input((5,), dtype="int32"), tfkit.Input((3, 8))
    x = hub.layers.TransformerEncoder(16, 2)(hub.layers.TokenAndPositionEmbedding(20, 5, 8, mask_zero=True)(ids))
    x = hub.layers.TransformerDecoder(16, 2)(hub.layers.RotaryEmbedding()(x), encoded)
    model = tfkit.Model([ids, encoded], hub.layers.PositionEmbedding(5)(x) + x)
    want = model([PADDED_IDS, ENCODED])
    model.save(tmp_path / "tfkit.keras")
    theirs = keras.saving.load_model(tmp_path / "tfkit.keras")  # KerasHub's classes, by registered name
    assert_all_close(theirs([PADDED_IDS, ENCODED]), want)
    theirs.save(tmp_path / "keras.keras")
    assert_all_close(tfkit.saving.load_model(tmp_path / "keras.keras")([PADDED_IDS, ENCODED]), want)


# ------------------------------------------------------------------ masks, attention and decoding


@pytest.fixture(scope="module")
def decoders(tmp_path_factory):
    """KerasHub's and tfkit's decoders with cross-attention and equal random weights."""
    path = tmp_path_factory.mktemp("decoder") / "decoder.weights.h5"
    pairs = {}
    for name, module, framework in (("keras", keras_hub.layers, keras), ("tfkit", hub.layers, tfkit)):
        x = framework.Input(batch_shape=(None, 5, 8))
        e = framework.Input(batch_shape=(None, 3, 8))
        layer = module.TransformerDecoder(16, 2, activation="gelu")
        pairs[name] = (layer, framework.Model([x, e], layer(x, e)))
    randomize(pairs["keras"][1], seed=4)
    pairs["keras"][1].save_weights(path)
    pairs["tfkit"][1].load_weights(path)
    return pairs["keras"][0], pairs["tfkit"][0]


def _decode_one_at_a_time(decoder, x, encoded, prompt=2, **mask_arguments):
    batch, length = x.shape[:2]
    cache = tf.zeros((batch, 2, length, 2, 4))
    cross_cache = tf.zeros((batch, 2, encoded.shape[1], 2, 4))
    outputs = []
    for start, stop in [(0, prompt)] + [(i, i + 1) for i in range(prompt, length)]:
        out, cache, cross_cache = decoder(
            x[:, start:stop],
            encoded,
            self_attention_cache=cache,
            self_attention_cache_update_index=start,
            cross_attention_cache=cross_cache,
            cross_attention_cache_update_index=0 if start == 0 else None,
            **mask_arguments,
        )
        outputs.append(out)
    return tf.concat(outputs, axis=1), cache


def test_cached_decoding_equals_the_full_sequence_and_keras_hub(decoders):
    theirs, ours = decoders
    encoder_mask = np.array([[1, 1, 0], [1, 1, 1]], bool)
    full = ours(X, ENCODED, encoder_padding_mask=encoder_mask)
    assert_all_close(full, theirs(X, ENCODED, encoder_padding_mask=encoder_mask))
    stepped, cache = _decode_one_at_a_time(ours, X, ENCODED, encoder_padding_mask=encoder_mask)
    assert_all_close(stepped, full)
    their_stepped, their_cache = _decode_one_at_a_time(theirs, X, ENCODED, encoder_padding_mask=encoder_mask)
    assert_all_close(stepped, their_stepped)
    assert_all_close(cache, their_cache)
    # the cache holds every position's projected keys and values (no layer norm before attention here)
    assert_all_close(cache[:, 0], ours._self_attention_layer.key_dense(X))
    assert_all_close(cache[:, 1], ours._self_attention_layer.value_dense(X))


def test_decoder_masks_match_keras_hub(decoders):
    theirs, ours = decoders
    left_padding = np.array([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]], bool)  # rows that may attend to no key
    attention = RNG.random((2, 5, 5)) > 0.3
    for arguments in (
        {"decoder_padding_mask": left_padding},
        {"decoder_attention_mask": attention, "use_causal_mask": False},
        {"decoder_padding_mask": left_padding, "decoder_attention_mask": attention},
        {"encoder_attention_mask": attention[:, :, :3]},
    ):
        assert_all_close(ours(X, ENCODED, **arguments), theirs(X, ENCODED, **arguments))
    x = tf.constant(X)
    masking.set_mask(x, tf.constant(left_padding))  # a Keras mask carried by the input, instead of the argument
    assert_all_close(ours(x, ENCODED), theirs(X, ENCODED, decoder_padding_mask=left_padding))
    np.testing.assert_array_equal(masking.get_mask(ours(x, ENCODED)), left_padding)


def test_decoder_step_compiles_with_xla(decoders):
    _, ours = decoders

    @tf.function(jit_compile=True)
    def generate(x, encoded):
        cache = tf.zeros((2, 2, 5, 2, 4))
        cross_cache = tf.zeros((2, 2, 3, 2, 4))
        _, cache, cross_cache = ours(
            x[:, :1], encoded, self_attention_cache=cache, self_attention_cache_update_index=0,
            cross_attention_cache=cross_cache, cross_attention_cache_update_index=0,
        )  # fmt: skip
        outputs = tf.TensorArray(tf.float32, size=5)

        def step(index, cache, outputs):
            token = tf.gather(x, [index], axis=1)
            out, cache, _ = ours(
                token, encoded, self_attention_cache=cache, self_attention_cache_update_index=index,
                cross_attention_cache=cross_cache, cross_attention_cache_update_index=None,
            )  # fmt: skip
            return index + 1, cache, outputs.write(index, out[:, 0])

        _, cache, outputs = tf.while_loop(lambda i, c, o: i < 5, step, (tf.constant(0), cache, outputs))
        return tf.transpose(outputs.stack(), (1, 0, 2)), cache

    stepped, cache = generate(tf.constant(X), tf.constant(ENCODED))
    assert_all_close(stepped, ours(X, ENCODED))
    assert_all_close(cache, _decode_one_at_a_time(ours, X, ENCODED, prompt=1)[1])


def test_gpt2_style_decoder_only_cache(tmp_path):
    layers = {}
    for name, module, framework in (("keras", keras_hub.layers, keras), ("tfkit", hub.layers, tfkit)):
        x = framework.Input(batch_shape=(None, 5, 8))
        layers[name] = module.TransformerDecoder(16, 2, normalize_first=True)
        model = framework.Model(x, layers[name](x))
        if name == "keras":
            randomize(model, seed=5)
            model.save_weights(tmp_path / "gpt2.weights.h5")
        else:
            model.load_weights(tmp_path / "gpt2.weights.h5")
    cache = tf.zeros((2, 2, 5, 2, 4))
    steps = []
    for index in range(5):
        out, cache = layers["tfkit"](
            X[:, index : index + 1], self_attention_cache=cache, self_attention_cache_update_index=index
        )
        steps.append(out)
    assert_all_close(tf.concat(steps, axis=1), layers["keras"](X))


def test_cached_attention_modes_match_keras_hub(tmp_path):
    pairs = {}
    for name, module, framework in (("keras", keras_hub.layers, keras), ("tfkit", hub.layers, tfkit)):
        q, v = framework.Input(batch_shape=(2, 5, 8)), framework.Input(batch_shape=(2, 3, 8))
        layer = module.CachedMultiHeadAttention(2, 4)
        pairs[name] = (layer, framework.Model([q, v], layer(q, v)))
    randomize(pairs["keras"][1], seed=6)
    pairs["keras"][1].save_weights(tmp_path / "a.weights.h5")
    pairs["tfkit"][1].load_weights(tmp_path / "a.weights.h5")
    (theirs, _), (ours, _) = pairs["keras"], pairs["tfkit"]
    cache = tf.constant(RNG.normal(size=(2, 2, 3, 2, 4)).astype("float32"))
    mask = np.array([[[1, 1, 0]] * 5, [[1, 0, 0]] * 5])
    for arguments in (
        {"cache": cache},  # static: the cache is used as it is
        {"cache": cache, "cache_update_index": 1, "attention_mask": mask},
        {"attention_mask": mask, "return_attention_scores": True},
        {"cache": cache, "cache_update_index": 0, "return_attention_scores": True},
    ):
        value = ENCODED[:, 1:3] if "cache_update_index" in arguments and arguments["cache_update_index"] else ENCODED
        assert_all_close(ours(X, value, **arguments), theirs(X, value, **arguments))
    with pytest.raises(ValueError, match="cached_multi_head_attention.*cache_update_index.*should not be set"):
        hub.layers.CachedMultiHeadAttention(2, 4, name="cached_multi_head_attention")(X, X, cache_update_index=0)


def test_encoder_masks_and_scores_match_keras_hub(tmp_path):
    pairs = {}
    for name, module, framework in (("keras", keras_hub.layers, keras), ("tfkit", hub.layers, tfkit)):
        ids = framework.Input(batch_shape=(2, 5), dtype="int32")
        embedding = module.TokenAndPositionEmbedding(20, 5, 8, mask_zero=True)
        encoder = module.TransformerEncoder(16, 2)
        pairs[name] = (embedding, encoder, framework.Model(ids, encoder(embedding(ids))))
    randomize(pairs["keras"][2], seed=7)
    pairs["keras"][2].save_weights(tmp_path / "e.weights.h5")
    pairs["tfkit"][2].load_weights(tmp_path / "e.weights.h5")
    # the embedding's padding mask reaches the encoder's attention (padded queries attend to nothing)
    assert_all_close(pairs["tfkit"][2](PADDED_IDS), pairs["keras"][2](PADDED_IDS))
    embedded = pairs["tfkit"][0](PADDED_IDS)
    np.testing.assert_array_equal(masking.get_mask(embedded), PADDED_IDS != 0)
    np.testing.assert_array_equal(masking.get_mask(pairs["tfkit"][1](embedded)), PADDED_IDS != 0)
    ours, theirs = pairs["tfkit"][1], pairs["keras"][1]
    attention = RNG.random((2, 5, 5)) > 0.3
    got = ours(X, padding_mask=PADDED_IDS != 0, attention_mask=attention, return_attention_scores=True)
    want = theirs(X, padding_mask=PADDED_IDS != 0, attention_mask=attention, return_attention_scores=True)
    assert_all_close(got, want)
    assert got[1].shape == (2, 2, 5, 5)


def test_layer_errors_name_the_layer_and_argument():
    with pytest.raises(ValueError, match="'dec'.*built without cross attention.*encoder_sequence"):
        decoder = hub.layers.TransformerDecoder(8, 2, name="dec")
        decoder(X)
        decoder(X, ENCODED)
    with pytest.raises(ValueError, match="'enc'.*hidden_dim=8 must be at least num_heads=16"):
        hub.layers.TransformerEncoder(8, 16, name="enc")(X)
    with pytest.raises(ValueError, match="'head'.*vocabulary_size=30, token_embedding.input_dim=20"):
        hub.layers.MaskedLMHead(30, token_embedding=hub.layers.ReversibleEmbedding(20, 8), name="head")
    with pytest.raises(ValueError, match="'p'.*`sequence_length` must be an integer, got None"):
        hub.layers.PositionEmbedding(None, name="p")
    with pytest.raises(ValueError, match="padding_mask.*got shape \\(2, 5, 1\\)"):
        hub.layers.TransformerEncoder(16, 2)(X, padding_mask=np.ones((2, 5, 1)))


def test_rms_normalization_by_hand_and_mixed_precision():
    norm = hub.layers.RMSNormalization(2, dtype="mixed_float16")
    out = norm(np.array([[3.0, 4.0]], "float16"))
    assert out.dtype == tf.float32  # KerasHub computes in float32 whatever the policy
    np.testing.assert_allclose(out, [[3 / np.sqrt(12.5 + 1e-6), 4 / np.sqrt(12.5 + 1e-6)]], rtol=1e-6)
    assert [v.name.split(":")[0].split("/")[-1] for v in norm.weights] == ["scale"]


def test_sub_layers_named_self_something_are_tracked():
    """KerasHub names sub-layers ``_self_attention_layer``: tfkit tracked no ``_self_*`` attribute (TensorFlow's own
    bookkeeping uses that prefix), so such a layer's weights were neither trained nor saved."""

    class Block(tfkit.layers.Layer):
        def build(self, input_shape):
            self._self_dense = tfkit.layers.Dense(3)
            self._self_scale = self.add_weight(shape=(3,), initializer="ones", name="scale")

        def call(self, x):
            return self._self_dense(x) * self._self_scale

    block = Block()
    block(np.ones((1, 2)))
    assert len(block.trainable_weights) == 3
    assert [path for path, _ in tracking.children(block)] == ["_self_dense"]


def test_multi_head_attention_routes_through_compute_attention():
    """tfkit's core MultiHeadAttention calls ``_compute_attention`` (KerasHub's subclasses override it) and has
    Keras's private names for its parts."""
    calls = []

    class Recording(tfkit.layers.MultiHeadAttention):
        def _compute_attention(self, query, key, value, attention_mask=None, training=None, return_scores=False):
            calls.append((tuple(query.shape), tuple(key.shape)))
            return super()._compute_attention(query, key, value, attention_mask, training, return_scores)

    layer = Recording(2, 4)
    plain = tfkit.layers.MultiHeadAttention(2, 4)
    out = layer(X, ENCODED)
    plain(X, ENCODED)
    plain.set_weights(layer.get_weights())
    assert_all_close(out, plain(X, ENCODED))
    assert calls == [((2, 5, 2, 4), (2, 3, 2, 4))]
    assert layer._query_dense is layer.query_dense and layer._output_dense is layer.output_dense
    assert (layer._num_heads, layer._key_dim, layer._value_dim) == (2, 4, 4)
    assert layer._inverse_sqrt_key_dim == 0.5


# ------------------------------------------------------------------ packers


def _same(got, want):
    got, want = tf.nest.flatten(got), tf.nest.flatten(want)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        if isinstance(b, (list, str)):
            assert a == b
        elif isinstance(b, tf.RaggedTensor):
            assert isinstance(a, tf.RaggedTensor) and a.dtype == b.dtype and a.to_list() == b.to_list()
        else:
            assert tf.as_dtype(a.dtype) == tf.as_dtype(b.dtype)
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


START_END_CASES = [
    (dict(sequence_length=7, start_value=1, end_value=2), [5, 6, 7], {}),
    (dict(sequence_length=6, start_value=1, end_value=2), [[5, 6, 7], [8, 9, 10, 11, 12, 13, 14]], {}),
    (dict(sequence_length=5, start_value=[1, 2], pad_value=9, padding_side="left"), [[5, 6, 7], [8]], {}),
    (dict(sequence_length=5, start_value=1, end_value=2, return_padding_mask=True), [[5], [6, 7, 8, 9]], {}),
    (dict(sequence_length=5, start_value=1, end_value=2), [[5, 6, 7, 8]], {"add_start_value": False}),
    (dict(sequence_length=5, start_value=1, end_value=2), [[5, 6, 7, 8]], {"sequence_length": 3}),
    (dict(sequence_length=6, start_value="<s>", end_value="</s>", pad_value="<pad>"), ["this", "is", "fun"], {}),
    (
        dict(sequence_length=6, start_value=["</s>", "<s>"], end_value="</s>", return_padding_mask=True),
        [["this", "is", "fun"], ["awesome"]],
        {"add_end_value": False},
    ),
]


@pytest.mark.parametrize("arguments, inputs, call", START_END_CASES)
def test_start_end_packer_matches_keras_hub(arguments, inputs, call):
    ours, theirs = hub.layers.StartEndPacker(**arguments), keras_hub.layers.StartEndPacker(**arguments)
    _same(ours(inputs, **call), theirs(inputs, **call))
    if isinstance(inputs[0], list):  # a ragged batch in tf.data: KerasHub's TensorFlow path
        data = tf.data.Dataset.from_tensors(tf.ragged.constant(inputs))
        for got, want in zip(data.map(lambda x: ours(x, **call)), data.map(lambda x: theirs(x, **call))):
            _same(got, want)


@pytest.mark.parametrize("truncate", ["round_robin", "waterfall"])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_multi_segment_packer_matches_keras_hub(truncate, padding_side):
    segments = ([[1, 2, 3, 4, 5, 6], [7, 8]], [[11, 12, 13], [14, 15, 16, 17, 18, 19, 20]], [[21], [22, 23, 24]])
    arguments = dict(sequence_length=9, start_value=101, end_value=102, truncate=truncate, padding_side=padding_side)
    for count in (1, 2, 3):
        for sep_value in (None, [103, 104]):
            ours = hub.layers.MultiSegmentPacker(sep_value=sep_value, **arguments)
            theirs = keras_hub.layers.MultiSegmentPacker(sep_value=sep_value, **arguments)
            _same(ours(segments[:count]), theirs(segments[:count]))
    ours, theirs = hub.layers.MultiSegmentPacker(**arguments), keras_hub.layers.MultiSegmentPacker(**arguments)
    _same(ours(([1, 2, 3, 4], [5, 6, 7, 8])), theirs(([1, 2, 3, 4], [5, 6, 7, 8])))  # one pair, unbatched
    _same(ours(segments[:2], add_end_value=False), theirs(segments[:2], add_end_value=False))
    words = (["the", "quick", "brown", "fox"], ["jumped"])
    strings = dict(arguments, start_value="[CLS]", end_value="[SEP]", pad_value="[PAD]")
    _same(hub.layers.MultiSegmentPacker(**strings)(words), keras_hub.layers.MultiSegmentPacker(**strings)(words))
    data = tf.data.Dataset.from_tensors(tuple(tf.ragged.constant(s) for s in segments[:2]))
    for got, want in zip(data.map(lambda *x: ours(x)), data.map(lambda *x: theirs(x))):
        _same(got, want)


def _as_list(value):
    return value.numpy().tolist() if hasattr(value, "numpy") else value


def test_mask_generator_matches_keras_hub():
    batch = [[1, 2, 3, 4, 0, 0], [5, 6, 7, 8, 9, 0]]
    selected = dict(
        vocabulary_size=10, mask_selection_rate=1.0, mask_token_id=9, mask_token_rate=1.0, random_token_rate=0.0
    )
    for arguments in (dict(selected, mask_selection_length=6), selected):
        ours = hub.layers.MaskedLMMaskGenerator(**arguments, unselectable_token_ids=[0, 1])
        theirs = keras_hub.layers.MaskedLMMaskGenerator(**arguments, unselectable_token_ids=[0, 1])
        data = tf.data.Dataset.from_tensors(tf.constant(batch))
        for got, want in zip(data.map(ours), data.map(theirs)):  # KerasHub's TensorFlow path: exact dtypes too
            _same(got, want)
        # eagerly KerasHub runs Python (its positions are int32, tensorflow_text's int64): the same numbers
        got, want = ours(batch), theirs(batch)
        for key in want:
            assert _as_list(got[key]) == _as_list(want[key])
    ragged = hub.layers.MaskedLMMaskGenerator(**selected)(batch)
    assert ragged["mask_positions"] == [[0, 1, 2, 3], [0, 1, 2, 3, 4]]  # eagerly, ragged outputs are lists
    assert ragged["mask_ids"] == [[1, 2, 3, 4], [5, 6, 7, 8, 9]]
    tf.random.set_seed(0)
    random = hub.layers.MaskedLMMaskGenerator(10, 0.5, 9, mask_selection_length=3, random_token_rate=0.2)
    out = random(tf.constant(batch))
    weights = out["mask_weights"].numpy()
    assert out["mask_positions"].shape == (2, 3) and weights.dtype == np.float32 and set(weights.ravel()) <= {0, 1}
    for row, positions, ids, weight in zip(batch, out["mask_positions"], out["mask_ids"], weights):
        chosen = positions.numpy()[weight == 1]
        assert all(row[p] != 0 for p in chosen)
        np.testing.assert_array_equal(ids.numpy()[weight == 1], [row[p] for p in chosen])
    with pytest.raises(ValueError, match="mask_token_id.*\\[0, 9\\].*got mask_token_id=10"):
        hub.layers.MaskedLMMaskGenerator(10, 0.5, 10)


def test_packers_run_in_an_exported_saved_model(tmp_path):
    start_end = hub.layers.StartEndPacker(5, start_value="<s>", end_value="</s>", pad_value="<pad>")
    pairs = hub.layers.MultiSegmentPacker(7, start_value=101, end_value=102)

    class Serving(tf.Module):
        @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.string)])
        def pack(self, words):
            return start_end(words)

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.int32), tf.TensorSpec([None, 4], tf.int32)])
        def pack_pairs(self, first, second):
            return pairs((first, second))

    tf.saved_model.save(Serving(), str(tmp_path / "packers"))
    restored = tf.saved_model.load(str(tmp_path / "packers"))
    words = tf.ragged.constant([["a", "b"], ["c", "d", "e", "f"]])
    np.testing.assert_array_equal(
        restored.pack(words).numpy().astype(str), [["<s>", "a", "b", "</s>", "<pad>"], ["<s>", "c", "d", "e", "</s>"]]
    )
    token_ids, segment_ids = restored.pack_pairs(tf.constant([[1, 2, 3]]), tf.constant([[4, 5, 6, 7]]))
    np.testing.assert_array_equal(token_ids, [[101, 1, 2, 102, 4, 5, 102]])
    np.testing.assert_array_equal(segment_ids, [[0, 0, 0, 0, 1, 1, 1]])


def test_packer_errors_name_the_layer():
    with pytest.raises(ValueError, match="'p'.*`start_value`.*got dict"):
        hub.layers.StartEndPacker(5, start_value={"a": 1}, name="p")
    with pytest.raises(ValueError, match="'m'.*`truncate`.*got 'longest_first'"):
        hub.layers.MultiSegmentPacker(5, 1, 2, truncate="longest_first", name="m")
    with pytest.raises(ValueError, match="'m'.*same rank.*ranks \\[1, 2\\]"):
        hub.layers.MultiSegmentPacker(5, 1, 2, name="m")(([1, 2], [[3, 4]]))
    with pytest.raises(ValueError, match="'p'.*`padding_side`.*got 'middle'"):
        hub.layers.StartEndPacker(5, padding_side="middle", name="p")


# ------------------------------------------------------------------ docstring examples
