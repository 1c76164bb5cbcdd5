"""Measures the shape of ``tfkit.hub``: the code each family folder holds, and the files one decoding step runs.

    python tools/hub_shape.py                 # both tables
    python tools/hub_shape.py --families      # code lines per family (converter apart)
    python tools/hub_shape.py --decode-path   # the modules whose code runs while a Llama step is traced

Code lines leave out docstrings, comments and blank lines (the rule of
``tests/test_architecture.py``). A family's converter (``<family>_converter.py``) is counted apart: the aim is that a
new decoder family needs under 150 lines of its own beyond its converter table.
The decode path is what ``sys.setprofile`` sees while ``generate_step`` of a tiny
random ``LlamaCausalLM`` is traced for XLA (after a first call, so only the
step's own code is counted).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_architecture import code_lines  # noqa: E402

CONVERTER_SUFFIXES = ("_converter.py", "_checkpoint.py")


def family_lines() -> list[tuple[str, int, int, int]]:
    """``(family, files, code lines without the converter, converter code lines)`` for each family folder."""
    rows = []
    for folder in sorted((ROOT / "tfkit" / "hub" / "models").iterdir()):
        if not folder.is_dir() or folder.name.startswith("__"):
            continue
        files = [path for path in sorted(folder.glob("*.py")) if path.name != "__init__.py"]
        converter = sum(code_lines(path) for path in files if path.name.endswith(CONVERTER_SUFFIXES))
        own = sum(code_lines(path) for path in files if not path.name.endswith(CONVERTER_SUFFIXES))
        rows.append((folder.name, len(files), own, converter))
    return rows


def decode_path() -> list[str]:
    """The ``tfkit`` files whose functions run while one Llama ``generate_step`` is traced."""
    import numpy as np
    import tensorflow as tf

    import tfkit
    import tfkit.hub as keras_hub

    package = os.path.dirname(tfkit.__file__)
    backbone = keras_hub.models.LlamaBackbone(
        vocabulary_size=50, num_layers=2, num_query_heads=4, num_key_value_heads=2, hidden_dim=16, intermediate_dim=32
    )
    causal_lm = keras_hub.models.LlamaCausalLM(backbone)
    causal_lm.compile(sampler="greedy")
    ids = np.zeros((1, 12), "int32")
    ids[:, :3] = [1, 2, 3]
    inputs = {"token_ids": tf.constant(ids), "padding_mask": tf.constant(ids != 0)}
    causal_lm.generate(inputs, stop_token_ids=None)
    seen: set[str] = set()

    def profile(frame, event, arg):  # noqa: ANN001, ANN202 (sys.setprofile's signature)
        if event == "call" and frame.f_code.co_filename.startswith(package):
            seen.add(os.path.relpath(frame.f_code.co_filename, package))

    sys.setprofile(profile)
    try:
        tf.function(causal_lm.generate_step, jit_compile=True).get_concrete_function(inputs, stop_token_ids=None)
    finally:
        sys.setprofile(None)
    return sorted(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", action="store_true", help="only the code lines per family")
    parser.add_argument("--decode-path", action="store_true", help="only the files of a decoding step")
    args = parser.parse_args()
    both = not (args.families or args.decode_path)
    if args.families or both:
        print("| family | files | code lines (converter apart) | converter code lines |")
        print("| --- | ---: | ---: | ---: |")
        for name, files, own, converter in family_lines():
            print(f"| {name} | {files} | {own} | {converter} |")
    if args.decode_path or both:
        files = decode_path()
        hub = [name for name in files if name.startswith("hub" + os.sep)]
        print(f"\nA Llama decoding step: {len(hub)} tfkit/hub files, {len(files) - len(hub)} other tfkit files")
        print("\n".join(f"- tfkit/{name}" for name in hub))


if __name__ == "__main__":
    main()
