"""KerasHub tasks in ``.keras`` files, both ways: the tokenizer's vocabulary travels in ``assets/`` as Keras's does.

Keras's protocol: a layer with ``save_assets``/``load_assets`` keeps its files under
``assets/<attribute path>/`` (``assets/preprocessor/tokenizer/vocabulary.txt`` for a
BERT classifier). A task saved by tfkit loads in Keras with the same predictions and
back; the compile config, a learning-rate schedule included, survives.
"""

import os
import zipfile

import numpy as np
import pytest
from hub_presets import TEXTS, gpt2_preset, keras, keras_hub
from hub_presets_bert import bert_presets

import tfkit
import tfkit.hub as tk_hub


@pytest.fixture(scope="module")
def presets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("presets")
    bert_folder, _ = bert_presets(str(folder / "bert"))
    return {"bert": bert_folder, "gpt2": gpt2_preset(str(folder / "gpt2"))}


def _members(path) -> list[str]:
    with zipfile.ZipFile(path) as zf:
        return sorted(n for n in zf.namelist() if n.startswith("assets/"))


def test_a_classifier_with_its_tokenizer_round_trips_through_a_keras_file_both_ways(presets, tmp_path):
    ours = tk_hub.models.TextClassifier.from_preset(presets["bert"])
    schedule = tfkit.optimizers.schedules.ExponentialDecay(1e-3, decay_steps=10, decay_rate=0.9)
    ours.compile(optimizer=tfkit.optimizers.Adam(schedule), loss=tfkit.losses.SparseCategoricalCrossentropy(True))
    ours.fit(TEXTS, np.array([0, 1, 2, 0]), batch_size=2, epochs=1, verbose=0)
    expected = ours.predict(TEXTS, verbose=0)
    ours.save(tmp_path / "ours.keras")

    theirs = keras_hub.models.TextClassifier.from_preset(presets["bert"])
    theirs.save(tmp_path / "theirs.keras")
    assert (
        _members(tmp_path / "ours.keras")
        == _members(tmp_path / "theirs.keras")
        == ["assets/preprocessor/tokenizer/vocabulary.txt"]
    )

    restored = tfkit.saving.load_model(tmp_path / "ours.keras")
    np.testing.assert_allclose(restored.predict(TEXTS, verbose=0), expected, atol=1e-6)
    assert restored.preprocessor.tokenizer.get_vocabulary() == ours.preprocessor.tokenizer.get_vocabulary()
    learning_rate = restored.optimizer.get_config()["learning_rate"]
    assert learning_rate["class_name"] == "ExponentialDecay" and learning_rate["config"]["decay_steps"] == 10

    in_keras = keras.saving.load_model(tmp_path / "ours.keras")
    np.testing.assert_allclose(in_keras.predict(TEXTS, verbose=0), expected, atol=1e-5)

    from_keras = tfkit.saving.load_model(tmp_path / "theirs.keras")
    np.testing.assert_allclose(from_keras.predict(TEXTS, verbose=0), theirs.predict(TEXTS, verbose=0), atol=1e-5)


def test_a_byte_pair_tokenizer_keeps_vocabulary_and_merges(presets, tmp_path):
    ours = tk_hub.models.CausalLM.from_preset(presets["gpt2"])
    ours.save(tmp_path / "gpt2.keras")
    assert _members(tmp_path / "gpt2.keras") == [
        "assets/preprocessor/tokenizer/merges.txt",
        "assets/preprocessor/tokenizer/vocabulary.json",
    ]
    restored = tfkit.saving.load_model(tmp_path / "gpt2.keras")
    restored.compile(sampler="greedy")
    ours.compile(sampler="greedy")
    assert restored.generate(TEXTS[:2], max_length=10) == ours.generate(TEXTS[:2], max_length=10)
    in_keras = keras.saving.load_model(tmp_path / "gpt2.keras")
    reference = in_keras.preprocessor.tokenizer(TEXTS)
    for text, ids in zip(TEXTS, reference):
        assert np.asarray(restored.preprocessor.tokenizer(text)).tolist() == np.asarray(ids).tolist()


def _rewritten(source, target, replace: dict) -> None:
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            for old, new in replace.items():
                if name == old:
                    name, data = new if isinstance(new, str) else name, new if isinstance(new, bytes) else data
            zout.writestr(name, data)


def test_hostile_assets_are_refused_or_ignored_never_written_outside(presets, tmp_path):
    ours = tk_hub.models.TextClassifier.from_preset(presets["bert"])
    ours.save(tmp_path / "clean.keras")
    member = "assets/preprocessor/tokenizer/vocabulary.txt"

    _rewritten(tmp_path / "clean.keras", tmp_path / "empty.keras", {member: b""})
    with pytest.raises(ValueError, match="empty.keras: assets/preprocessor/tokenizer"):
        tfkit.saving.load_model(tmp_path / "empty.keras")

    _rewritten(tmp_path / "clean.keras", tmp_path / "elsewhere.keras", {member: "assets/../../escape/vocabulary.txt"})
    with pytest.warns(UserWarning, match="escape/vocabulary.txt"):  # no asset of any layer: reported, never read
        loaded = tfkit.saving.load_model(tmp_path / "elsewhere.keras")
    with pytest.raises(ValueError, match="no vocabulary"):
        loaded.predict(TEXTS, verbose=0)
    assert not os.path.exists(tmp_path.parent / "escape")

    with zipfile.ZipFile(tmp_path / "many.keras", "w") as zout, zipfile.ZipFile(tmp_path / "clean.keras") as zin:
        for name in zin.namelist():
            zout.writestr(name, zin.read(name))
        for i in range(1100):
            zout.writestr(f"assets/junk/{i}.txt", b"x")
    with pytest.raises(ValueError, match="assets/ members; at most 1024"):
        tfkit.saving.load_model(tmp_path / "many.keras")


def test_an_image_classifier_with_a_pipeline_preprocessor_saves_to_a_preset_both_ways(tmp_path):
    images = np.random.default_rng(0).random((2, 20, 20, 3)).astype("float32") * 255
    architecture = {"image_shape": (16, 16, 3), "patch_size": 8, "num_layers": 1, "num_heads": 2, "hidden_dim": 8}
    ours = tk_hub.models.ViTImageClassifier(
        backbone=tk_hub.models.ViTBackbone(**architecture, mlp_dim=16),
        num_classes=3,
        preprocessor=tfkit.layers.Pipeline([tfkit.layers.Rescaling(1 / 255.0), tfkit.layers.Resizing(16, 16)]),
    )
    ours.save_to_preset(str(tmp_path / "ours"))
    in_keras_hub = keras_hub.models.ImageClassifier.from_preset(str(tmp_path / "ours"))
    assert type(in_keras_hub.preprocessor).__name__ == "Pipeline"
    np.testing.assert_allclose(in_keras_hub.predict(images, verbose=0), ours.predict(images, verbose=0), atol=1e-5)

    theirs = keras_hub.models.ViTImageClassifier(
        backbone=keras_hub.models.ViTBackbone(**architecture, mlp_dim=16),
        num_classes=3,
        preprocessor=keras.layers.Pipeline([keras.layers.Rescaling(1 / 255.0), keras.layers.Resizing(16, 16)]),
    )
    theirs.save_to_preset(str(tmp_path / "theirs"))
    in_tfkit = tk_hub.models.ImageClassifier.from_preset(str(tmp_path / "theirs"))
    assert isinstance(in_tfkit.preprocessor, tfkit.layers.Pipeline)
    np.testing.assert_allclose(in_tfkit.predict(images, verbose=0), theirs.predict(images, verbose=0), atol=1e-5)
