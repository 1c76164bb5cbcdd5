"""Read the data inside a pickle without unpickling it: containers, scalars and numpy arrays only.

    from tfkit.datasets import pickle_data
    batch = pickle_data.loads(raw_bytes, source="cifar-10-batches-py/data_batch_1")
    batch[b"data"].shape   # (10000, 3072), rebuilt with np.frombuffer; nothing was imported or called

CIFAR batches (written by Python 2's cPickle) and the object arrays of
``imdb.npz`` / ``reuters.npz`` are pickles. ``pickle.load`` runs whatever a file
names, so this module never calls it: the opcode stream is walked opcode by
opcode, arguments parsed by ``pickletools``' own readers (as ``genops`` does;
runs of small ints, the word lists of imdb, are decoded in one loop, about
5x faster), and only the data opcodes of
protocols 2 to 5 are interpreted: marks, frames, the memo, dicts, lists,
tuples, ``None``/bools, ints, floats, bytes and strings. Python 2 strings
(``BINSTRING`` / ``SHORT_BINSTRING``) come back as ``bytes``, as
``pickle.load(..., encoding="bytes")`` returns them.

Exactly five globals are understood, each only in the shape numpy and Python
write it, and each is interpreted here, never imported:

* ``numpy.core.multiarray._reconstruct`` (or ``numpy._core...``) with ``numpy.ndarray``,
  followed by ``BUILD`` with the array state ``(version, shape, dtype, fortran, data)``;
* ``numpy.dtype`` with ``(code, align, copy)``, followed by ``BUILD`` with its byte-order state;
* ``numpy.core.numeric._frombuffer`` (or ``numpy._core...``): how protocol 5 stores an array;
* ``_codecs.encode(text, "latin1")`` and ``bytes()``: how Python 3 writes ``bytes`` (and ``b""``)
  at protocol 2.

Any other global or opcode raises ``ValueError`` naming the source, the opcode
and its byte position, before anything else happens. What is built is bounded
(elements, total bytes, stack and nesting depth, memo size), so a small hostile
file cannot make it use much memory.
"""

from __future__ import annotations

import dataclasses
import io
import pickletools
import re
from typing import Any

import numpy as np

_RECONSTRUCT = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct")}
_FROMBUFFER = {("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer")}
_NDARRAY = ("numpy", "ndarray")
_DTYPE = ("numpy", "dtype")
_ENCODE = ("_codecs", "encode")
_EMPTY_BYTES = {("__builtin__", "bytes"), ("builtins", "bytes")}  # Python 3's empty bytes at protocol 2
_ALLOWED_GLOBALS = _RECONSTRUCT | _FROMBUFFER | _EMPTY_BYTES | {_NDARRAY, _DTYPE, _ENCODE}
_OPCODES = {ord(op.code): op for op in pickletools.opcodes}
_BININT1, _BININT2, _BININT = ord("K"), ord("M"), ord("J")
_INT_CODES = frozenset((_BININT1, _BININT2, _BININT))
_CONTAINERS = {list, dict, tuple}
# dtype kinds an array may hold: numbers, bools, and (for the ragged sequences of imdb/reuters) objects
_DTYPE_KINDS = set("biufcO")
_DTYPE_CODE = re.compile(r"[biufcO][0-9]{1,2}")


@dataclasses.dataclass(frozen=True)
class Limits:
    """Upper bounds on what one pickle read by `loads` may build.

    A frozen dataclass: pass one to `loads` to read untrusted pickles with tighter (or
    looser) bounds, so that a small hostile file cannot make the reader use much memory.

    Args:
        max_elements: The most container items and array elements, all together.
            Defaults to `100_000_000`.
        max_bytes: The most bytes of `bytes`, text and array data, all together; the
            pickle itself may be at most 1 MiB larger. Defaults to `1 << 30` (1 GiB).
        max_depth: The deepest nesting of containers inside containers. Defaults to `64`.
        max_stack: The most values on the interpreter's stack (under all marks), and
            marks. Defaults to `100_000`.
        max_memo: The most memo entries. Defaults to `10_000_000`.

    Example:
        >>> import pickle
        >>> from tfkit.datasets import pickle_data
        >>> data = pickle.dumps(list(range(20)), protocol=2)
        >>> pickle_data.loads(data, limits=pickle_data.Limits(max_elements=10))
        Traceback (most recent call last):
        ...
        ValueError: <pickle>: more than 10 elements in all (opcode APPENDS at byte ...); ...
    """

    max_elements: int = 100_000_000  # container items and array elements, all together
    max_bytes: int = 1 << 30  # bytes and text, and array data, all together
    max_depth: int = 64  # nesting of containers inside containers
    max_stack: int = 100_000  # values on the interpreter's stack (under all marks), and marks
    max_memo: int = 10_000_000  # memo entries


@dataclasses.dataclass(frozen=True)
class _Global:
    module: str
    name: str


class _Args(tuple):
    """A tuple holding a global (``numpy.ndarray``, for ``_reconstruct``): valid only as REDUCE's arguments."""


class _Pending:
    """The result of a REDUCE that BUILD completes (an array or a dtype); memo may refer to it."""

    def __init__(self, kind: str, args: tuple):
        self.kind, self.args, self.value, self.done = kind, args, None, False


class _Reader:
    def __init__(self, source: str, limits: Limits):
        self.source, self.limits = source, limits
        self.stack: list[Any] = []
        self.marks: list[list[Any]] = []
        self.below = 0  # values held in the stacks under the marks
        self.memo: dict[int, Any] = {}
        self.shared: dict[int, Any] = {}  # id -> container fetched from the memo: finished, never changed again
        self.depths: dict[int, tuple[Any, int]] = {}  # id -> (container kept alive, nesting depth)
        self.elements = 0
        self.nbytes = 0
        self.pos = 0
        self.size = 0
        self.frame_end: int | None = None  # where the current frame ends (no opcode may cross it)
        self.opname = ""

    # --- errors and accounting -------------------------------------------------------------------

    def fail(self, what: str) -> ValueError:
        return ValueError(
            f"{self.source}: {what} (opcode {self.opname} at byte {self.pos}); "
            "only plain data and numpy arrays are read from pickles, nothing is imported or run"
        )

    def count(self, elements: int = 0, nbytes: int = 0) -> None:
        self.elements += elements
        self.nbytes += nbytes
        if self.elements > self.limits.max_elements:
            raise self.fail(f"more than {self.limits.max_elements:,} elements in all")
        if self.nbytes > self.limits.max_bytes:
            raise self.fail(f"more than {self.limits.max_bytes:,} bytes of data in all")

    def value(self, obj: Any) -> Any:
        if isinstance(obj, _Pending):
            if not obj.done:
                raise self.fail(f"an unfinished {obj.kind} is used as a value")
            return obj.value
        return obj  # a _Global is inert; only REDUCE gives it meaning

    def depth_of(self, items: Any) -> int:
        depth = 0
        if not _CONTAINERS & set(map(type, items)):
            return 0
        for item in items:
            if isinstance(item, (list, dict, tuple)):
                entry = self.depths.get(id(item))
                depth = max(depth, entry[1] if entry is not None else 1)
        return depth

    def grow(self, container: Any, items: Any) -> None:
        """Record that ``items`` went into ``container``: element count and nesting depth."""
        kinds = set(map(type, items))
        if _Global in kinds or _Args in kinds:
            raise self.fail("a global used as data (globals are only called, by REDUCE)")
        self.count(elements=len(items))
        depth = self.depth_of(items) + 1
        entry = self.depths.get(id(container))
        if entry is None or entry[1] < depth:
            if depth > self.limits.max_depth:
                raise self.fail(f"containers nested more than {self.limits.max_depth} deep")
            self.depths[id(container)] = (container, depth)

    def push(self, obj: Any) -> None:
        if len(self.stack) + self.below >= self.limits.max_stack:
            raise self.fail(f"more than {self.limits.max_stack:,} values on the stack")
        self.stack.append(obj)

    def pop(self) -> Any:
        if not self.stack:
            raise self.fail("the stack is empty")
        return self.stack.pop()

    def pop_mark(self) -> list[Any]:
        if not self.marks:
            raise self.fail("no MARK to return to")
        items, self.stack = self.stack, self.marks.pop()
        self.below -= len(self.stack)
        if _Pending in set(map(type, items)):
            return [self.value(item) for item in items]
        return items

    def top(self) -> Any:
        if not self.stack:
            raise self.fail("the stack is empty")
        return self.stack[-1]

    # --- the opcode loop -----------------------------------------------------------------------------

    def run(self, data: bytes) -> Any:
        """Interpret ``data`` opcode by opcode; arguments are parsed by ``pickletools``' own readers."""
        stream, size, stack_limit = io.BytesIO(data), len(data), self.limits.max_stack
        self.size = size
        handlers: dict[str, Any] = {}
        pos = 0
        try:
            while pos < size:
                code = data[pos]
                if code in _INT_CODES:
                    # a run of small ints (a list of word indices): decoded here, without a call per int
                    self.pos, self.opname = pos, "BININT"
                    room = stack_limit - len(self.stack) - self.below
                    end = self.frame_end if self.frame_end is not None else size  # no opcode crosses a frame's end
                    run, pos = _int_run(data, pos, room + 1, end)
                    if pos == self.frame_end:
                        self.frame_end = None
                    if len(run) > room:
                        raise self.fail(f"more than {stack_limit:,} values on the stack")
                    self.stack.extend(run)
                    continue
                opcode = _OPCODES.get(code)
                self.pos, self.opname = pos, opcode.name if opcode is not None else f"byte {code:#04x}"
                if opcode is None:
                    raise self.fail("an unknown opcode")
                stream.seek(pos + 1)
                arg = opcode.arg.reader(stream) if opcode.arg is not None else None
                pos = stream.tell()
                if self.frame_end is not None and pos >= self.frame_end:
                    if pos > self.frame_end:
                        raise self.fail(f"the opcode runs past the end of its frame (byte {self.frame_end})")
                    self.frame_end = None
                if opcode.name == "STOP":
                    if len(self.stack) != 1 or self.marks:
                        raise self.fail("the pickle ends with a malformed stack")
                    result = self.value(self.stack[0])
                    if isinstance(result, (_Global, _Args)):
                        raise self.fail("the pickle holds a global as data")
                    return result
                handler = handlers.get(opcode.name)
                if handler is None:
                    handler = handlers[opcode.name] = getattr(self, f"op_{opcode.name}", None)
                    if handler is None:
                        raise self.fail(f"opcode {opcode.name} is not a plain-data opcode")
                handler(arg)
        except ValueError as exc:
            if str(exc).startswith(f"{self.source}:"):
                raise
            raise self.fail(f"malformed pickle: {exc}") from exc
        raise self.fail("the pickle has no STOP")

    # framing
    def op_PROTO(self, arg: int) -> None:
        if not 2 <= arg <= 5:
            raise self.fail(f"pickle protocol {arg}; protocols 2 to 5 are read")

    def op_FRAME(self, arg: int) -> None:
        if self.pos + 9 + arg > self.size:  # 9: the opcode and its 8-byte length
            raise self.fail(f"a frame of {arg:,} bytes runs past the end of the pickle (it is truncated)")
        if self.frame_end is not None:
            raise self.fail("a new frame begins before the end of the current one")
        if arg:
            self.frame_end = self.pos + 9 + arg

    def op_MARK(self, arg: None) -> None:
        if len(self.marks) >= self.limits.max_stack:
            raise self.fail("too many MARKs")
        self.marks.append(self.stack)
        self.below += len(self.stack)
        self.stack = []

    def op_POP(self, arg: None) -> None:
        self.pop()

    def op_POP_MARK(self, arg: None) -> None:
        self.pop_mark()

    # scalars
    def op_NONE(self, arg: None) -> None:
        self.push(None)

    def op_NEWTRUE(self, arg: None) -> None:
        self.push(True)

    def op_NEWFALSE(self, arg: None) -> None:
        self.push(False)

    def op_BININT(self, arg: int) -> None:
        self.push(arg)

    op_BININT1 = op_BININT2 = op_LONG1 = op_LONG4 = op_BINFLOAT = op_BININT

    def op_BINBYTES(self, arg: bytes) -> None:
        self.count(nbytes=len(arg))
        self.push(bytes(arg))

    op_SHORT_BINBYTES = op_BINBYTES8 = op_BINBYTES

    def op_BINSTRING(self, arg: str) -> None:
        # a Python 2 str: bytes, as encoding="bytes" gives them (genops hands them over latin-1 decoded)
        self.count(nbytes=len(arg))
        self.push(arg.encode("latin-1"))

    op_SHORT_BINSTRING = op_BINSTRING

    def op_BYTEARRAY8(self, arg: bytes) -> None:
        self.count(nbytes=len(arg))
        self.push(bytearray(arg))

    def op_BINUNICODE(self, arg: str) -> None:
        self.count(nbytes=len(arg))
        self.push(arg)

    op_SHORT_BINUNICODE = op_BINUNICODE8 = op_BINUNICODE

    # containers
    def op_EMPTY_LIST(self, arg: None) -> None:
        self.push([])

    def op_EMPTY_DICT(self, arg: None) -> None:
        self.push({})

    def op_EMPTY_TUPLE(self, arg: None) -> None:
        self.push(())

    def op_LIST(self, arg: None) -> None:
        items = self.pop_mark()
        self.grow(items, items)
        self.push(items)

    def _tuple(self, items: list[Any]) -> None:
        kinds = set(map(type, items))
        if _Global in kinds and _Args not in kinds:  # REDUCE's arguments: (numpy.ndarray, shape, typecode)
            self.count(elements=len(items))
            self.push(_Args(items))
            return
        result = tuple(items)
        self.grow(result, items)
        self.push(result)

    def op_TUPLE(self, arg: None) -> None:
        self._tuple(self.pop_mark())

    def op_TUPLE1(self, arg: None) -> None:
        self._tuple([self.value(self.pop())])

    def op_TUPLE2(self, arg: None) -> None:
        second, first = self.value(self.pop()), self.value(self.pop())
        self._tuple([first, second])

    def op_TUPLE3(self, arg: None) -> None:
        third, second, first = self.value(self.pop()), self.value(self.pop()), self.value(self.pop())
        self._tuple([first, second, third])

    def _list_target(self) -> list:
        target = self.top()
        if not isinstance(target, list):
            raise self.fail(f"APPEND into a {type(target).__name__}, not a list")
        self._unshared(target)
        return target

    def _unshared(self, target: Any) -> None:
        # Python writes a container whole before the memo refers to it; one changed after a memo GET would
        # be a cycle (a list holding itself, which no data file has) or a later edit
        if id(target) in self.shared:
            raise self.fail("a container changed after the memo handed it out (a cycle, or an edit)")

    def op_APPEND(self, arg: None) -> None:
        item = self.value(self.pop())
        target = self._list_target()
        self.grow(target, [item])
        target.append(item)

    def op_APPENDS(self, arg: None) -> None:
        items = self.pop_mark()
        target = self._list_target()
        self.grow(target, items)
        target.extend(items)

    def _set_items(self, items: list[Any]) -> None:
        target = self.top()
        if not isinstance(target, dict):
            raise self.fail(f"SETITEM into a {type(target).__name__}, not a dict")
        self._unshared(target)
        if len(items) % 2:
            raise self.fail("SETITEMS with an odd number of values")
        keys = items[0::2]
        for key in keys:
            if not isinstance(key, (str, bytes, int, float, bool, type(None))):
                raise self.fail(f"a dict key of type {type(key).__name__}")
        self.grow(target, items[1::2])
        for key, item in zip(keys, items[1::2]):
            target[key] = item

    def op_SETITEM(self, arg: None) -> None:
        item, key = self.value(self.pop()), self.value(self.pop())
        self._set_items([key, item])

    def op_SETITEMS(self, arg: None) -> None:
        self._set_items(self.pop_mark())

    # memo
    def _put(self, index: int) -> None:
        if index not in self.memo and len(self.memo) >= self.limits.max_memo:
            raise self.fail(f"more than {self.limits.max_memo:,} memo entries")
        self.memo[index] = self.top()

    def op_BINPUT(self, arg: int) -> None:
        self._put(arg)

    op_LONG_BINPUT = op_BINPUT

    def op_MEMOIZE(self, arg: None) -> None:
        self._put(len(self.memo))

    def op_BINGET(self, arg: int) -> None:
        if arg not in self.memo:
            raise self.fail(f"memo entry {arg} was never stored")
        obj = self.memo[arg]
        if isinstance(obj, (list, dict)):
            self.shared[id(obj)] = obj
        self.push(obj.value if isinstance(obj, _Pending) and obj.done else obj)

    op_LONG_BINGET = op_BINGET

    # the numpy patterns
    def _global(self, module: Any, name: Any) -> None:
        if not isinstance(module, str) or not isinstance(name, str):
            raise self.fail("a global named by something other than text")
        if (module, name) not in _ALLOWED_GLOBALS:
            raise self.fail(f"refusing the global {module}.{name}")
        self.push(_Global(module, name))

    def op_GLOBAL(self, arg: str) -> None:
        module, _, name = arg.partition(" ")
        self._global(module, name)

    def op_STACK_GLOBAL(self, arg: None) -> None:
        name, module = self.pop(), self.pop()
        self._global(module, name)

    def op_REDUCE(self, arg: None) -> None:
        args, func = self.pop(), self.pop()
        if not isinstance(func, _Global) or not isinstance(args, tuple):
            raise self.fail("REDUCE of something other than an allowed global and an argument tuple")
        key = (func.module, func.name)
        if key in _RECONSTRUCT:
            # numpy writes (numpy.ndarray, (0,), b"b"): an empty int8 array that BUILD then sets; numpy reads other
            # typecodes as dtypes (and refuses unknown ones) and allocates other shapes before BUILD
            if len(args) != 3 or args[0] != _Global(*_NDARRAY) or args[1] != (0,) or args[2] != b"b":
                raise self.fail(
                    "_reconstruct with arguments other than (numpy.ndarray, (0,), b'b'), as numpy writes them"
                )
            self.push(_Pending("array", args))
        elif key == _DTYPE:
            # numpy writes (code, align=False, copy=True); align=True or copy=False builds another dtype
            if (
                len(args) != 3
                or not isinstance(args[0], (str, bytes))
                or args[1:] != (False, True)
                or not all(type(a) in (bool, int) for a in args[1:])
            ):
                raise self.fail("numpy.dtype with arguments other than (code, False, True), as numpy writes them")
            self.push(_Pending("dtype", args))
        elif key in _FROMBUFFER:
            self.push(self._frombuffer(args))
        elif key == _ENCODE:
            if len(args) != 2 or not isinstance(args[0], str) or args[1] != "latin1":
                raise self.fail("_codecs.encode with arguments other than (text, 'latin1')")
            self.push(args[0].encode("latin1"))
        elif key in _EMPTY_BYTES:
            if args != ():
                raise self.fail("bytes() with arguments (only the empty bytes b'' is written so)")
            self.push(b"")
        else:
            raise self.fail(f"REDUCE of {func.module}.{func.name}")

    def op_BUILD(self, arg: None) -> None:
        state = self.value(self.pop())
        if isinstance(state, (_Global, _Args)):
            raise self.fail("a global used as data (globals are only called, by REDUCE)")
        target = self.top()
        if not isinstance(target, _Pending) or target.done:
            raise self.fail(f"BUILD of a {type(target).__name__}; only numpy arrays and dtypes are built")
        target.value = self._dtype(target.args, state) if target.kind == "dtype" else self._array(state)
        target.done = True
        self.stack[-1] = target.value

    def _dtype(self, args: tuple, state: Any) -> np.dtype:
        code = args[0].decode("ascii", "replace") if isinstance(args[0], bytes) else args[0]
        # numpy's state: (version 3, order, subarray, names, fields, elsize, alignment, flags[, metadata] (4))
        if (
            not isinstance(state, tuple)
            or (len(state), state[0] if state else None) not in ((8, 3), (9, 4))
            or any(type(v) is not int for v in state[5:8])
        ):
            raise self.fail(f"the dtype {code!r} has a state other than numpy's (version 3 or 4)")
        if any(s is not None for s in state[2:5]):
            raise self.fail(f"the dtype {code!r} has a state other than a plain one (structured dtypes are refused)")
        # numpy pickles a dtype by its kind and size ("f4", "O8"); anything else would reach numpy's parser of
        # dtype strings, which evaluates tuples and commas in them
        if not _DTYPE_CODE.fullmatch(code):
            raise self.fail(f"the dtype code {code!r}; numpy writes a kind and a size (such as 'f4')")
        try:
            dtype = np.dtype(code)
        except TypeError as exc:
            raise self.fail(f"unknown dtype code {code!r}") from exc
        if dtype.kind not in _DTYPE_KINDS or dtype.fields is not None or dtype.subdtype is not None:
            raise self.fail(f"dtype {code!r}: only numbers, bools and objects are read")
        if state[5:8] != (-1, -1, dtype.flags):  # what numpy writes for these dtypes (it refuses other flags)
            raise self.fail(
                f"the dtype {code!r} has the size, alignment and flags {state[5:8]}; numpy writes "
                f"(-1, -1, {dtype.flags})"
            )
        order = state[1].decode("ascii", "replace") if isinstance(state[1], bytes) else state[1]
        if order not in ("<", ">", "|", "="):
            raise self.fail(f"dtype byte order {order!r}")
        return dtype.newbyteorder(order) if order in "<>" and dtype.itemsize > 1 else dtype

    def _shape(self, shape: Any) -> tuple[int, ...]:
        if not isinstance(shape, tuple) or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise self.fail(f"an array shape {shape!r}; expected a tuple of sizes")
        size = 1
        for dim in shape:
            size *= dim
        self.count(elements=size)
        return shape

    def _array(self, state: Any) -> np.ndarray:
        if not isinstance(state, tuple) or len(state) != 5 or state[0] != 1:
            raise self.fail("an array state other than (1, shape, dtype, fortran, data)")
        _, shape, dtype, fortran, data = state
        shape = self._shape(shape)
        if not isinstance(dtype, np.dtype):
            raise self.fail(f"an array dtype {type(dtype).__name__}")
        order = "F" if fortran else "C"
        size = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if dtype.hasobject:
            if not isinstance(data, list) or len(data) != size:
                raise self.fail(f"an object array of shape {shape} with {type(data).__name__} data")
            array = np.empty(size, dtype=object)
            for index, item in enumerate(data):
                array[index] = item
            return array.reshape(shape, order=order)
        array = self._from_bytes(data, dtype, shape, order)
        # numpy's array state hands a non-native byte order back as native, values unchanged; so do we
        return array if dtype.isnative else array.astype(dtype.newbyteorder("="))

    def _from_bytes(self, data: Any, dtype: np.dtype, shape: tuple[int, ...], order: str) -> np.ndarray:
        if dtype.hasobject:
            raise self.fail("an object array stored as raw bytes")
        if not isinstance(data, (bytes, bytearray)):
            raise self.fail(f"array data of type {type(data).__name__}")
        size = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if len(data) != size * dtype.itemsize:
            raise self.fail(f"an array {dtype} {shape} needs {size * dtype.itemsize} bytes, the file has {len(data)}")
        return np.frombuffer(bytes(data), dtype=dtype).reshape(shape, order=order).copy(order="C")

    def _frombuffer(self, args: tuple) -> np.ndarray:
        if len(args) != 4 or not isinstance(args[1], np.dtype) or args[3] not in ("C", "F"):
            raise self.fail("_frombuffer with arguments other than (buffer, dtype, shape, order)")
        return self._from_bytes(args[0], args[1], self._shape(args[2]), args[3])


def _int_run(data: bytes, pos: int, most: int, end: int) -> tuple[list[int], int]:
    """The ints of consecutive BININT1 / BININT2 / BININT opcodes from ``pos``, and the position after them.

    Reads at most ``2 * most + 4`` bytes (so at most ``most + 2`` ints) in one call, never past ``end`` (the
    end of the data or of the current frame); the caller continues.
    """
    run: list[int] = []
    append = run.append
    last = min(end, pos + 2 * most + 4)
    while pos < last:
        code = data[pos]
        if code == _BININT2:
            if pos + 3 > last:
                break
            append(data[pos + 1] | data[pos + 2] << 8)
            pos += 3
        elif code == _BININT1:
            if pos + 2 > last:
                break
            append(data[pos + 1])
            pos += 2
        elif code == _BININT:
            if pos + 5 > last:
                break
            append(int.from_bytes(data[pos + 1 : pos + 5], "little", signed=True))
            pos += 5
        else:
            break
    if not run:
        raise ValueError(f"an integer opcode at byte {pos} is cut short")
    return run, pos


def loads(data: bytes, *, source: str = "<pickle>", limits: Limits | None = None) -> Any:
    """Returns the data a pickle holds, built without importing or calling anything it names.

    `pickle.loads` runs whatever a file names, so this never calls it: the opcode stream
    (protocols 2 to 5) is walked and only data opcodes are interpreted: marks, frames, the
    memo, dicts, lists, tuples, `None` and bools, ints, floats, bytes and strings. Python 2
    strings come back as `bytes`, as `pickle.loads(..., encoding="bytes")` returns them.
    Numpy arrays (of numbers, bools or objects) and dtypes are rebuilt with
    `np.frombuffer`, from the few globals numpy writes for them, which are interpreted,
    never imported; `bytes` written by Python 3 at protocol 2 are understood too. This is
    how the CIFAR batches and the `imdb.npz` / `reuters.npz` sequences are read.

    Args:
        data: The pickle's bytes (`bytes`, `bytearray` or `memoryview`).
        source: Where the bytes come from, used in error messages; keyword-only. Defaults
            to `"<pickle>"`.
        limits: The `Limits` on what may be built; keyword-only. Defaults to `None`, for
            `Limits()`.

    Returns:
        The data: nested dicts, lists, tuples, scalars, strings, bytes and numpy arrays.

    Raises:
        TypeError: If `data` is not bytes-like.
        ValueError: If the pickle holds anything but plain data and numpy arrays, is
            malformed, or exceeds `limits`; the message names `source`, the offending
            opcode or global and its byte position.

    Example:
        >>> import os, pickle
        >>> from tfkit.datasets import pickle_data
        >>> pickle_data.loads(pickle.dumps({b"data": np.arange(3, dtype="int16"), "labels": [1, 2]}, protocol=2))
        {b'data': array([0, 1, 2], dtype=int16), 'labels': [1, 2]}
        >>> pickle_data.loads(pickle.dumps(os.getcwd, protocol=2), source="hostile.pkl")
        Traceback (most recent call last):
        ...
        ValueError: hostile.pkl: refusing the global ...getcwd (opcode GLOBAL at byte 2); only plain data ...
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    limits = limits or Limits()
    if len(data) > limits.max_bytes + (1 << 20):
        raise ValueError(f"{source}: the pickle is {len(data):,} bytes, more than {limits.max_bytes:,}")
    return _Reader(source, limits).run(bytes(data))
