"""Run inputs through a target without atheris: the suite's regression check, and line coverage.

problems = replay(get("pickle"), corpus.committed_inputs("pickle"))   # [] when every input is fine
line_coverage("pickle", inputs)     # {"files": {"tfkit/datasets/pickle_data.py": [covered, statements, "12-14, 80"]}}
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any, Iterable

from fuzzing.corpus import REPO
from fuzzing.target import Target, get, module_file, warm_up

TOOLS = Path(__file__).resolve().parents[1]


def replay(target: Target, inputs: Iterable[Path]) -> list[str]:
    """Each input through ``Target.check``; the problems found, as ``"<file>: <error>"`` lines."""
    warm_up(target)
    problems = []
    for path in inputs:
        try:
            target.check(path.read_bytes())
        except Exception as error:  # noqa: BLE001  (every exception but ValueError is a finding)
            where = traceback.extract_tb(error.__traceback__)[-1]
            problems.append(
                f"{path.name}: {type(error).__name__}: {str(error)[:400]} [{Path(where.filename).name}:{where.lineno}]"
            )
    return problems


def _short(file: str) -> str:
    path = Path(file).resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name


def line_coverage(name: str, inputs: Iterable[Path]) -> dict[str, Any]:
    """Statements of each reader module that the inputs run, measured by coverage.py in a fresh process.

    Returns ``{"files": {module file: [covered, statements, missing lines]}, "problems": [...]}``; the process starts
    coverage before the reader modules are imported, so their module-level statements count as run.
    """
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as listing:
        json.dump([str(p) for p in inputs], listing)
    try:
        env = dict(
            os.environ,
            TF_CPP_MIN_LOG_LEVEL="3",
            PYTHONPATH=os.pathsep.join(
                [str(TOOLS)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
            ),
        )
        done = subprocess.run(
            [sys.executable, "-m", "fuzzing.replay", name, listing.name],
            env=env,
            capture_output=True,
            text=True,
            timeout=3600,
        )
    finally:
        os.remove(listing.name)
    if done.returncode != 0:
        raise RuntimeError(f"coverage of {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _coverage_child(name: str, listing: str) -> None:
    import coverage

    target = get(name)
    files = [module_file(module) for module in target.modules]
    measure = coverage.Coverage(include=files, data_file=None)
    measure.start()
    try:
        problems = replay(target, [Path(p) for p in json.loads(Path(listing).read_text())])
    finally:
        measure.stop()
    report = {}
    for file in files:
        _, statements, _, missing, missing_text = measure.analysis2(file)
        report[_short(file)] = [len(statements) - len(missing), len(statements), missing_text]
    print(json.dumps({"files": report, "problems": problems}))


if __name__ == "__main__":
    _coverage_child(sys.argv[1], sys.argv[2])
