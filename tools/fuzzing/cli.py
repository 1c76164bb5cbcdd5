"""Command line of ``tools/fuzz.py``.

python tools/fuzz.py list                           # the targets and what each reads
python tools/fuzz.py run pickle --seconds 1800      # one campaign; `run all` runs each in turn
python tools/fuzz.py replay all                     # committed seeds and regressions, no atheris
python tools/fuzz.py coverage pickle                # line coverage of the reader over all corpora
python tools/fuzz.py seeds all                      # rewrite the committed seed corpora
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from fuzzing import corpus, engine, replay
from fuzzing.target import get, names


def _targets(chosen: list[str]) -> list[str]:
    return names() if chosen in ([], ["all"]) else chosen


def _campaign_inputs(workdir: Path, name: str) -> list[Path]:
    extra = workdir / name / "corpus"
    return corpus.committed_inputs(name) + (sorted(p for p in extra.iterdir() if p.is_file()) if extra.is_dir() else [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tools/fuzz.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=("list", "run", "replay", "coverage", "seeds"))
    parser.add_argument("targets", nargs="*", help="target names, or 'all' (the default)")
    parser.add_argument("--seconds", type=float, default=60.0, help="fuzzing time per target (run)")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=corpus.DEFAULT_WORKDIR,
        help="campaign corpora, crashes and logs (default %(default)s)",
    )
    parser.add_argument("--rss-limit-mb", type=int, default=engine.DEFAULT_RSS_LIMIT_MB)
    args = parser.parse_args(argv)
    for name in args.targets:
        if name != "all":
            get(name)  # an unknown name is refused before anything runs
    failed = False
    for name in _targets(args.targets):
        target = get(name)
        if args.command == "list":
            print(f"{name:18} {target.reader}")
        elif args.command == "seeds":
            folder = corpus.seeds_dir(name)
            shutil.rmtree(folder, ignore_errors=True)
            print(f"{name}: {target.seeds(folder)} seeds in {folder.relative_to(corpus.REPO)}")
        elif args.command == "replay":
            problems = replay.replay(target, _campaign_inputs(args.workdir, name))
            print(json.dumps({"target": name, "problems": problems}))
            failed |= bool(problems)
        elif args.command == "coverage":
            inputs = _campaign_inputs(args.workdir, name)
            print(json.dumps({"target": name, "inputs": len(inputs), **replay.line_coverage(name, inputs)}))
        else:
            summary = engine.run(target, args.seconds, args.workdir, args.rss_limit_mb)
            print(json.dumps(summary, indent=None if not summary["finding"] else 1), flush=True)
            failed |= summary["exit_code"] != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
