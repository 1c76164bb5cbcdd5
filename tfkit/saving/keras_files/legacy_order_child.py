"""Read the layer and weight order of an untrusted tf-keras ``.h5`` file in a short-lived child process.

    python -I legacy_order_child.py FILE GROUP '{"memory_bytes": ..., "cpu_seconds": ...}'

tf-keras writes a weights file's order as string-array attributes, which the
guarded dataset reader (``tfkit/saving/h5_reader_child.py``) does not pass on:
``layer_names`` on the root (a weights file) or on ``/model_weights`` (a model
file), and ``weight_names`` on each layer's group; each may be split into
``layer_names0``, ``layer_names1``, ... when it is long. Keras 3's legacy
loader pairs layers and weights in that order. This script reads only those
attributes (no dataset), under the same memory and CPU limits, follows hard
links only, and writes one JSON object to stdout:

    {"layer_names": [...], "weight_names": {"<layer name>": [...], ...}}    or    {"error": "..."}

It imports nothing of tfkit (nor TensorFlow): h5py only (and nothing from its own folder, whose
neighbours' names could shadow the standard library's).
"""

import json
import resource
import sys


def _limit(kind, value):
    """Lower a resource limit (never above the hard limit), as h5_reader_child does (a copy: this script runs
    isolated, ``python -I``, and imports nothing of tfkit)."""
    soft, hard = resource.getrlimit(kind)
    value = int(value)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, hard))


MAX_NAME_CHARS = 4096
MAX_CHUNKS = 4096


class Refused(Exception):
    pass


def _strings(h5py, owner, name, limits):
    """A 1-D string-array attribute as a list of str (Keras's ``load_attributes_from_hdf5_group``)."""
    attr = h5py.h5a.open(owner.id, name.encode("utf-8"))
    dtype, shape = attr.dtype, attr.shape
    if shape is None or len(shape) != 1:
        raise Refused(f"attribute {name!r} has shape {shape}, not a list of names")
    if shape[0] > limits["max_entries"]:
        raise Refused(f"attribute {name!r} lists more than {limits['max_entries']} names")
    if shape[0] == 0:  # tf-keras writes a layer without weights as an empty (float) array
        return []
    if h5py.check_string_dtype(dtype) is None and dtype.kind not in "SU":
        raise Refused(f"attribute {name!r} has dtype {dtype}, not text")
    if dtype.kind == "S" and dtype.itemsize > MAX_NAME_CHARS:
        raise Refused(f"attribute {name!r} holds names longer than {MAX_NAME_CHARS} bytes")
    names = []
    for value in owner.attrs[name]:
        if isinstance(value, bytes):
            value = value.decode("utf-8")
        if not isinstance(value, str) or len(value) > MAX_NAME_CHARS:
            raise Refused(f"attribute {name!r} holds something other than short names")
        names.append(value)
    return names


def _load_names(h5py, owner, name, limits):
    if name in owner.attrs:
        return _strings(h5py, owner, name, limits)
    names, chunk = [], 0
    while f"{name}{chunk}" in owner.attrs and chunk < MAX_CHUNKS:
        names += _strings(h5py, owner, f"{name}{chunk}", limits)
        if len(names) > limits["max_entries"]:
            raise Refused(f"attribute {name!r} lists more than {limits['max_entries']} names")
        chunk += 1
    return names


def _hard_group(h5py, root, path):
    """The group at ``path`` under ``root`` when every step is a hard link to a group, else None."""
    group = root
    for part in path.split("/"):
        if not part or part not in group:
            return None
        if not isinstance(group.get(part, getlink=True), h5py.HardLink):
            raise Refused(f"{path!r} is reached through a soft or external link")
        group = group[part]
        if not isinstance(group, h5py.Group):
            return None
    return group


def read(path, group_name, limits):
    import h5py

    with h5py.File(path, "r") as f:
        root = f if group_name in ("", "/") else _hard_group(h5py, f, group_name)
        if root is None:
            raise Refused(f"/{group_name} is not a group")
        layer_names = _load_names(h5py, root, "layer_names", limits)
        weight_names = {}
        for name in layer_names:
            group = _hard_group(h5py, root, name)
            weight_names[name] = [] if group is None else _load_names(h5py, group, "weight_names", limits)
        return {"layer_names": layer_names, "weight_names": weight_names}


def main(argv):
    path, group_name, limits = argv[1], argv[2], json.loads(argv[3])
    _limit(resource.RLIMIT_AS, limits["memory_bytes"])
    _limit(resource.RLIMIT_CPU, limits["cpu_seconds"])
    _limit(resource.RLIMIT_CORE, 0)
    try:
        result = read(path, group_name, limits)
    except Refused as refusal:
        result = {"error": str(refusal)}
    except Exception as error:  # noqa: BLE001  libhdf5/h5py fail in many ways on damaged files
        result = {"error": f"the parser failed ({type(error).__name__}: {str(error)[:200]})"}
    sys.stdout.write(json.dumps(result))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
