"""tools/keras_io_hub_guides.py: the import rewrite, the declared substitutions, and one synthetic guide run offline.

The synthetic guide (written here, not keras-io's) loads ``"gpt2_base_en"`` and downloads a file with
``keras.utils.get_file``; the tool must point the handle at a tiny KerasHub-made preset, serve the
download from its stand-in, rewrite the imports to tfkit and run it, and the text tfkit generates must
be KerasHub's own greedy text for the same preset.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from hub_presets import gpt2_preset, keras_hub

_PATH = Path(__file__).resolve().parents[1] / "tools" / "keras_io_hub_guides.py"
_spec = importlib.util.spec_from_file_location("keras_io_hub_guides", _PATH)
tool = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("keras_io_hub_guides", tool)  # its dataclasses look their module up
_spec.loader.exec_module(tool)

VOCAB_URL = "https://storage.googleapis.com/tensorflow/keras-nlp/examples/bert/bert_vocab_uncased.txt"
GUIDE = f"""\
import os

os.environ["KERAS_BACKEND"] = "jax"

import json
import keras
import keras_hub
from keras import ops

path = keras.utils.get_file(origin="{VOCAB_URL}")
print("FIRST_LINE", open(path).read().splitlines()[0])
lm = keras_hub.models.GPT2CausalLM.from_preset("gpt2_base_en")
lm.compile(sampler="greedy")
print("GENERATED", json.dumps([str(t) for t in lm.generate(["the quick"], max_length=10)]))
print("SUM", float(ops.sum(ops.ones((2, 3)))))
"""


def test_rewrite_imports_points_keras_and_keras_hub_at_tfkit():
    source = "\n".join(
        [
            "import keras",
            "import keras_hub",
            "import keras_nlp",
            "from keras import ops",
            "from keras.layers import Dense",
            "from keras_hub.models import Llama3CausalLM",
            "from tensorflow import keras",
            "x = tf.keras.optimizers.AdamW(1e-3)",
            'os.environ["KERAS_BACKEND"] = "jax"',
        ]
    )
    assert tool.rewrite_imports(source, "tfkit").splitlines() == [
        "import tfkit as keras",
        "import tfkit.hub as keras_hub",
        "import tfkit.hub as keras_nlp",
        "from tfkit import ops",
        "from tfkit.layers import Dense",
        "from tfkit.hub.models import Llama3CausalLM",
        "import tfkit as keras",
        "x = keras.optimizers.AdamW(1e-3)",
        'os.environ["KERAS_BACKEND"] = "tensorflow"',
    ]
    # Keras mode keeps the libraries; only the backend line is pointed at TensorFlow.
    kept = tool.rewrite_imports("import keras_hub\nimport keras\nfrom keras import ops\n", "keras").splitlines()
    assert kept == ["import keras_hub", "import keras as keras", "from keras import ops"]
    with pytest.raises(ValueError, match="mode must be one of"):
        tool.rewrite_imports("", "torch")


def test_a_substitution_that_no_longer_matches_fails_loudly(tmp_path):
    guide = tool.Guide("guide.py", subs=(tool.Sub("EPOCHS = 3", "EPOCHS = 1", "cap"),))
    assert tool.apply_subs("EPOCHS = 3\nEPOCHS = 3\n", guide, tmp_path) == "EPOCHS = 1\nEPOCHS = 1\n"
    with pytest.raises(LookupError, match="does not occur"):
        tool.apply_subs("EPOCHS = 5\n", guide, tmp_path)
    with pytest.raises(LookupError, match="preset handle 'nope'"):
        tool.apply_subs("x = 1\n", tool.Guide("guide.py", presets={"nope": "gpt2"}), tmp_path)
    with pytest.raises(ValueError, match="key must be one of"):
        tool.build_preset("no_such_family", tmp_path)


def test_synthetic_guide_runs_offline_under_tfkit_and_generates_keras_hubs_text(tmp_path):
    work, sources = tmp_path / "work", tmp_path / "sources"
    sources.mkdir()
    (sources / "synthetic.py").write_text(GUIDE)
    # The preset the tool would build in a subprocess, made here by KerasHub in this process (faster).
    folder = gpt2_preset(str(work / "presets" / "gpt2"))
    guide = tool.Guide("synthetic.py", presets={"gpt2_base_en": "gpt2"}, data=("get_file",))

    record = tool.run_guide("synthetic", guide, sources, "tfkit", work, timeout=120)

    run = work / "runs" / "tfkit" / "synthetic"
    assert record["result"] == "ok", (run / "stderr.txt").read_text()[-3000:] if run.exists() else record
    script = (run / "guide.py").read_text()
    assert "import tfkit as keras" in script and "import tfkit.hub as keras_hub" in script
    assert "gpt2_base_en" not in script and repr(folder) in script
    lines = dict(line.split(" ", 1) for line in (run / "stdout.txt").read_text().splitlines() if " " in line)
    assert lines["FIRST_LINE"] == "[PAD]"  # the stand-in vocabulary, through tfkit's own get_file
    assert float(lines["SUM"]) == 6.0
    reference = keras_hub.models.GPT2CausalLM.from_preset(folder)
    reference.compile(sampler="greedy")
    assert json.loads(lines["GENERATED"]) == [str(t) for t in reference.generate(["the quick"], max_length=10)]
    assert "| `synthetic.py` | not run | ok (" in tool.table({"synthetic": {"tfkit": record}}, {"synthetic": guide})
