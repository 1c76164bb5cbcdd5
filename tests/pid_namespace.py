"""Run a test's helper process in a PID namespace of its own, where it cannot see the test's process ids.

    prefix = pid_namespace_prefix()        # ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"], or None where not permitted
    subprocess.Popen([*(prefix or []), sys.executable, "-c", CODE])

Two containers sharing a volume see each other's files but not each other's
processes: this is how a test puts a saver and a reader in that situation.
"""

import functools
import shutil
import subprocess


@functools.lru_cache(maxsize=None)
def pid_namespace_prefix():
    """The command prefix that starts a process in a new PID namespace, or None where this machine refuses it."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    command = [unshare, "--pid", "--fork", "--mount-proc", "--kill-child"]  # the child dies with unshare
    try:
        probe = subprocess.run([*command, "sh", "-c", "echo $$"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return command if probe.returncode == 0 and probe.stdout.strip() == "1" else None
