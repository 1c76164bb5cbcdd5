"""Every tfkit.hub family builds and runs under the "bfloat16" and "mixed_bfloat16" policies, as in KerasHub.

Keras's ops promote mixed dtypes (a bfloat16 scale times a float32 tensor is float32) where TensorFlow's
raise, so the families' float32 islands (RMS norms, softmax) cast explicitly; and a bfloat16 constant in an
operation on symbolic tensors is recorded (numpy cannot hold it without ml_dtypes). Presets loaded with
``dtype="bfloat16"`` give KerasHub's logits within bfloat16's resolution.
"""

import numpy as np
import pytest

import tfkit
import tfkit.hub as tk_hub

DECODER = {"vocabulary_size": 50, "num_layers": 2, "hidden_dim": 16, "intermediate_dim": 32}
GROUPED = {**DECODER, "num_query_heads": 2, "num_key_value_heads": 1}
FAMILIES = {
    "GPT2Backbone": {**DECODER, "num_heads": 2},
    "BertBackbone": {**DECODER, "num_heads": 2},
    "ViTBackbone": {
        "image_shape": (16, 16, 3),
        "patch_size": 8,
        "num_layers": 2,
        "num_heads": 2,
        "hidden_dim": 16,
        "mlp_dim": 32,
    },
    "LlamaBackbone": GROUPED,
    "Llama3Backbone": GROUPED,
    "MistralBackbone": GROUPED,
    "QwenBackbone": GROUPED,
    "Qwen3Backbone": {**GROUPED, "head_dim": 8},
    "GemmaBackbone": {**GROUPED, "head_dim": 8},
    "Gemma3Backbone": {**GROUPED, "head_dim": 8, "image_size": 16, "vision_encoder": None},
}


def _inputs(name: str):
    rng = np.random.default_rng(0)
    if name == "ViTBackbone":
        return rng.random((2, 16, 16, 3), dtype=np.float32)
    inputs = {"token_ids": rng.integers(1, 50, (2, 5)).astype("int32"), "padding_mask": np.ones((2, 5), "int32")}
    if name == "BertBackbone":
        inputs["segment_ids"] = np.zeros((2, 5), "int32")
    return inputs


@pytest.fixture
def restore_policy():
    yield
    tfkit.config.set_dtype_policy("float32")


@pytest.mark.parametrize("policy", ["bfloat16", "mixed_bfloat16"])
@pytest.mark.parametrize("how", ["global", "argument"])
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_family_builds_and_runs_under_bfloat16_policies(name, policy, how, restore_policy):
    if how == "global":
        tfkit.config.set_dtype_policy(policy)
        backbone = getattr(tk_hub.models, name)(**FAMILIES[name])
    else:
        backbone = getattr(tk_hub.models, name)(**FAMILIES[name], dtype=policy)
    outputs = backbone(_inputs(name))
    outputs = outputs["sequence_output"] if isinstance(outputs, dict) else outputs
    assert outputs.dtype == tfkit.ops.convert_to_tensor(np.zeros(1, "float32"), "bfloat16").dtype
    assert np.isfinite(np.asarray(outputs, np.float32)).all()
    variable_dtype = "float32" if policy == "mixed_bfloat16" else "bfloat16"
    assert {w.dtype.name for w in backbone.weights if w.dtype.is_floating} == {variable_dtype}


def test_bfloat16_constants_in_symbolic_operations_as_keras():
    keras = pytest.importorskip("keras")
    results = []
    for library in (tfkit, keras):
        x = library.Input((4,), dtype="bfloat16")
        y = x * library.ops.cast(library.ops.sqrt(16.0), "bfloat16")
        model = library.Model(x, y)
        results.append(np.asarray(model(np.array([[1.0, 2.0, 3.0, 0.5]], "float32")), np.float32))
        assert getattr(y.dtype, "name", y.dtype) == "bfloat16"
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], [[4.0, 8.0, 12.0, 2.0]])


def test_bfloat16_constant_survives_a_model_file(tmp_path):
    x = tfkit.Input((3,), dtype="bfloat16")
    model = tfkit.Model(x, x + tfkit.ops.cast(tfkit.ops.convert_to_tensor([0.5, 1.5, 2.5]), "bfloat16"))
    model.save(tmp_path / "m.keras")
    restored = tfkit.saving.load_model(tmp_path / "m.keras")
    data = np.ones((1, 3), "float32")
    np.testing.assert_array_equal(np.asarray(restored(data), np.float32), [[1.5, 2.5, 3.5]])


def test_embedding_returns_the_compute_dtype_as_keras():
    keras = pytest.importorskip("keras")
    ids = np.array([[1, 2]])
    for policy in ("mixed_bfloat16", "bfloat16", "float16"):
        ours = tfkit.layers.Embedding(5, 3, dtype=policy)
        theirs = keras.layers.Embedding(5, 3, dtype=policy)
        expected = policy.split("_")[-1]
        assert ours(ids).dtype.name == keras.backend.standardize_dtype(theirs(ids).dtype) == expected


@pytest.mark.parametrize("family", ["gemma", "gemma3", "mistral"])
def test_presets_loaded_as_bfloat16_give_kerashubs_logits(family, tmp_path):
    from hub_presets import keras_hub
    from hub_presets_gemma import gemma3_preset, gemma_preset
    from hub_presets_mistral import mistral_preset

    make = {"gemma": gemma_preset, "gemma3": gemma3_preset, "mistral": mistral_preset}[family]
    folder = make(str(tmp_path / family))
    ours = tk_hub.models.CausalLM.from_preset(folder, preprocessor=None, dtype="bfloat16")
    theirs = keras_hub.models.CausalLM.from_preset(folder, preprocessor=None, dtype="bfloat16")
    inputs = {"token_ids": np.array([[2, 5, 9, 11, 0]], "int32"), "padding_mask": np.array([[1, 1, 1, 1, 0]], "int32")}
    logits = np.asarray(ours(inputs), np.float32)
    reference = np.asarray(theirs(inputs), np.float32)
    assert {w.dtype.name for w in ours.backbone.weights if w.dtype.is_floating} == {"bfloat16"}
    scale = np.abs(reference).max()
    # bfloat16 keeps 8 bits of mantissa: op orders that differ in rounding stay within a few of its steps
    np.testing.assert_allclose(logits[0, :4], reference[0, :4], atol=0.05 * scale)
