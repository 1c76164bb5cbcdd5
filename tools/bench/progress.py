"""A long run that survives being stopped: ``--resume FILE`` keeps each measurement as it ends.

    python tools/bench.py --repeats 3 --resume run.json      # stopped after two hours
    python tools/bench.py --repeats 3 --resume run.json      # the same code and options: goes on from there
    python tools/bench.py --from-json run.json               # once finished, the file renders like --json's

A full run (every workload and peer, three repeats, the in-process pairs, the
start-up pairs and the serving latency) takes about five hours on a 2-core
machine, longer than one sitting. The file is rewritten (atomically) after every
measurement, in-process case and section, and a run given the same file skips
what it holds. It also holds what was measured: the run's options and a
fingerprint of the code (the contents of every ``.py`` file under ``tfkit/``,
``tools/`` and ``examples/``) and of the installed versions; a resume with other
code, versions or options is refused with what differs, so one report never
mixes two versions of tfkit.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
from typing import Any

CODE_DIRECTORIES = ("tfkit", "tools", "examples")


def code_fingerprint(repo_root: pathlib.Path) -> str:
    """SHA-256 (first 16 hex digits) of every ``.py`` file under ``CODE_DIRECTORIES``, by path and content."""
    digest = hashlib.sha256()
    for directory in CODE_DIRECTORIES:
        for path in sorted((repo_root / directory).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            digest.update(path.relative_to(repo_root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


class Progress:
    """The saved part of a run: its records, in-process cases and sections, with what they measured.

    ``identity`` is what must match to go on: the options, the code fingerprint, the versions.
    With ``path`` None (a run without ``--resume``) it keeps nothing on disk.
    """

    def __init__(self, path: pathlib.Path | None, identity: dict[str, Any]) -> None:
        self.path = path
        self.identity = identity
        self.records: list[dict[str, Any]] = []
        self.sections: dict[str, Any] = {}
        self.in_process: dict[str, Any] = {}
        self.seconds_before = 0.0  # wall time of the earlier sittings
        self.sittings_before = 0
        self._measured = False  # whether this sitting measured anything
        self.context: dict[str, Any] | None = None

    @classmethod
    def open(cls, path: str | os.PathLike, identity: dict[str, Any]) -> "Progress":
        """The progress in ``path`` (a new one when the file does not exist yet).

        Raises:
            SystemExit: the file is not a run's progress, or it measured other code, versions or options.
        """
        progress = cls(pathlib.Path(path), identity)
        if not progress.path.exists():
            return progress
        try:
            saved = json.loads(progress.path.read_text())
            saved_identity = saved["progress"]["identity"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise SystemExit(f"--resume {path}: not the progress of a tools/bench.py run ({error!r})") from None
        differs = [
            key for key in sorted(set(identity) | set(saved_identity)) if identity.get(key) != saved_identity.get(key)
        ]
        if differs:
            detail = "; ".join(
                f"{key}: saved {saved_identity.get(key)!r}, now {identity.get(key)!r}" for key in differs
            )
            raise SystemExit(
                f"--resume {path}: the saved run measured something else ({detail}). "
                f"Start a new file, or run the code and options it was started with."
            )
        progress.records = list(saved.get("records", []))
        progress.sections = dict(saved["progress"].get("sections", {}))
        progress.in_process = dict(saved["progress"].get("in_process", {}))
        progress.seconds_before = float(saved["progress"].get("seconds", 0.0))
        progress.sittings_before = int(saved["progress"].get("sittings", 1))
        return progress

    @property
    def sittings(self) -> int:
        """How many sittings measured something, this one included when it did (or when it is the first)."""
        return self.sittings_before + (1 if self._measured or not self.sittings_before else 0)

    def record_for(self, repeat: int, case: str, runner: str) -> dict[str, Any] | None:
        """The saved record of one job of one repeat, if any."""
        for record in self.records:
            job = record["job"]
            if record["repeat"] == repeat and job["case"] == case and job["runner"] == runner:
                return record
        return None

    def add_record(self, record: dict[str, Any], seconds: float) -> None:
        self.records.append(record)
        self._measured = True
        self.save(seconds)

    def set_section(self, name: str, value: Any, seconds: float) -> None:
        self.sections[name] = value
        self._measured = True
        self.save(seconds)

    def set_in_process(self, case: str, result: Any, seconds: float) -> None:
        self.in_process[case] = result
        self._measured = True
        self.save(seconds)

    def finish(self, context: dict[str, Any], seconds: float) -> None:
        """Keep the finished run's context: the file then renders with ``--from-json``."""
        self.context = context
        self.save(seconds)

    def total_seconds(self, seconds: float) -> float:
        """Wall time of every sitting, this one having run ``seconds`` so far."""
        return self.seconds_before + seconds

    def save(self, seconds: float) -> None:
        if self.path is None:
            return
        data: dict[str, Any] = {
            "progress": {
                "identity": self.identity,
                "seconds": self.total_seconds(seconds),
                "sittings": self.sittings,
                "sections": self.sections,
                "in_process": self.in_process,
            },
            "records": self.records,
        }
        if self.context is not None:
            data["context"] = self.context
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps(data, indent=1))
        os.replace(partial, self.path)
