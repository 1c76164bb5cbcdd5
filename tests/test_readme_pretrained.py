"""The README's pretrained-model example runs, on a tiny local preset in place of the Hugging Face handle."""

import pathlib
import re
import textwrap

from hub_presets_qwen import qwen3_preset


def test_the_readme_pretrained_example_runs(tmp_path, capsys):
    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = textwrap.dedent(re.search(r"```python\n( *import tfkit.hub as keras_hub\n.*?) *```", readme, re.S).group(1))
    assert block.count("\n") <= 6  # the front door's example stays five lines
    folder = qwen3_preset(str(tmp_path / "qwen3"))
    exec(compile(block.replace('"hf://Qwen/Qwen3-0.6B"', repr(folder)), "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.startswith("The quick brown fox")
