"""Start a cluster of worker processes on loopback ports, wait with a time limit, stop every process.

    results = run_cluster(["python", "worker.py", "mode"], workers=2, timeout=120)
    assert all(r.returncode == 0 for r in results)

Each process gets a ``TF_CONFIG`` naming all workers at ``127.0.0.1:<free port>``
and its own task index. When one process dies of a signal (a test's
simulated crash), the others get ``grace`` seconds to notice and are then
killed, as a cluster manager would; after ``timeout`` (a quiet machine's
seconds, stretched by the machine's load: ``tests/time_limits.py``) every
process still running is killed. Nothing started here outlives the call.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass

import time_limits


@dataclass
class Finished:
    index: int
    returncode: int
    stdout: str
    stderr: str


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def run_cluster(
    command: list[str], workers: int = 2, timeout: float = 120, grace: float = 10, env: dict[str, str] | None = None
) -> list[Finished]:
    addresses = [f"127.0.0.1:{port}" for port in free_ports(workers)]
    processes, outputs = [], []
    try:
        for index in range(workers):
            config = {"cluster": {"worker": addresses}, "task": {"type": "worker", "index": index}}
            process_env = dict(os.environ, **(env or {}), TF_CONFIG=json.dumps(config), TF_CPP_MIN_LOG_LEVEL="3")
            # Files, not pipes: a chatty worker can never block on a full pipe.
            out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
            outputs.append((out, err))
            processes.append(subprocess.Popen(command, env=process_env, stdout=out, stderr=err, text=True))
        deadline, killed_at = time_limits.Deadline(timeout), None
        while not deadline.passed() and any(p.poll() is None for p in processes):
            if killed_at is None and any(p.poll() is not None and p.returncode < 0 for p in processes):
                killed_at = time.monotonic()  # a worker was killed
            if killed_at is not None and time.monotonic() > killed_at + grace:
                break
            time.sleep(0.1)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        results = []
        for index, (process, (out, err)) in enumerate(zip(processes, outputs)):
            process.wait()
            out.seek(0)
            err.seek(0)
            results.append(Finished(index, process.returncode, out.read(), err.read()))
            out.close()
            err.close()
    return results
