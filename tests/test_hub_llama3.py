"""Llama 3 in tfkit.hub against KerasHub: presets both ways, Hugging Face checkpoints, logits, greedy ids, text.

A tiny random Llama 3 preset (grouped-query attention, Llama 3.1's rotary smoothing) is made by KerasHub
itself (``hub_presets_llama3``); tfkit loads it and must compute KerasHub's numbers, generate the same
greedy ids and text, save presets KerasHub loads, and read the Hugging Face checkpoint KerasHub exports of
the same weights.
"""

import io
import json
import os

import numpy as np
import pytest
import tensorflow as tf
from hub_presets import TEXTS, keras, keras_hub
from hub_presets_llama3 import BACKBONE_ARGUMENTS, llama3_preset, llama3_vocabulary

import tfkit
import tfkit.hub as tk_hub
from tfkit.hub.models.llama.llama_decoder import LlamaTransformerDecoder
from tfkit.hub.models.llama.llama_rotary_embedding import LlamaRotaryEmbedding

PROMPTS = {
    "token_ids": np.array([[5, 9, 30, 2, 0, 0, 0, 0, 0, 0], [7, 8, 0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
    "padding_mask": np.array([[1, 1, 1, 1, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]], "int32"),
}
CHAT = "<|begin_of_text|><|start_header_id|>user<|end_header_id|>hello world<|eot_id|>"


@pytest.fixture(scope="module")
def preset(tmp_path_factory):
    return llama3_preset(str(tmp_path_factory.mktemp("llama3_preset")))


@pytest.fixture(scope="module")
def reference(preset):
    model = keras_hub.models.Llama3CausalLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy")
    return model


@pytest.fixture(scope="module")
def causal_lm(preset):
    model = tk_hub.models.CausalLM.from_preset(preset, preprocessor=None)
    model.compile(sampler="greedy")
    return model


def test_llama3_is_a_llama_with_grouped_key_value_heads(causal_lm):
    backbone = causal_lm.backbone  # (KerasHub's numbers: test_hub_families)
    assert isinstance(backbone, tk_hub.models.LlamaBackbone)
    attention = backbone.transformer_layers[0]._self_attention_layer
    assert tuple(attention._key_dense.kernel.shape) == (32, 2, 8)  # 2 key/value heads for 4 query heads


def test_mixed_bfloat16_computes_keras_hubs_numbers(preset):
    ours = tk_hub.models.Backbone.from_preset(preset, dtype="mixed_bfloat16")
    theirs = keras_hub.models.Backbone.from_preset(preset, dtype="mixed_bfloat16")
    assert ours.compute_dtype == "bfloat16" and ours.weights[0].dtype == tf.float32
    ours_out, theirs_out = ours(PROMPTS), theirs(PROMPTS)  # norms, softmax and SiLU in float32, as KerasHub's
    assert ours_out.dtype == tf.bfloat16
    np.testing.assert_allclose(np.asarray(tf.cast(ours_out, tf.float32)), np.asarray(tf.cast(theirs_out, "float32")))


def test_a_float32_preset_loads_in_bfloat16_as_keras_hub_loads_it(preset):
    ours = tk_hub.models.CausalLM.from_preset(preset, preprocessor=None, dtype="bfloat16")
    theirs = keras_hub.models.CausalLM.from_preset(preset, preprocessor=None, dtype="bfloat16")
    assert {weight.dtype for weight in ours.backbone.weights} == {tf.bfloat16}  # cast from the file's float32
    for mine, reference_weight in zip(ours.backbone.weights, theirs.backbone.weights):
        np.testing.assert_array_equal(np.asarray(mine).view("uint16"), np.asarray(reference_weight).view("uint16"))
    ours_out, theirs_out = (np.asarray(tf.cast(model(PROMPTS), tf.float32)) for model in (ours, theirs))
    np.testing.assert_array_equal(ours_out, theirs_out)  # norms, softmax and SiLU in float32, as KerasHub's
    ours.compile(sampler="greedy")
    ids = ours.generate(dict(PROMPTS), stop_token_ids=None)["token_ids"]
    assert np.asarray(ids).shape == PROMPTS["token_ids"].shape


def as_float32(weight):
    return np.asarray(tf.cast(tf.convert_to_tensor(weight), tf.float32))


def test_a_preset_keras_hub_saved_in_bfloat16_loads_as_keras_hub_loads_it(preset, tmp_path):
    """KerasHub's own presets are mostly saved in bfloat16: opaque 2-byte arrays and a bfloat16 config."""
    saved = str(tmp_path / "bfloat16_preset")
    keras_hub.models.CausalLM.from_preset(preset, preprocessor=None, dtype="bfloat16").save_to_preset(saved)
    theirs = keras_hub.models.CausalLM.from_preset(saved, preprocessor=None)
    ours = tk_hub.models.CausalLM.from_preset(saved, preprocessor=None)  # float32 unless asked, as KerasHub's
    assert {weight.dtype for weight in ours.backbone.weights} == {tf.float32}
    for mine, reference_weight in zip(ours.backbone.weights, theirs.backbone.weights):
        np.testing.assert_array_equal(as_float32(mine), as_float32(reference_weight))
    kept = tk_hub.models.CausalLM.from_preset(saved, preprocessor=None, dtype="bfloat16")
    assert {weight.dtype for weight in kept.backbone.weights} == {tf.bfloat16}
    for mine, reference_weight in zip(kept.backbone.weights, theirs.backbone.weights):
        np.testing.assert_array_equal(as_float32(mine), as_float32(reference_weight))


def test_keras_hub_reads_a_bfloat16_preset_tfkit_saved(preset, tmp_path):
    ours = tk_hub.models.CausalLM.from_preset(preset, preprocessor=None, dtype="bfloat16")
    saved = str(tmp_path / "tfkit_bfloat16_preset")
    ours.save_to_preset(saved)
    theirs = keras_hub.models.CausalLM.from_preset(saved, preprocessor=None, dtype="bfloat16")
    for mine, reference_weight in zip(ours.backbone.weights, theirs.backbone.weights):
        np.testing.assert_array_equal(as_float32(mine), as_float32(reference_weight))
    again = tk_hub.models.CausalLM.from_preset(saved, preprocessor=None, dtype="bfloat16")
    np.testing.assert_array_equal(as_float32(again(PROMPTS)), as_float32(theirs(PROMPTS)))


def test_score_gives_keras_hubs_logits_and_losses(reference, causal_lm):
    ids, mask = PROMPTS["token_ids"], PROMPTS["padding_mask"]
    targets = np.roll(ids, -1, axis=1)
    np.testing.assert_allclose(causal_lm.score(ids, mask), reference.score(ids, mask), atol=1e-4)
    ours = causal_lm.score(ids, mask, scoring_mode="loss", target_ids=targets)
    theirs = reference.score(ids, mask, scoring_mode="loss", target_ids=targets)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    seen = []
    causal_lm.score(ids, mask, layer_intercept_fn=lambda x, i: seen.append(i) or x)
    assert seen == [-1, 0, 1]
    with pytest.raises(ValueError, match="target_ids"):
        causal_lm.score(ids, mask, scoring_mode="loss")


def test_a_saved_preset_loads_in_keras_hub_with_the_same_numbers(preset, causal_lm, tmp_path):
    causal_lm.backbone.save_to_preset(str(tmp_path))
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["registered_name"] == "keras_hub>Llama3Backbone"
    expected = json.loads(open(os.path.join(preset, "config.json")).read())["config"]
    assert config["config"] == {**expected, "tie_word_embeddings": False}  # KerasHub's keys, and the tying
    metadata = json.loads(open(os.path.join(preset, "metadata.json")).read())
    assert json.loads((tmp_path / "metadata.json").read_text())["tasks"] == metadata["tasks"] == ["LlamaCausalLM"]
    theirs = keras_hub.models.Backbone.from_preset(str(tmp_path))
    np.testing.assert_allclose(np.asarray(theirs(PROMPTS)), np.asarray(causal_lm.backbone(PROMPTS)), atol=1e-5)


def test_tied_embeddings_survive_a_preset_in_both_libraries(tmp_path):
    vocabulary_size = len(llama3_vocabulary()[0])
    ours = tk_hub.models.Llama3Backbone(vocabulary_size=vocabulary_size, tie_word_embeddings=True, **BACKBONE_ARGUMENTS)
    assert "reverse_embeddings" not in [w.name.split("/")[-1].split(":")[0] for w in ours.weights]
    ours.save_to_preset(str(tmp_path))
    theirs = keras_hub.models.Backbone.from_preset(str(tmp_path))  # KerasHub's own config would lose the tying
    assert theirs.tie_word_embeddings
    np.testing.assert_allclose(np.asarray(theirs(PROMPTS)), np.asarray(ours(PROMPTS)), atol=1e-5)
    again = tk_hub.models.Backbone.from_preset(str(tmp_path))
    hidden = np.asarray(again(PROMPTS))
    logits = np.asarray(again.token_embedding(hidden, reverse=True))
    np.testing.assert_allclose(logits, hidden @ np.asarray(again.token_embedding.embeddings).T, atol=1e-5)


@pytest.fixture(scope="module")
def text_models(preset):
    ours = tk_hub.models.CausalLM.from_preset(preset)
    theirs = keras_hub.models.CausalLM.from_preset(preset)
    for model in (ours, theirs):
        model.compile(sampler="greedy")
    return ours, theirs


def test_the_tokenizer_gives_keras_hubs_ids_and_keeps_special_tokens_whole(text_models):
    ours, theirs = text_models
    tokenizer = ours.preprocessor.tokenizer
    assert type(ours.preprocessor).__name__ == "Llama3CausalLMPreprocessor"
    assert type(tokenizer).__name__ == "Llama3Tokenizer"
    for text in [*TEXTS, CHAT, "two\n\nlines  and   spaces"]:
        np.testing.assert_array_equal(tokenizer(text), theirs.preprocessor.tokenizer(text))
    vocabulary = llama3_vocabulary()[0]
    ids = tokenizer(CHAT).numpy().tolist()
    assert ids[:2] == [vocabulary["<|begin_of_text|>"], vocabulary["<|start_header_id|>"]]
    assert ids[-1] == vocabulary["<|eot_id|>"]
    assert (tokenizer.end_token_id, tokenizer.end_token2_id) == (vocabulary["<|end_of_text|>"], ids[-1])
    mapped = next(iter(tf.data.Dataset.from_tensor_slices([CHAT]).map(tokenizer)))  # TensorFlow ops only
    np.testing.assert_array_equal(mapped, ids)
    assert tokenizer.detokenize([ids]) == [CHAT]


def test_evaluate_gives_the_numpy_loss_of_keras_hubs_batches_of_raw_strings(text_models, preset):
    _, theirs = text_models
    x, y, sample_weight = theirs.preprocessor(TEXTS)  # KerasHub's batch, logits and Keras's loss reduction
    logits = np.asarray(theirs(x), "float64")
    log_probabilities = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    token_loss = -np.take_along_axis(log_probabilities, np.asarray(y)[..., None], -1)[..., 0]
    weighted = token_loss * np.asarray(sample_weight)
    expected = np.mean([weighted[i : i + 2].sum() / weighted[i : i + 2].size for i in (0, 2)])  # batches of 2

    trained = tk_hub.models.CausalLM.from_preset(preset)  # a copy: the fixture's models stay as loaded
    trained.compile(optimizer=tfkit.optimizers.Adam(1e-2), jit_compile=False)
    before = trained.evaluate(TEXTS, batch_size=2, verbose=0, return_dict=True)["loss"]
    np.testing.assert_allclose(before, expected, rtol=1e-5)


def test_a_whole_task_saved_to_a_preset_loads_in_keras_hub_and_generates_the_same(text_models, tmp_path):
    ours, _ = text_models
    ours.save_to_preset(str(tmp_path))
    tokenizer_config = json.loads((tmp_path / "tokenizer.json").read_text())["config"]
    assert tokenizer_config["bos_token"] == "<|begin_of_text|>" and tokenizer_config["eos_token"] == "<|end_of_text|>"
    theirs = keras_hub.models.CausalLM.from_preset(str(tmp_path))  # (its numbers: test_hub_families)
    assert (theirs.preprocessor.tokenizer.start_token_id, theirs.preprocessor.tokenizer.end_token_id) == (
        ours.preprocessor.tokenizer.start_token_id,
        ours.preprocessor.tokenizer.end_token_id,
    )


@pytest.fixture(scope="module")
def hugging_face_checkpoint(preset, tmp_path_factory):
    pytest.importorskip("safetensors")
    folder = tmp_path_factory.mktemp("llama3_hf")
    exported = keras_hub.models.Llama3CausalLM.from_preset(preset)
    exported.export_to_transformers(str(folder))  # KerasHub's own writer of Transformers checkpoints
    exported.compile(sampler="greedy")
    return str(folder), exported


def test_a_hugging_face_checkpoint_of_the_same_weights_loads_with_the_same_numbers(hugging_face_checkpoint):
    folder, exported = hugging_face_checkpoint
    hf_config = json.loads(open(os.path.join(folder, "config.json")).read())
    assert hf_config["model_type"] == "llama" and hf_config["rope_scaling"]["rope_type"] == "llama3"
    backbone = tk_hub.models.Backbone.from_preset(folder)
    assert type(backbone).__name__ == "Llama3Backbone"
    assert backbone.layer_norm_epsilon == 1e-5  # rms_norm_eps (KerasHub's converter leaves its 1e-6 default)
    np.testing.assert_allclose(np.asarray(backbone(PROMPTS)), np.asarray(exported.backbone(PROMPTS)), atol=1e-5)
    causal_lm = tk_hub.models.CausalLM.from_preset(folder)  # the tokenizer from tokenizer.json
    tokenizer = causal_lm.preprocessor.tokenizer
    np.testing.assert_array_equal(tokenizer(CHAT), exported.preprocessor.tokenizer(CHAT))
    assert (tokenizer.start_token, tokenizer.end_token) == ("<|begin_of_text|>", "<|end_of_text|>")


def test_a_bfloat16_checkpoint_loads_its_rounded_weights(hugging_face_checkpoint, tmp_path):
    safetensors_tf = pytest.importorskip("safetensors.tensorflow")
    folder, _ = hugging_face_checkpoint
    for name in os.listdir(folder):  # Meta's checkpoints are bfloat16, which NumPy cannot hold
        if name != "model.safetensors":
            os.link(os.path.join(folder, name), tmp_path / name)
    tensors = safetensors_tf.load_file(os.path.join(folder, "model.safetensors"))
    safetensors_tf.save_file(
        {k: tf.cast(v, tf.bfloat16) for k, v in tensors.items()}, str(tmp_path / "model.safetensors")
    )
    ours = tk_hub.models.Backbone.from_preset(str(tmp_path))
    rounded = tk_hub.models.Backbone.from_preset(folder)
    for variable in rounded.weights:
        variable.assign(tf.cast(tf.cast(variable, tf.bfloat16), tf.float32))
    for mine, expected in zip(ours.weights, rounded.weights, strict=True):
        np.testing.assert_array_equal(mine.numpy(), expected.numpy())


def test_a_checkpoint_llama3_cannot_hold_is_refused(hugging_face_checkpoint, tmp_path):
    folder, _ = hugging_face_checkpoint
    hf_config = json.loads(open(os.path.join(folder, "config.json")).read())
    for change, message in (
        ({"attention_bias": True}, "attention_bias set; Llama3Backbone's projections have no biases"),
        ({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, "rope_scaling of type 'yarn' is not supported"),
        ({"head_dim": 4}, "head_dim 4 differs from hidden_size // num_attention_heads"),
    ):
        (tmp_path / "config.json").write_text(json.dumps({**hf_config, **change}))
        with pytest.raises(ValueError, match=message):
            tk_hub.models.Backbone.from_preset(str(tmp_path))
    (tmp_path / "config.json").write_text(json.dumps(hf_config))
    tokenizer_json = json.loads(open(os.path.join(folder, "tokenizer.json")).read())
    tokenizer_json["model"]["byte_fallback"] = True  # Llama 2's tokenizer.json, which KerasHub reads as Llama 3's
    (tmp_path / "tokenizer.json").write_text(json.dumps(tokenizer_json))
    with pytest.raises(ValueError, match="SentencePiece-style BPE with byte fallback"):
        tk_hub.models.Llama3Tokenizer.from_preset(str(tmp_path))


def test_linear_rope_scaling_divides_the_positions_and_keras_hubs_rotary_config_is_read():
    x = np.random.default_rng(0).normal(size=(1, 6, 2, 8)).astype("float32")
    scaled = LlamaRotaryEmbedding(max_wavelength=100, position_scaling_factor=2.0)
    plain = LlamaRotaryEmbedding(max_wavelength=100)
    np.testing.assert_allclose(scaled(x, start_index=3), plain(x, positions=(np.arange(6) + 3) / 2.0), atol=1e-6)
    theirs = keras_hub.src.models.llama.llama_rotary_embedding.LlamaRotaryEmbedding(
        max_wavelength=100,
        frequency_adjustment_factor=8.0,
        low_freq_factor=1.0,
        high_freq_factor=4.0,
        pretraining_sequence_length=32,
    )
    ours = LlamaRotaryEmbedding.from_config(theirs.get_config())  # KerasHub cannot rebuild from its own config
    assert ours.pretraining_sequence_length == 32
    np.testing.assert_allclose(ours(x, start_index=5), theirs(x, start_index=5), atol=1e-6)
    assert LlamaRotaryEmbedding.from_config(ours.get_config()).get_config() == ours.get_config()
    with pytest.raises(ValueError, match="either all of `low_freq_factor`"):
        LlamaRotaryEmbedding(low_freq_factor=1.0)


def test_a_decoder_block_loads_keras_hubs_weights_and_back_and_rebuilds_from_its_config(tmp_path):
    arguments = {"intermediate_dim": 12, "num_query_heads": 4, "num_key_value_heads": 1, "layer_norm_epsilon": 1e-5}
    keras.utils.set_random_seed(1)
    theirs = keras_hub.src.models.llama.llama_decoder.LlamaTransformerDecoder(**arguments)
    x = np.random.default_rng(1).normal(size=(2, 5, 8)).astype("float32")
    mask = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], "int32")
    inputs = keras.Input((5, 8))
    wrapper = keras.Model(inputs, theirs(inputs))
    wrapper.save_weights(str(tmp_path / "theirs.weights.h5"))
    ours = LlamaTransformerDecoder(**arguments)
    ours_wrapper = tfkit.Sequential([tfkit.Input((5, 8)), ours])
    ours_wrapper.load_weights(str(tmp_path / "theirs.weights.h5"))
    expected = np.asarray(theirs(x, decoder_padding_mask=mask))
    np.testing.assert_allclose(ours(x, decoder_padding_mask=mask), expected, atol=1e-5)
    for variable in ours.weights:  # and back: tfkit writes, Keras reads
        variable.assign(variable * 0.5)
    ours_wrapper.save_weights(str(tmp_path / "ours.weights.h5"))
    wrapper.load_weights(str(tmp_path / "ours.weights.h5"))
    np.testing.assert_allclose(theirs(x, decoder_padding_mask=mask), ours(x, decoder_padding_mask=mask), atol=1e-5)
    rebuilt = LlamaTransformerDecoder.from_config(ours.get_config())  # KerasHub's get_config raises here
    assert rebuilt.get_config() == ours.get_config()
    with pytest.raises(AttributeError):
        theirs.get_config()


def test_llama2_presets_load_with_their_sentence_piece_tokenizer(tmp_path):
    sentencepiece = pytest.importorskip("sentencepiece")
    proto = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXTS * 20), model_writer=proto, vocab_size=40, hard_vocab_limit=False, minloglevel=2
    )
    keras.utils.set_random_seed(0)
    tokenizer = keras_hub.models.LlamaTokenizer(proto=proto.getvalue())
    backbone = keras_hub.models.LlamaBackbone(
        vocabulary_size=tokenizer.vocabulary_size(),
        num_layers=1,
        num_query_heads=2,
        num_key_value_heads=2,
        hidden_dim=8,
        intermediate_dim=16,
    )
    preprocessor = keras_hub.models.LlamaCausalLMPreprocessor(tokenizer, sequence_length=8)
    keras_hub.models.LlamaCausalLM(backbone, preprocessor=preprocessor).save_to_preset(str(tmp_path))
    ours = tk_hub.models.CausalLM.from_preset(str(tmp_path))
    assert type(ours).__name__ == "LlamaCausalLM"
    assert type(ours.preprocessor.tokenizer).__name__ == "LlamaTokenizer"
    theirs = keras_hub.models.CausalLM.from_preset(str(tmp_path))
    x, _, _ = ours.preprocessor(TEXTS)
    x_theirs, _, _ = theirs.preprocessor(TEXTS)
    np.testing.assert_array_equal(x["token_ids"], x_theirs["token_ids"])
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x_theirs)), atol=1e-5)
