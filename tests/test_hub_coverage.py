"""The KerasHub census: every public name of KerasHub 0.32 is in tfkit.hub, or listed as not built or left out.

``tools/keras_hub_coverage.py`` classifies each name of KerasHub's export table
(``tools/keras_hub_names.json``); this fails on a name that is none of present,
not yet built (with the issue that plans it) or left out (with the reason), and
when ``docs/KERAS_HUB_COVERAGE.md`` is not the tool's current output. The generic
names that need no family (``models.Tokenizer``, ``models.Classifier``,
``models.GPT2Preprocessor``) are checked against KerasHub side by side here.
"""

import importlib.util
import os
import pathlib

import numpy as np
import pytest

import tfkit.hub as tk_hub

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("keras_hub_coverage", ROOT / "tools" / "keras_hub_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def census():
    tool = _tool()
    table = tool.load_snapshot()
    return tool, table, tool.coverage(table)


def test_every_kerashub_name_is_present_or_listed_with_a_reason(census):
    _, table, rows = census
    assert table["keras_hub_version"] == "0.32.0" and len(rows) == 510  # 507 in namespaces, 2 top-level, 1 vllm
    unlisted = [r["name"] for r in rows if r["status"] == "unlisted"]
    assert not unlisted, f"KerasHub names neither in tfkit.hub nor listed in tools/keras_hub_coverage.py: {unlisted}"
    assert all(r["reason"] for r in rows if r["status"] != "present")


def test_listed_families_and_kinds_are_really_missing(census):
    tool, _, rows = census
    present = {r["name"] for r in rows if r["status"] == "present"}
    assert not present & set(tool.KINDS_NOT_BUILT), "a name listed as not built is present: drop it from the list"
    assert not present & set(tool.LEFT_OUT)
    built_families = {tool._family(r["module"]) for r in rows if r["status"] == "present"} - {None}
    assert not built_families & set(tool.FAMILIES_NOT_BUILT), "a family listed as not built has names in tfkit.hub"


def test_the_coverage_page_is_the_tools_current_output(census):
    tool, table, rows = census
    page = ROOT / "docs" / "KERAS_HUB_COVERAGE.md"
    assert page.read_text() == tool._markdown(rows, table["keras_hub_version"]), (
        "docs/KERAS_HUB_COVERAGE.md is stale: run python tools/keras_hub_coverage.py --markdown "
        "docs/KERAS_HUB_COVERAGE.md"
    )


def test_the_export_table_is_kerashubs_own():
    keras_hub = pytest.importorskip("keras_hub")
    if keras_hub.__version__ != "0.32.0":
        pytest.skip(f"the table is KerasHub 0.32.0's; {keras_hub.__version__} is installed")
    tool = _tool()
    assert tool.snapshot() == tool.load_snapshot()


def test_generic_names_are_the_classes_kerashub_aliases():
    assert tk_hub.models.Tokenizer is tk_hub.tokenizers.Tokenizer
    assert tk_hub.models.Classifier is tk_hub.models.TextClassifier
    assert tk_hub.version() == __import__("tfkit").__version__


def test_tokenizer_from_preset_gives_the_family_tokenizer_with_kerashubs_ids(tmp_path):
    from hub_presets import TEXTS, gpt2_preset, keras_hub
    from hub_presets_bert import bert_presets

    gpt2_folder = gpt2_preset(str(tmp_path / "gpt2"))
    bert_folder, _ = bert_presets(str(tmp_path / "bert"))
    for folder, family in ((gpt2_folder, "GPT2Tokenizer"), (bert_folder, "BertTokenizer")):
        ours = tk_hub.models.Tokenizer.from_preset(folder)
        theirs = keras_hub.models.Tokenizer.from_preset(folder)
        assert type(ours).__name__ == type(theirs).__name__ == family
        for text in TEXTS:
            assert np.asarray(ours(text)).tolist() == np.asarray(theirs(text)).tolist()
        assert ours.vocabulary_size() == theirs.vocabulary_size()


def test_gpt2_preprocessor_packs_as_kerashubs():
    from hub_presets import TEXTS, gpt2_vocabulary, keras_hub

    vocabulary, merges = gpt2_vocabulary()
    ours = tk_hub.models.GPT2Preprocessor(
        tk_hub.models.GPT2Tokenizer(vocabulary=vocabulary, merges=merges), sequence_length=9
    )
    theirs = keras_hub.models.GPT2Preprocessor(
        keras_hub.models.GPT2Tokenizer(vocabulary=vocabulary, merges=merges), sequence_length=9
    )
    for kwargs in ({}, {"sequence_length": 5}):
        x_ours, x_theirs = ours(TEXTS, **kwargs), theirs(TEXTS, **kwargs)
        for key in ("token_ids", "padding_mask"):
            np.testing.assert_array_equal(np.asarray(x_ours[key]), np.asarray(x_theirs[key]))
    x, y = ours(TEXTS[:2], np.array([1, 0]))
    assert np.asarray(y).tolist() == [1, 0] and x["token_ids"].shape == (2, 9)
    end = vocabulary["<|endoftext|>"]
    no_ends = tk_hub.models.GPT2Preprocessor(
        ours.tokenizer, sequence_length=6, add_start_token=False, add_end_token=False
    )
    assert end not in np.asarray(no_ends(["ab"])["token_ids"])[0, :2].tolist()
    config = ours.get_config()
    assert {k: config[k] for k in ("sequence_length", "add_start_token", "add_end_token")} == {
        k: theirs.get_config()[k] for k in ("sequence_length", "add_start_token", "add_end_token")
    }


def test_the_tool_runs_from_the_command_line(tmp_path, capsys):
    tool = _tool()
    assert tool.main(["--markdown", str(tmp_path / "page.md")]) == 0
    assert "public names" in capsys.readouterr().out
    assert os.path.getsize(tmp_path / "page.md") > 1000
