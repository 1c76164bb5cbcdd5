"""Read an untrusted tfkit HDF5 file in a short-lived child process, under limits.

    python -I h5_reader_child.py FILE '{"memory_bytes": ..., "cpu_seconds": ...}' '["/dev/shm/tfkit-h5-1.bin"]'

libhdf5 parses the file here, never in the caller's process: a hang, a
blow-up or a crash in the parser costs this process only. It sets its own
memory (address space) and CPU-time limits before opening the file, checks
the layout (plain groups and hard links, numeric datasets stored in this file,
built-in filters only, declared sizes backed by stored bytes, a total size
budget), reads every dataset (or, with ``"layout_only"`` in the limits, none: only their shapes and
dtypes), and writes plain data to stdout:

    b"TFKSNAP1" | 8-byte length | JSON header | raw bytes of each dataset, in header order

(the raw bytes go to the first data file the caller names that can hold them
all: the space is reserved with ``posix_fallocate`` before anything is read).

The header holds the root attributes (text or integers only), and for each
dataset its group, path, shape, numpy dtype, ``dtype`` and ``crc32`` attributes
and byte count; or ``{"error": "..."}`` when the file is refused, with ``"resource":
"space" | "files" | "memory"`` when it was the machine, not the file, that
fell short. This file is run as a
script and imports nothing of tfkit (nor TensorFlow): only h5py and numpy.

``--serve`` runs it as a zygote instead (``h5_reader_zygote``): it imports h5py and numpy once,
opens no file, and for each request packet on its socket (fd 0: ``{"path", "limits", "data_paths",
"timeout"}`` plus the write end of a pipe) forks a fresh child that sets the limits, reads the file
exactly as above and writes its result into that pipe; the zygote waits (killing the child at
``timeout`` seconds) and answers ``{"returncode": N}`` (negative: the signal) or ``{"timeout": true}``.
No file is ever parsed in the zygote, and no child is reused, so a hostile file costs one child.
"""

import errno
import json
import os
import resource
import struct
import sys

MAGIC = b"TFKSNAP1"
GROUPS = ("weights", "state", "optimizer", "training")  # tfkit's; a caller may name others (Keras's layouts)
# deflate, shuffle, fletcher32 and h5py's lzf: no filter plugin is ever loaded.
ALLOWED_FILTERS = {1: "deflate", 2: "shuffle", 3: "fletcher32", 32000: "lzf"}
CHECKSUM_ATTR = "crc32"  # tfkit's per-array CRC-32, passed on for the caller to verify


class Refused(Exception):
    """The file is not an intact tfkit file; the message says why."""


class SinkError(Exception):
    """Handing the arrays back failed (this process's own data file), not the file being read."""

    def __init__(self, message, kind):
        super().__init__(message)
        self.kind = kind


def _limit(kind, value):
    soft, hard = resource.getrlimit(kind)
    value = int(value)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, hard))


def _text_or_int(h5py, np, owner, name, max_text):
    """A scalar text or integer attribute, or {"unreadable": reason}."""
    try:
        attr = h5py.h5a.open(owner.id, name.encode("utf-8"))
        dtype, shape = attr.dtype, attr.shape
    except Exception as error:  # noqa: BLE001  any parser failure is a refusal
        return {"unreadable": f"{type(error).__name__}: {error}"}
    if shape not in ((), None):
        return {"unreadable": f"an array of shape {shape}, not a single value"}
    is_text = h5py.check_string_dtype(dtype) is not None or dtype.kind in "SU"
    if not is_text and dtype.kind not in "iu":
        return {"unreadable": f"dtype {dtype}, not text or an integer"}
    if is_text and dtype.kind == "S" and dtype.itemsize > max_text:
        return {"unreadable": f"text longer than {max_text} bytes"}
    try:
        value = owner.attrs[name]
    except Exception as error:  # noqa: BLE001
        return {"unreadable": f"{type(error).__name__}: {error}"}
    if not is_text:
        return int(value)
    if isinstance(value, bytes):
        if len(value) > max_text:
            return {"unreadable": f"text longer than {max_text} bytes"}
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"unreadable": "not UTF-8 text"}
    value = str(value)
    if len(value) > max_text:
        return {"unreadable": f"text longer than {max_text} bytes"}
    return value


def _keras_bfloat16(h5py, np, dataset):
    """Keras's bfloat16 arrays: 2-byte opaque elements tagged ``dtype="bfloat16"`` (read as their uint16 bits)."""
    dtype = dataset.dtype
    if dtype.kind != "V" or dtype.itemsize != 2 or dtype.fields is not None or dtype.subdtype is not None:
        return False
    return "dtype" in dataset.attrs and _text_or_int(h5py, np, dataset, "dtype", 64) == "bfloat16"


def _check_dataset(h5py, np, dataset, where, limits):
    dtype = dataset.dtype
    if _keras_bfloat16(h5py, np, dataset):
        dtype = np.dtype("uint16")
    elif (
        dtype.kind not in "biufc"
        or dtype.fields is not None
        or dtype.subdtype is not None
        or h5py.check_string_dtype(dtype) is not None
        or h5py.check_vlen_dtype(dtype) is not None
    ):
        what = "opaque bytes (a pickle?)" if dtype.kind == "V" and dtype.fields is None else f"dtype {dtype}"
        raise Refused(f"{where} holds {what}; tfkit weights are plain numeric arrays (no objects, strings or records)")
    if dataset.shape is None:
        raise Refused(f"{where} is an empty (null-shaped) dataset")
    if dataset.is_virtual:
        raise Refused(f"{where} is a virtual dataset (data in other files); tfkit reads data stored in this file only")
    if dataset.external:
        raise Refused(f"{where} stores its data in external files; refused")
    plist = dataset.id.get_create_plist()
    filters = [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]
    unknown = [code for code in filters if code not in ALLOWED_FILTERS]
    if unknown:
        raise Refused(f"{where} uses HDF5 filter(s) {unknown}; tfkit reads only {sorted(ALLOWED_FILTERS.values())}")
    declared = int(np.prod(dataset.shape, dtype=object)) * dtype.itemsize
    if declared > limits["max_total_bytes"]:
        raise Refused(
            f"{where} declares {declared} bytes (shape {dataset.shape}); the limit for this file is "
            f"{limits['max_total_bytes']} bytes"
        )
    stored = dataset.id.get_storage_size()
    if declared and not stored:
        raise Refused(f"{where} declares shape {dataset.shape} but holds no data")
    compressed = any(code in (1, 32000) for code in filters)
    if not compressed and stored < declared:
        raise Refused(f"{where} declares {declared} bytes (shape {dataset.shape}) but stores only {stored}; truncated")
    if compressed and declared > stored * limits["compression_ratio"]:
        raise Refused(
            f"{where} declares {declared} bytes (shape {dataset.shape}) from {stored} compressed bytes; "
            f"a ratio above {limits['compression_ratio']} is refused"
        )
    return declared


def _walk(h5py, np, f, group_name, limits, counters):
    """``[(path, dataset)]`` under ``/group_name``, checked but not read."""
    if group_name not in f:
        return []
    link = f.get(group_name, getlink=True)
    if not isinstance(link, h5py.HardLink) or not isinstance(f[group_name], h5py.Group):
        raise Refused(f"/{group_name} must be a plain group")
    found = []
    seen = set()
    stack = [(f[group_name], "")]
    while stack:
        group, prefix = stack.pop()
        key = h5py.h5o.get_info(group.id).addr
        if key in seen:
            raise Refused(f"/{group_name}/{prefix} is reachable twice (hard-link cycle or alias)")
        seen.add(key)
        for name in group:
            counters["entries"] += 1
            if counters["entries"] > limits["max_entries"]:
                raise Refused(f"the file has more than {limits['max_entries']} entries")
            path = f"{prefix}{name}"
            link = group.get(name, getlink=True)
            if not isinstance(link, h5py.HardLink):
                raise Refused(
                    f"/{group_name}/{path} is a {type(link).__name__}; tfkit files hold only plain groups "
                    f"and datasets (no soft or external links)"
                )
            item = group[name]
            if isinstance(item, h5py.Group):
                stack.append((item, path + "/"))
            elif isinstance(item, h5py.Dataset):
                counters["bytes"] += _check_dataset(h5py, np, item, f"/{group_name}/{path}", limits)
                if counters["bytes"] > limits["max_total_bytes"]:
                    raise Refused(f"the datasets declare more than {limits['max_total_bytes']} bytes in all")
                found.append((path, item))
            else:
                raise Refused(f"/{group_name}/{path} is a {type(item).__name__}, not a dataset")
    return sorted(found, key=lambda entry: entry[0])


def read(path, limits, data_paths=()):
    """``(header, [bytes, ...])`` for ``path``; raises ``Refused`` (or ``OSError``/``MemoryError``).

    Every dataset is checked first; then the arrays go to the first of ``data_paths`` (files the caller
    made, in /dev/shm, then its temporary folder) that can hold them all, with the space reserved before a
    byte is written, and ``header["data_file"]`` says which. If none has room, or none is given, the
    arrays come back as the returned byte strings (the caller reads them from this process's stdout).
    """
    import h5py  # here, not at the top: h5py and numpy load under the limits main() set first
    import numpy as np

    if not h5py.is_hdf5(path):
        raise Refused("not an HDF5 file")
    try:
        f = h5py.File(path, "r")
    except Exception as error:  # noqa: BLE001
        if resource_kind(error) is not None:
            raise
        raise Refused(f"a damaged HDF5 file (truncated or corrupt): {error}") from None
    with f:
        attrs = {}
        try:
            names = list(f.attrs)
        except Exception as error:  # noqa: BLE001
            raise Refused(f"its root attributes cannot be listed ({type(error).__name__}: {error})") from None
        if len(names) > 64:
            raise Refused(f"its root has {len(names)} attributes; a tfkit file has fewer than 16")
        for name in names:
            attrs[name] = _text_or_int(h5py, np, f, name, limits["max_text_bytes"])
        counters = {"entries": 0, "bytes": 0}
        groups = limits.get("groups") or GROUPS
        if groups == ["*"]:  # a Keras weights file: every top-level group is a layer's
            try:
                groups = sorted(name for name in f if isinstance(f.get(name, getlink=True), h5py.HardLink))
            except Exception as error:  # noqa: BLE001
                raise Refused(f"its top-level groups cannot be listed ({type(error).__name__}: {error})") from None
            if len(groups) > limits["max_entries"]:
                raise Refused(f"the file has more than {limits['max_entries']} top-level entries")
        found = [
            (group, relative, dataset)
            for group in groups
            for relative, dataset in _walk(h5py, np, f, group, limits, counters)
        ]
        if limits.get("layout_only"):  # shapes and dtypes, checked as above; no array is read
            return {"attrs": attrs, "datasets": [_layout_entry(h5py, np, *entry) for entry in found]}, []
        index, sink = _reserve(data_paths, counters["bytes"])
        datasets, blobs, offset = [], [], 0
        try:
            for group, relative, dataset in found:
                where = f"/{group}/{relative}"
                out = np.empty(dataset.shape, dtype=dataset.dtype)
                try:
                    if out.size:
                        dataset.read_direct(out)
                except Exception as error:  # noqa: BLE001
                    if resource_kind(error) is not None:
                        raise
                    raise Refused(f"{where} could not be read; the file is damaged ({error})") from None
                if out.dtype.kind == "V":  # checked: Keras's bfloat16, 2-byte opaque elements
                    out = out.view(np.uint16)
                dtype_attr = _text_or_int(h5py, np, dataset, "dtype", 64) if "dtype" in dataset.attrs else None
                crc = _text_or_int(h5py, np, dataset, CHECKSUM_ATTR, 64) if CHECKSUM_ATTR in dataset.attrs else None
                datasets.append(
                    {
                        "group": group,
                        "path": relative,
                        "shape": list(out.shape),
                        "dtype": out.dtype.str,
                        "dtype_attr": dtype_attr,
                        "crc32": crc,
                        "nbytes": int(out.nbytes),
                    }
                )
                if sink is not None:
                    offset = _write_all(
                        sink, memoryview(np.ascontiguousarray(out)).cast("B"), offset, data_paths[index]
                    )
                else:
                    blobs.append(np.ascontiguousarray(out).tobytes())
        finally:
            if sink is not None:
                os.close(sink)
    return {"attrs": attrs, "datasets": datasets, "data_file": index}, blobs


def _layout_entry(h5py, np, group, relative, dataset):
    """A dataset's group, path, shape, numpy dtype (Keras's bfloat16 as ``uint16``) and ``dtype`` attribute."""
    dtype = np.dtype("uint16") if _keras_bfloat16(h5py, np, dataset) else dataset.dtype
    dtype_attr = _text_or_int(h5py, np, dataset, "dtype", 64) if "dtype" in dataset.attrs else None
    return {
        "group": group,
        "path": relative,
        "shape": list(dataset.shape),
        "dtype": dtype.str,
        "dtype_attr": dtype_attr,
    }


def _write_all(fd, view, offset, data_path):
    """Write ``view`` at ``offset`` of the data file; the offset after it. ``SinkError`` if it fails."""
    try:
        done = 0
        while done < len(view):
            done += os.pwrite(fd, view[done:], offset + done)
    except OSError as error:
        raise SinkError(
            f"writing the arrays to {data_path} failed ({error.strerror or error})", resource_kind(error) or "io"
        ) from None
    return offset + done


def _reserve(data_paths, nbytes):
    """``(index, descriptor)`` of the first data file with ``nbytes`` reserved, or ``(None, None)``."""
    for index, data_path in enumerate(data_paths):
        try:
            fd = os.open(data_path, os.O_RDWR)
        except OSError:
            continue
        try:
            if nbytes:
                os.posix_fallocate(fd, 0, nbytes)
            return index, fd
        except OSError as error:
            if error.errno in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):  # no fallocate here: ask statvfs
                info = os.statvfs(data_path)
                if info.f_bavail * info.f_frsize >= nbytes:
                    return index, fd
        try:
            os.ftruncate(fd, 0)  # give back whatever part was reserved
        except OSError:
            pass
        os.close(fd)
    return None, None


# What a failure that is not the file's fault looks like, in Python's errors and in libhdf5's messages.
_RESOURCE_ERRNOS = {28: "space", 122: "space", 27: "space", 24: "files", 23: "files", 12: "memory"}
_RESOURCE_TEXT = (
    ("No space left", "space"),
    ("Disk quota", "space"),
    ("errno = 28", "space"),
    ("Too many open files", "files"),
    ("errno = 24", "files"),
    ("errno = 23", "files"),
    ("Cannot allocate memory", "memory"),
    ("errno = 12", "memory"),
    ("memory allocation failed", "memory"),
    ("unable to allocate", "memory"),
)


def resource_kind(error):
    """``"space"``, ``"files"`` or ``"memory"`` when ``error`` is the machine running short, else None."""
    if isinstance(error, MemoryError):
        return "memory"
    if isinstance(error, OSError) and error.errno in _RESOURCE_ERRNOS:
        return _RESOURCE_ERRNOS[error.errno]
    text = str(error)
    return next((kind for marker, kind in _RESOURCE_TEXT if marker in text), None)


def main(argv):
    path, limits = argv[1], json.loads(argv[2])
    data_paths = json.loads(argv[3]) if len(argv) > 3 else []
    _limit(resource.RLIMIT_AS, limits["memory_bytes"])
    _limit(resource.RLIMIT_CPU, limits["cpu_seconds"])
    _limit(resource.RLIMIT_CORE, 0)
    out = sys.stdout.buffer
    try:
        import h5py  # noqa: F401  under the limits set above, before the file is opened
        import numpy  # noqa: F401
    except Exception as error:  # noqa: BLE001  too little memory to map the libraries, a broken install
        reason = f"{type(error).__name__}: {str(error).strip().splitlines()[-1][:200]}"
        return _emit(
            out,
            {
                "error": f"the HDF5 reader could not start with its {limits['memory_bytes']} bytes of "
                f"memory ({reason}); the file itself was not read",
                "resource": "memory",
            },
            [],
        )
    try:
        header, blobs = read(path, limits, data_paths)
    except Refused as refusal:
        header, blobs = {"error": str(refusal)}, []
    except SinkError as error:
        header, blobs = {"error": str(error), "resource": error.kind}, []
    except Exception as error:  # noqa: BLE001  libhdf5/h5py fail in many ways on damaged files
        kind = resource_kind(error)
        if kind == "memory":
            header = {
                "error": f"reading it needs more than the {limits['memory_bytes']} bytes of memory "
                f"allowed for loading a file of this size",
                "resource": kind,
            }
        elif kind is not None:
            header = {"error": f"{type(error).__name__}: {str(error)[:300]}", "resource": kind}
        else:
            header = {"error": f"a damaged HDF5 file: the parser failed ({type(error).__name__}: {str(error)[:200]})"}
        blobs = []
    return _emit(out, header, blobs)


def _emit(out, header, blobs):
    text = json.dumps(header).encode("utf-8")
    out.write(MAGIC + struct.pack("<Q", len(text)) + text)
    for blob in blobs:  # without a data file, the arrays follow the header
        out.write(blob)
    out.flush()
    return 0


def _wait(pid, timeout):
    """The child's exit as subprocess reports it (negative: killed by that signal), or None at ``timeout``."""
    import select
    import signal
    import time

    deadline = time.monotonic() + timeout
    pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
            if pidfd is not None:
                select.select([pidfd], [], [], left)
            else:
                time.sleep(min(left, 0.002))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _address_space_bytes():
    """This process's mapped address space (VmSize), or None where /proc is missing."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _serve_one(request, out_fd):
    """In the forked child: the result to ``out_fd`` (as stdout), stdin closed, then ``main`` and exit."""
    code = 1
    try:
        os.dup2(out_fd, 1)
        os.close(out_fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        limits = request["limits"]
        used = _address_space_bytes()
        if used is not None and used >= int(limits["memory_bytes"]):
            code = _emit(
                sys.stdout.buffer,
                {
                    "error": f"the HDF5 reader could not start with its {limits['memory_bytes']} bytes of memory "
                    f"(h5py and numpy alone map {used} bytes); the file itself was not read",
                    "resource": "memory",
                },
                [],
            )
        else:
            code = main(["", request["path"], json.dumps(limits), json.dumps(request["data_paths"])])
        sys.stdout.flush()
    finally:
        os._exit(code)


def serve():
    """The zygote's loop on its socket (fd 0): one forked reader per request packet, until it closes."""
    import socket

    import h5py  # noqa: F401  loaded once here, so each forked reader starts at once
    import numpy  # noqa: F401

    _limit(resource.RLIMIT_CORE, 0)
    channel = socket.socket(fileno=0)
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(channel, 1 << 16, 1)
        except OSError:
            return 0
        if not message:
            return 0  # the caller closed its end
        try:
            request = json.loads(message)
            timeout = float(request["timeout"])
            if len(fds) != 1:
                raise ValueError("no result pipe")
        except (ValueError, KeyError, TypeError):
            for fd in fds:
                os.close(fd)
            return 2  # not tfkit speaking: stop
        pid = os.fork()
        if pid == 0:
            channel.close()
            _serve_one(request, fds[0])
        os.close(fds[0])  # only the child writes: the caller sees EOF when it is gone
        code = _wait(pid, timeout)
        channel.sendall(json.dumps({"timeout": True} if code is None else {"returncode": code}).encode())


if __name__ == "__main__":
    sys.exit(serve() if sys.argv[1:] == ["--serve"] else main(sys.argv))
