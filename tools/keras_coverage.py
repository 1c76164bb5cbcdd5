"""How much of Keras 3's public API tfkit has: per namespace, the names present and missing.

    python tools/keras_coverage.py                      # a summary table on stdout
    python tools/keras_coverage.py --markdown docs/KERAS_COVERAGE.md
    python tools/keras_coverage.py --missing layers     # the names keras.layers has and tfkit.layers lacks
    python tools/keras_coverage.py --arguments layers   # present names lacking an argument Keras accepts

Walks the public namespaces of the installed Keras 3 (``keras.layers``,
``keras.ops.image``, ...) and looks each name up under the same path in tfkit.
Names that exist only for another backend (JAX, PyTorch) or for Keras's own
internals are listed as excluded, with the reason, instead of missing.
Presence is what this counts; behaviour is checked by the test suite.
"""

from __future__ import annotations

import argparse
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its sibling, also when loaded by path
from keras_signatures import EXCLUDED_ARGUMENTS, argument_gaps  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

# Namespaces walked (their public names; sub-namespaces are walked as their own rows).
NAMESPACES = [
    "",
    "activations",
    "applications",
    "backend",
    "callbacks",
    "config",
    "constraints",
    "datasets",
    "distribution",
    "dtype_policies",
    "export",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "mixed_precision",
    "models",
    "ops",
    "ops.image",
    "ops.linalg",
    "ops.nn",
    "ops.numpy",
    "optimizers",
    "optimizers.schedules",
    "preprocessing",
    "preprocessing.image",
    "preprocessing.sequence",
    "quantizers",
    "random",
    "regularizers",
    "saving",
    "tree",
    "utils",
    "visualization",
    "wrappers",
]

# name or namespace -> why tfkit leaves it out
EXCLUDED = {
    "layers.JaxLayer": "wraps JAX functions: JAX backend only",
    "layers.FlaxLayer": "wraps Flax modules: JAX backend only",
    "layers.TorchModuleWrapper": "wraps torch.nn.Module: PyTorch backend only",
    "utils.TorchModuleWrapper": "PyTorch backend only",
    "StatelessScope": "JAX-style stateless execution; TensorFlow variables are stateful",
    "backend.result_type": "covered by tfkit.ops.result_type",
    "src": "Keras's internal package, not public API",
    "legacy": "tf-keras compatibility shims inside Keras",
    "Operation": "Keras's base class of its backend-neutral ops; tfkit's ops are TensorFlow functions (tfkit.ops)",
    "Function": "Keras's graph-of-Operations callable; tfkit builds functional graphs of layers (tfkit.Functional)",
    "SymbolicScope": "Keras's marker for symbolic tracing of its Operations; tfkit traces with tf.function",
    "RematScope": "per-layer rematerialization modes need Layer.__call__ support; tfkit offers tfkit.remat "
    "(tf.recompute_grad) for functions",
    "config.is_nnx_enabled": "JAX only (Flax NNX integration)",
    "callbacks.OrbaxCheckpoint": "writes Orbax checkpoint trees through the orbax-checkpoint package, which is built "
    "on JAX; tfkit checkpoints with ModelCheckpoint and BackupAndRestore "
    "(TensorFlow checkpoints, .h5)",
}


def _public_names(module: types.ModuleType) -> list[str]:
    return sorted(n for n in dir(module) if not n.startswith("_"))


def _lookup(root: types.ModuleType, path: str) -> object | None:
    obj: object | None = root
    for part in [p for p in path.split(".") if p]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _excluded(namespace: str, name: str) -> str | None:
    full = f"{namespace}.{name}" if namespace else name
    for key in (full, namespace, name if not namespace else None):
        if key and key in EXCLUDED:
            return EXCLUDED[key]
    return None


def coverage() -> list[dict]:
    import keras

    import tfkit

    rows = []
    for namespace in NAMESPACES:
        if namespace in EXCLUDED:
            continue
        theirs = _lookup(keras, namespace)
        if not isinstance(theirs, types.ModuleType):
            continue
        ours = _lookup(tfkit, namespace)
        present, missing, excluded, gaps = [], [], [], []
        for name in _public_names(theirs):
            value = getattr(theirs, name)
            if isinstance(value, types.ModuleType) and (
                f"{namespace}.{name}".lstrip(".") in NAMESPACES or name in EXCLUDED
            ):
                continue  # a sub-namespace: its own row
            reason = _excluded(namespace, name)
            if reason:
                excluded.append((name, reason))
            elif ours is not None and hasattr(ours, name):
                present.append(name)
                arguments = argument_gaps(value, getattr(ours, name), f"{namespace}.{name}".lstrip("."))
                if arguments:
                    gaps.append((name, arguments))
            else:
                missing.append(name)
        rows.append(
            {
                "namespace": f"keras.{namespace}".rstrip("."),
                "present": present,
                "missing": missing,
                "excluded": excluded,
                "argument_gaps": gaps,
            }
        )
    return rows


def _gap_count(rows: list[dict]) -> int:
    return sum(len(r["argument_gaps"]) for r in rows)


def _markdown(rows: list[dict], keras_version: str) -> str:
    total_present = sum(len(r["present"]) for r in rows)
    total = total_present + sum(len(r["missing"]) for r in rows)
    lines = [
        "# Keras 3 API coverage",
        "",
        f"Generated by `python tools/keras_coverage.py --markdown docs/KERAS_COVERAGE.md` against Keras "
        f"{keras_version}: a public name counts as present when tfkit has the same name under the same path. "
        f"Behaviour is checked by the tests, not here.",
        "",
        f"**{total_present} of {total} public names present ({100 * total_present / max(total, 1):.0f}%).** "
        f"Of the present names, {_gap_count(rows)} lack an argument Keras accepts (listed below).",
        "",
        "| namespace | present | missing | present, lacking arguments |",
        "| --- | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(f"| `{r['namespace']}` | {len(r['present'])} | {len(r['missing'])} | {len(r['argument_gaps'])} |")
    lines += ["", "## Missing names", ""]
    for r in rows:
        if r["missing"]:
            lines.append(f"- `{r['namespace']}`: " + ", ".join(f"`{n}`" for n in r["missing"]))
    lines += [
        "",
        "## Arguments Keras accepts that tfkit lacks",
        "",
        "For a class its constructor, for a function its parameters; an argument counts as accepted when a "
        "tfkit signature names it (tools/keras_signatures.py).",
        "",
    ]
    for r in rows:
        for name, arguments in r["argument_gaps"]:
            lines.append(f"- `{r['namespace']}.{name}`: " + ", ".join(f"`{a}`" for a in arguments))
    lines += ["", "## Excluded on purpose", ""]
    seen = set()
    for r in rows:
        for name, reason in r["excluded"]:
            if (name, reason) not in seen:
                seen.add((name, reason))
                lines.append(f"- `{r['namespace']}.{name}`: {reason}")
    for key, reason in EXCLUDED.items():
        if key in ("src", "legacy"):
            lines.append(f"- `keras.{key}`: {reason}")
    for key, reason in EXCLUDED_ARGUMENTS.items():
        lines.append(f"- argument `keras.{key}`: {reason}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", metavar="FILE", help="write the full table and the missing names to FILE")
    parser.add_argument("--missing", metavar="NAMESPACE", help="print the names missing under keras.NAMESPACE")
    parser.add_argument(
        "--arguments",
        metavar="NAMESPACE",
        help="print the present names under keras.NAMESPACE that lack an argument Keras accepts",
    )
    args = parser.parse_args(argv)
    import keras

    rows = coverage()
    if args.missing is not None:
        wanted = f"keras.{args.missing}".rstrip(".")
        for r in rows:
            if r["namespace"] == wanted:
                print("\n".join(r["missing"]))
        return 0
    if args.arguments is not None:
        wanted = f"keras.{args.arguments}".rstrip(".")
        for r in rows:
            if r["namespace"] == wanted:
                print("\n".join(f"{name}: {', '.join(arguments)}" for name, arguments in r["argument_gaps"]))
        return 0
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(_markdown(rows, keras.__version__))
    width = max(len(r["namespace"]) for r in rows)
    for r in rows:
        print(f"{r['namespace']:<{width}}  {len(r['present']):4d} present  {len(r['missing']):4d} missing")
    present = sum(len(r["present"]) for r in rows)
    missing = sum(len(r["missing"]) for r in rows)
    print(
        f"{'total':<{width}}  {present:4d} present  {missing:4d} missing  ({100 * present / (present + missing):.0f}%)"
    )
    print(f"present names lacking an argument Keras accepts: {_gap_count(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
