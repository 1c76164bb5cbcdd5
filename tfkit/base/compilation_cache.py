"""XLA's persistent compilation cache: compiled programs kept on disk, so a new process need not compile them again.

    tfkit.config.enable_compilation_cache("~/.cache/tfkit-xla")   # first thing after `import tfkit`

TensorFlow reads ``--tf_xla_persistent_cache_directory`` from ``TF_XLA_FLAGS``
once, at its first XLA compilation; each program it compiles is then written
there, and a later process compiling the same program (the same model, shapes
and flags) loads it instead. For GPT-2 124M's ``generate`` on a 2-core CPU the
first call's compiling went from 2.1 s to 1.0 s (the tracing before it, 1.1 s,
is Python and is not cached); ``docs/guides/pretrained_models.md`` has the
figures. JAX users know this as ``jax_compilation_cache_dir``.

A cached program is machine code that the process runs, so the directory must
be the user's own: this refuses one owned by another user or writable by
others (tfkit never runs code from a file it did not make for you).
"""

from __future__ import annotations

import os
import re
import stat

FLAG = "--tf_xla_persistent_cache_directory"


def enable_compilation_cache(directory: str | os.PathLike) -> str:
    """Keeps XLA's compiled programs in `directory`, so later processes load them instead of compiling.

    Call it before anything is compiled (right after `import tfkit`):
    TensorFlow reads the setting at its first XLA compilation and never
    again. It sets `TF_XLA_FLAGS` for this process and the processes it
    starts. Only programs compiled with XLA are cached (`generate`, and
    `fit` with `jit_compile`); tracing Python into a graph is not. Not in
    Keras (JAX's `jax_compilation_cache_dir` is the counterpart).

    Args:
        directory: The folder to keep the programs in; made (private to the
            user) if missing. `~` is expanded.

    Returns:
        The folder's absolute path.

    Raises:
        ValueError: If the folder is owned by another user or writable by
            other users (a program written there by someone else would run
            as machine code in this process), or if `TF_XLA_FLAGS` already
            names another cache folder.

    Example:
        >>> import os, tempfile, tfkit
        >>> before = os.environ.get("TF_XLA_FLAGS")
        >>> folder = tfkit.config.enable_compilation_cache(tempfile.mkdtemp())
        >>> os.environ["TF_XLA_FLAGS"].endswith("--tf_xla_persistent_cache_directory=" + folder)
        True
        >>> if before is None:  # leave the environment as it was
        ...     del os.environ["TF_XLA_FLAGS"]
        ... else:
        ...     os.environ["TF_XLA_FLAGS"] = before
    """
    path = os.path.abspath(os.path.expanduser(os.fspath(directory)))
    os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.stat(path)
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise ValueError(
            f"enable_compilation_cache: {path!r} is owned by another user (uid {info.st_uid}); its programs would "
            "run as machine code in this process. Use a folder of your own"
        )
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ValueError(
            f"enable_compilation_cache: {path!r} is writable by other users (mode {stat.filemode(info.st_mode)}); a "
            "program written there by someone else would run in this process. Use a folder only you can write "
            f"(chmod go-w {path})"
        )
    flags = os.environ.get("TF_XLA_FLAGS", "")
    named = re.search(re.escape(FLAG) + r"=(\S+)", flags)
    if named and os.path.abspath(named.group(1)) != path:
        raise ValueError(
            f"enable_compilation_cache: TF_XLA_FLAGS already names the cache folder {named.group(1)!r}; got {path!r}"
        )
    if not named:
        os.environ["TF_XLA_FLAGS"] = f"{flags} {FLAG}={path}".strip()
    return path
