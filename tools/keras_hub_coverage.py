"""How much of KerasHub's public API ``tfkit.hub`` has: one row per public name of ``keras_hub``.

    python tools/keras_hub_coverage.py                      # a summary table on stdout
    python tools/keras_hub_coverage.py --markdown docs/KERAS_HUB_COVERAGE.md
    python tools/keras_hub_coverage.py --snapshot           # rewrite the export table from the installed keras_hub

KerasHub's export table (every public name of ``keras_hub`` and its namespaces,
with the module that defines it) is kept in ``tools/keras_hub_names.json``, taken
from the installed ``keras_hub`` by ``--snapshot``, so the census and its test do
not change when a newer KerasHub is installed. Each name is then one of:

- **present**: ``tfkit.hub`` has the same name under the same path;
- **not yet built**: its model family, or its kind of task, is not in ``tfkit.hub``
  yet (``FAMILIES_NOT_BUILT`` and ``KINDS_NOT_BUILT`` say which issue plans it);
- **left out**: on purpose, with the reason (``LEFT_OUT``).

A name that is none of these is *unlisted*, and ``tests/test_hub_coverage.py``
fails on it. Presence is what this counts; behaviour is checked by the tests.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pathlib
import sys
import types
from collections import Counter

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

SNAPSHOT = pathlib.Path(__file__).with_name("keras_hub_names.json")
# keras_hub's namespaces, in the order the census reports them ("" is keras_hub itself).
NAMESPACES = ["", "models", "tokenizers", "layers", "samplers", "metrics", "utils", "vllm"]

ISSUE_67 = "issue 67 (performance round seven: speculative decoding)"
NO_ISSUE = "no issue plans it yet"

# keras_hub.src.models.<family> -> which issue plans the family, for families tfkit.hub has not built.
FAMILIES_NOT_BUILT = {
    **dict.fromkeys(
        [
            "basnet",
            "blip2",
            "cspnet",
            "d_fine",
            "deeplab_v3",
            "densenet",
            "depth_anything",
            "dinov3",
            "edrec",
            "esm",
            "flux",
            "gemma3n",
            "gemma4",
            "hgnetv2",
            "metaclip_2",
            "mit",
            "mobilenetv5",
            "parseq",
            "qwen3_5",
            "qwen3_5_moe",
            "retinanet",
            "roformer_v2",
            "rwkv7",
            "sam",
            "sam3",
            "segformer",
            "stable_diffusion_3",
            "t5gemma2",
            "vgg",
            "video_prism",
            "vit_det",
            "xception",
            "xlnet",
        ],
        NO_ISSUE,
    )
}

# Names outside a family folder (or inside a built family) whose kind of model tfkit.hub has not built.
_VISION_KINDS = "object detection, segmentation, depth and diffusion: none of their families is built; " + NO_ISSUE
KINDS_NOT_BUILT = {
    "samplers.SpeculativeSampler": ISSUE_67,
    "models.MistralTekkenTokenizer": "Mistral's Tekken tokenizer (a tiktoken-style byte-pair file, Mistral Nemo and "
    f"later); {NO_ISSUE}",
    "tokenizers.MistralTekkenTokenizer": "Mistral's Tekken tokenizer (a tiktoken-style byte-pair file, Mistral Nemo "
    f"and later); {NO_ISSUE}",
    **dict.fromkeys(
        [
            "models.DepthEstimator",
            "models.DepthEstimatorPreprocessor",
            "models.FeaturePyramidBackbone",
            "models.ImageObjectDetector",
            "models.ImageObjectDetectorPreprocessor",
            "models.ImageSegmenter",
            "models.ImageSegmenterPreprocessor",
            "models.ImageToImage",
            "models.Inpaint",
            "models.ObjectDetector",
            "models.ObjectDetectorPreprocessor",
            "models.TextToImage",
            "models.TextToImagePreprocessor",
            "layers.AnchorGenerator",
            "layers.BoxMatcher",
            "layers.NonMaxSuppression",
            "layers.VideoConverter",
        ],
        _VISION_KINDS,
    ),
}

# name -> why tfkit.hub leaves it out on purpose.
LEFT_OUT = {
    "upload_preset": "uploads a preset folder to Kaggle or the Hugging Face Hub through their client libraries "
    "(kagglehub, huggingface_hub), network clients tfkit does not depend on; save_to_preset writes the folder, "
    "and those clients upload it as it is",
    "vllm.KerasHubLLM": "registers KerasHub models with vLLM, a PyTorch serving engine; tfkit serves through "
    "TensorFlow Serving (export)",
}


def snapshot() -> dict:
    """The export table of the installed ``keras_hub``: its version and every public name's defining module."""
    import keras_hub

    names = []
    for namespace in NAMESPACES:
        module = keras_hub if not namespace else getattr(keras_hub, namespace)
        for name in sorted(n for n in dir(module) if not n.startswith("_")):
            value = getattr(module, name)
            if isinstance(value, types.ModuleType):
                continue
            full = f"{namespace}.{name}" if namespace else name
            kind = "class" if isinstance(value, type) else "function" if callable(value) else "value"
            names.append({"name": full, "module": getattr(value, "__module__", "") or "", "kind": kind})
    return {"keras_hub_version": keras_hub.__version__, "names": names}


def load_snapshot(path: pathlib.Path = SNAPSHOT) -> dict:
    """Reads the export table ``--snapshot`` wrote."""
    return json.loads(path.read_text())


def _family(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 4 and parts[:3] == ["keras_hub", "src", "models"]:
        return parts[3]
    return None


def _lookup(root: types.ModuleType, full: str) -> object | None:
    obj: object | None = root
    for part in full.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def classify(entry: dict, hub: types.ModuleType) -> tuple[str, str]:
    """One name's status (``present``, ``not yet built``, ``left out`` or ``unlisted``) and its reason."""
    name = entry["name"]
    if name in LEFT_OUT:
        return "left out", LEFT_OUT[name]
    if _lookup(hub, name) is not None:
        return "present", ""
    if name in KINDS_NOT_BUILT:
        return "not yet built", KINDS_NOT_BUILT[name]
    family = _family(entry["module"])
    if family in FAMILIES_NOT_BUILT:
        return "not yet built", f"family `{family}`: {FAMILIES_NOT_BUILT[family]}"
    return "unlisted", ""


def coverage(table: dict | None = None) -> list[dict]:
    """Every name of the export table with its status and reason, in the table's order."""
    hub = importlib.import_module("tfkit.hub")
    table = table or load_snapshot()
    rows = []
    for entry in table["names"]:
        status, reason = classify(entry, hub)
        rows.append({**entry, "status": status, "reason": reason})
    return rows


def _namespace(name: str) -> str:
    namespace = name.rpartition(".")[0]
    return f"keras_hub.{namespace}" if namespace else "keras_hub"


def _markdown(rows: list[dict], version: str) -> str:
    counts = Counter(r["status"] for r in rows)
    lines = [
        "# KerasHub API coverage",
        "",
        f"Generated by `python tools/keras_hub_coverage.py --markdown docs/KERAS_HUB_COVERAGE.md` from KerasHub "
        f"{version}'s export table (`tools/keras_hub_names.json`): a public name counts as present when `tfkit.hub` "
        "has the same name under the same path (`keras_hub.models.GPT2Backbone` as `tfkit.hub.models.GPT2Backbone`). "
        "Behaviour is checked by the tests, not here.",
        "",
        f"**{counts['present']} of {len(rows)} public names present**; {counts['not yet built']} belong to a family "
        f"or a kind of model not built yet, {counts['left out']} are left out on purpose"
        + (f", {counts['unlisted']} are unlisted." if counts["unlisted"] else "."),
        "",
        "| namespace | names | present | not yet built | left out |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    by_namespace: dict[str, Counter] = {}
    for r in rows:
        by_namespace.setdefault(_namespace(r["name"]), Counter())[r["status"]] += 1
    for namespace, c in by_namespace.items():
        total = sum(c.values())
        lines.append(f"| `{namespace}` | {total} | {c['present']} | {c['not yet built']} | {c['left out']} |")
    lines += ["", "## Left out on purpose", ""]
    lines += [f"- `keras_hub.{r['name']}`: {r['reason']}" for r in rows if r["status"] == "left out"]
    lines += ["", "## Not yet built", "", "| name | why |", "| --- | --- |"]
    lines += [f"| `keras_hub.{r['name']}` | {r['reason']} |" for r in rows if r["status"] == "not yet built"]
    lines += ["", "## Present", ""]
    for namespace in by_namespace:
        present = [
            r["name"].rpartition(".")[2]
            for r in rows
            if r["status"] == "present" and _namespace(r["name"]) == namespace
        ]
        if present:
            lines.append(f"- `{namespace}`: " + ", ".join(f"`{n}`" for n in present))
    unlisted = [r["name"] for r in rows if r["status"] == "unlisted"]
    if unlisted:
        lines += ["", "## Unlisted (tests/test_hub_coverage.py fails on these)", ""]
        lines += [f"- `keras_hub.{n}`" for n in unlisted]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", metavar="FILE", help="write the full census to FILE")
    parser.add_argument("--snapshot", action="store_true", help="rewrite the export table from the installed keras_hub")
    args = parser.parse_args(argv)
    if args.snapshot:
        os.environ.setdefault("KERAS_BACKEND", "tensorflow")
        SNAPSHOT.write_text(json.dumps(snapshot(), indent=1) + "\n")
    table = load_snapshot()
    rows = coverage(table)
    if args.markdown:
        pathlib.Path(args.markdown).write_text(_markdown(rows, table["keras_hub_version"]))
    counts = Counter(r["status"] for r in rows)
    print(f"KerasHub {table['keras_hub_version']}: {len(rows)} public names")
    for status in ("present", "not yet built", "left out", "unlisted"):
        print(f"  {status:<14} {counts[status]:4d}")
    for r in rows:
        if r["status"] == "unlisted":
            print(f"  unlisted: keras_hub.{r['name']} ({r['module']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
