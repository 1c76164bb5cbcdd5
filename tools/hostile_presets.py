"""Every hostile preset and Hugging Face checkpoint of ``tests/hostile_presets.py``, loaded by tfkit.hub and
(with ``--keras-hub``) by KerasHub, with the failures counted by class.

    python tools/hostile_presets.py                         # all cases, tfkit.hub, one process a case
    python tools/hostile_presets.py --keras-hub             # and KerasHub 0.32 beside it, the same way
    python tools/hostile_presets.py --one-process gpt2 bert # faster: one process (a new one after a crash)

Needs the test extra (KerasHub makes the clean presets). Each case is judged by ``hostile_presets.judge``:
refused with a ``ValueError`` naming the preset, within the time limit and the memory bound, running no code,
reading and writing nothing outside its folder, opening no connection and changing no global setting; a clean
control must load. Prints a table of failures by class, then each failure; ``--json`` writes every record.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

from hostile_presets import FAILURE_CLASSES, FAMILIES, Listener, build_corpus, judge, make_clean, run_cases  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("families", nargs="*", help=f"families to use (default all: {', '.join(FAMILIES)})")
    parser.add_argument("--keras-hub", action="store_true", help="also load every case with KerasHub")
    parser.add_argument("--one-process", action="store_true", help="one loading process (a new one after a crash)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a case may take (default 60)")
    parser.add_argument("--workdir", type=Path, help="where the presets are written (default: a new temporary folder)")
    parser.add_argument("--json", type=Path, help="write every case's records here")
    args = parser.parse_args(argv)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="tfkit-hostile-presets-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"presets in {root}", flush=True)
    clean = make_clean(root)
    libraries = ["tfkit"] + (["keras_hub"] if args.keras_hub else [])
    failures: dict[str, dict[str, str | None]] = {}
    with Listener(root) as listener:
        cases = build_corpus(root, clean, listener.port, families=tuple(args.families))
        print(f"{len(cases)} cases ({sum(1 for c in cases if not c['tries'])} clean controls)", flush=True)
        records = {}
        for library in libraries:
            records[library] = run_cases(cases, root, library, args.timeout, one_process=args.one_process)
            failures[library] = {c["name"]: judge(c, records[library].get(c["name"])) for c in cases}
    print(f"\n{'failure class':18}" + "".join(f"{library:>12}" for library in libraries))
    for failure_class in FAILURE_CLASSES:
        counts = [sum(1 for f in failures[library].values() if f == failure_class) for library in libraries]
        print(f"{failure_class:18}" + "".join(f"{count:>12}" for count in counts))
    held = [sum(1 for f in failures[library].values() if f is None) for library in libraries]
    print(f"{'held':18}" + "".join(f"{count:>12}" for count in held))
    for library in libraries:
        for name, failure in failures[library].items():
            if failure:
                record = records[library].get(name) or {}
                print(f"{library}: {failure}: {name}: {record.get('status')}: {str(record.get('message', ''))[:300]}")
    if args.json:
        args.json.write_text(json.dumps({"cases": cases, "records": records, "failures": failures}, indent=1))
    return 1 if any(failures["tfkit"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
