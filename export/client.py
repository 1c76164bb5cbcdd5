"""A minimal TensorFlow Serving client: REST (standard library only) and gRPC (optional).

    predictions = predict("http://localhost:8501", "vae", build_predict_request(instances=[[0.0] * 784]))
    outputs = grpc_predict("localhost:8500", "vae", {"inputs": np.zeros((1, 784), np.float32)})
    # CLI: python export/client.py --model vae --random 1x784 [--grpc localhost:8500]

REST: row format (``{"instances": [...]}``) answers ``{"predictions": ...}``;
columnar format (``{"inputs": ...}``) answers ``{"outputs": ...}``; a failed
request answers ``{"error": "..."}``, raised here as ``ServingError``.
gRPC (``PredictionService.Predict`` and ``GetModelMetadata``) needs the
optional ``tensorflow-serving-api`` package (tfkit's ``serving`` extra), which
brings TensorFlow and grpcio; it is imported only when a gRPC function runs.
numpy is optional for REST and only used by the CLI to read ``--inputs FILE.npy``.

Every call has one deadline, ``timeout`` seconds for connecting, sending and
every read together (a server that trickles its answer cannot hold the client
longer), and reads at most ``max_response_bytes`` of answer. Failures raise
``ServingError`` (the server answered an error), ``ConnectionError`` (no
complete answer came: unreachable, reset, closed early, out of time) or
``ValueError`` (an answer came that TensorFlow Serving never gives: not HTTP,
larger than the limit, not JSON, nested too deep); the CLI prints each as one line.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import math
import numbers
import random
import re
import socket
import ssl
import sys
import time
import urllib.parse
from typing import Any, Sequence

DEFAULT_MAX_RESPONSE_BYTES = 64 * 2**20  # about 7,000 VAE reconstructions (784 floats each) as JSON


class ServingError(RuntimeError):
    """TensorFlow Serving answered an error: REST ``{"error": ...}`` (``status``: the HTTP
    status) or a gRPC status (``code``: its name, e.g. ``"NOT_FOUND"``)."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None):
        self.message = message
        self.status = status
        self.code = code
        prefix = f"HTTP {status}: " if status is not None else ""
        prefix += f"gRPC {code}: " if code is not None else ""
        super().__init__(f"TensorFlow Serving error: {prefix}{message}")


def to_json_value(value: Any) -> Any:
    """Nested lists/dicts of plain numbers from arrays (anything with ``tolist``), tuples, dicts."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {str(key): to_json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(item) for item in value]
    return value


def build_predict_request(instances: Any = None, inputs: Any = None, signature_name: str | None = None) -> dict:
    """A ``:predict`` request body in row (``instances``) or columnar (``inputs``) format.

    Give exactly one of ``instances`` (a batch: one item per example, or one
    ``{input_name: value}`` object per example) and ``inputs`` (a tensor, or a
    ``{input_name: tensor}`` object). ``signature_name`` picks a non-default
    serving signature.
    """
    if (instances is None) == (inputs is None):
        given = "both" if instances is not None else "neither"
        raise ValueError(
            "build_predict_request expects exactly one of instances= (row format) or "
            f"inputs= (columnar format), got {given}"
        )
    body: dict[str, Any] = {}
    if signature_name is not None:
        if not isinstance(signature_name, str) or not signature_name:
            raise ValueError(f"signature_name must be a non-empty string, got {signature_name!r}")
        body["signature_name"] = signature_name
    if instances is not None:
        instances = to_json_value(instances)
        if not isinstance(instances, list):
            raise ValueError(f"instances= must be a list (one item per example), got {type(instances).__name__}")
        body["instances"] = instances
    else:
        body["inputs"] = to_json_value(inputs)
    return body


def parse_predict_response(body: dict, endpoint: str = "TensorFlow Serving") -> Any:
    """The ``predictions`` (row format) or ``outputs`` (columnar format) of a ``:predict`` answer.

    Raises ``ServingError`` for ``{"error": ...}`` and ``ValueError`` naming
    ``endpoint`` (the URL asked) for a body that has neither key.
    """
    if not isinstance(body, dict):
        raise ValueError(f"expected a JSON object from {endpoint}, got {type(body).__name__}")
    if "error" in body:
        raise ServingError(str(body["error"]))
    for key in ("predictions", "outputs"):
        if key in body:
            return body[key]
    raise ValueError(f"expected 'predictions' or 'outputs' in the answer from {endpoint}, got keys {sorted(body)}")


def model_url(url: str, model: str, version: int | None = None) -> str:
    """``<url>/v1/models/<model>[/versions/<version>]``."""
    if not model:
        raise ValueError("model name must be a non-empty string")
    path = f"/v1/models/{urllib.parse.quote(model, safe='')}"
    if version is not None:
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise ValueError(f"version must be a non-negative integer, got {version!r}")
        path += f"/versions/{version}"
    return url.rstrip("/") + path


def predict_url(url: str, model: str, version: int | None = None) -> str:
    """``<url>/v1/models/<model>[/versions/<version>]:predict``."""
    return model_url(url, model, version) + ":predict"


def metadata_url(url: str, model: str, version: int | None = None) -> str:
    """``<url>/v1/models/<model>[/versions/<version>]/metadata``."""
    return model_url(url, model, version) + "/metadata"


class _Deadline:
    """One clock for a whole request: ``remaining()`` seconds, or ``TimeoutError`` once they are spent."""

    def __init__(self, seconds: float) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not 0 < seconds < math.inf:
            raise ValueError(f"timeout must be a positive number of seconds, got {seconds!r}")
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def remaining(self) -> float:
        left = self._end - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the {self.seconds:g} s timeout ran out")
        return left


class _DeadlineReader(io.RawIOBase):
    """A socket's bytes where every read waits at most what is left of the request's deadline."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        super().__init__()
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(self._deadline.remaining())
        return self._sock.recv_into(buffer)


class _DeadlineSocket:
    """What ``http.client.HTTPResponse`` reads from: ``makefile`` gives the deadline-bound reader."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        self._sock = sock
        self._deadline = deadline

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline))


class _Unreachable(Exception):
    """Connecting failed: nothing of the request was sent."""


def _check_limit(max_response_bytes: int) -> int:
    if (
        isinstance(max_response_bytes, bool)
        or not isinstance(max_response_bytes, numbers.Integral)
        or max_response_bytes < 1
    ):
        raise ValueError(f"max_response_bytes must be a positive integer, got {max_response_bytes!r}")
    return int(max_response_bytes)


def _connect(parts: urllib.parse.SplitResult, deadline: _Deadline) -> socket.socket:
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        sock = socket.create_connection((parts.hostname, port), timeout=deadline.remaining())
        if parts.scheme == "https":
            sock.settimeout(deadline.remaining())
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=parts.hostname)
    except OSError as error:
        raise _Unreachable(error) from None
    return sock


def _read_body(response: http.client.HTTPResponse, endpoint: str, limit: int) -> bytes:
    """The body, refused past ``limit`` bytes (announced or counted) and when it ends short of its length."""
    announced = response.length  # Content-Length; None for chunked or read-until-close answers
    if announced is not None and announced > limit:
        raise ValueError(
            f"{endpoint} announced a {announced:,}-byte answer (Content-Length), more than "
            f"max_response_bytes={limit:,} (--max-response-bytes); nothing of it was read"
        )
    chunks, size = [], 0
    while True:
        try:
            chunk = response.read(min(2**16, limit + 1 - size))
        except ValueError as error:  # http.client on some malformed chunked bodies: "read length must be ..."
            raise http.client.HTTPException(f"malformed body: {error}") from None
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ValueError(
                f"{endpoint} answered more than max_response_bytes={limit:,} bytes (--max-response-bytes); "
                "reading stopped there"
            )
    if announced is not None and size < announced:
        raise http.client.IncompleteRead(b"".join(chunks), announced - size)
    return b"".join(chunks)


def _exchange(
    endpoint: str, method: str, data: bytes | None, deadline: _Deadline, limit: int
) -> tuple[int, str, bytes]:
    """Send one request and read its answer, all within ``deadline``: ``(status, reason, body)``."""
    parts = urllib.parse.urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"expected an http:// or https:// URL with a host, got {endpoint!r}")
    target = urllib.parse.quote(parts.path or "/", safe="/:@!$&'()*+,;=-._~%")
    target += f"?{parts.query}" if parts.query else ""
    headers = [
        f"{method} {target} HTTP/1.1",
        f"Host: {parts.netloc.rpartition('@')[2]}",
        "Accept: application/json",
        "Connection: close",
    ]
    if data is not None:
        headers += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    request = ("\r\n".join(headers) + "\r\n\r\n").encode("ascii") + (data or b"")
    sock = _connect(parts, deadline)
    try:
        sock.settimeout(deadline.remaining())  # sendall: the timeout bounds the whole request
        sock.sendall(request)
        response = http.client.HTTPResponse(_DeadlineSocket(sock, deadline), method=method)
        try:
            try:
                response.begin()
            except ValueError as error:  # http.client's own parsing, should a header defeat it
                raise http.client.HTTPException(f"malformed head: {error}") from None
            return response.status, response.reason, _read_body(response, endpoint, limit)
        finally:
            response.close()
    finally:
        sock.close()


def _http_json(
    endpoint: str, payload: dict | None, timeout: float, max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
) -> Any:
    """GET (``payload`` None) or POST JSON to ``endpoint``; the decoded answer, errors raised."""
    limit = _check_limit(max_response_bytes)
    deadline = _Deadline(timeout)
    data = None if payload is None else json.dumps(payload).encode("utf-8")
    try:
        status, reason, raw = _exchange(endpoint, "GET" if data is None else "POST", data, deadline, limit)
    except _Unreachable as unreachable:
        raise ConnectionError(
            f"Could not reach TensorFlow Serving at {endpoint}: {unreachable.args[0]}. Is the server running "
            "with its REST port published (docker run -p 8501:8501 ...)? See export/README.md."
        ) from None
    except TimeoutError:
        raise ConnectionError(
            f"TensorFlow Serving at {endpoint} did not answer within the {timeout:g} s timeout (connecting, "
            "sending and reading count together); pass a larger timeout= (--timeout) for a slow model"
        ) from None
    except http.client.IncompleteRead as short:
        missing = "a chunk short" if short.expected is None else f"{short.expected:,} bytes short"  # chunked: None
        raise ConnectionError(
            f"TensorFlow Serving at {endpoint} closed the connection {len(short.partial):,} bytes into its answer, "
            f"{missing} of what it announced"
        ) from None
    except OSError as error:  # reset, broken pipe, closed without an answer (RemoteDisconnected)
        raise ConnectionError(
            f"TensorFlow Serving at {endpoint} broke the connection before answering in full: "
            f"{type(error).__name__}: {error}"
        ) from None
    except http.client.HTTPException as error:  # BadStatusLine, LineTooLong, UnknownProtocol, too many headers
        raise ValueError(
            f"{endpoint} did not answer HTTP as TensorFlow Serving does ({type(error).__name__}: "
            f"{_shorten(repr(str(error)), 120)}); is something else listening on that port?"
        ) from None
    if not 200 <= status < 300:
        try:
            parse_predict_response(_decode_json(raw, endpoint), endpoint)
        except ValueError:
            pass  # fall through to the status line below
        except ServingError as error:
            raise ServingError(error.message, status=status) from None
        text = raw.decode("utf-8", "replace").strip()
        raise ServingError(_shorten(text, 1000) or reason or "(no message)", status=status)
    return _decode_json(raw, endpoint)


def _decode_json(raw: bytes, endpoint: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))  # RFC 8259: JSON between systems is UTF-8 (no UTF-16/32 guessing)
    except RecursionError:
        raise ValueError(
            f"{endpoint} answered JSON nested deeper than Python's parser goes "
            f"(recursion limit {sys.getrecursionlimit()}); TensorFlow Serving's answers are a few levels deep"
        ) from None
    except ValueError:  # JSONDecodeError, UnicodeDecodeError, an integer of too many digits
        raise ValueError(f"{endpoint} answered with non-JSON content: {raw[:200]!r}") from None


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def predict(
    url: str,
    model: str,
    payload: dict,
    version: int | None = None,
    timeout: float = 10.0,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
) -> Any:
    """POST ``payload`` to a model's ``:predict`` endpoint and return its predictions/outputs.

    ``url`` is the server's base, e.g. ``http://localhost:8501``. ``timeout``
    bounds the whole request (connect, send, every read) and at most
    ``max_response_bytes`` of answer are read. Raises ``ServingError`` when the
    server answers with an error, ``ConnectionError`` when no complete answer
    comes in time and ``ValueError`` for an answer TensorFlow Serving never gives.
    """
    endpoint = predict_url(url, model, version)
    return parse_predict_response(_http_json(endpoint, payload, timeout, max_response_bytes), endpoint)


def model_metadata(
    url: str,
    model: str,
    version: int | None = None,
    timeout: float = 10.0,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
) -> dict:
    """GET a model's ``/metadata``: the JSON form of ``GetModelMetadataResponse``.

    ``answer["metadata"]["signature_def"]["signature_def"]["serving_default"]["inputs"]``
    maps each input name to its ``dtype`` (e.g. ``"DT_FLOAT"``) and ``tensor_shape``.
    ``timeout`` and ``max_response_bytes`` work as in ``predict``.
    """
    body = _http_json(metadata_url(url, model, version), None, timeout, max_response_bytes)
    if isinstance(body, dict) and "error" in body:
        raise ServingError(str(body["error"]))
    return body


# --- gRPC (optional: tensorflow-serving-api) -----------------------------------


def _grpc_apis() -> Any:
    """``(grpc, tf, predict_pb2, get_model_metadata_pb2, prediction_service_pb2_grpc)``, imported now."""
    try:
        import grpc
        import tensorflow as tf
        from tensorflow_serving.apis import get_model_metadata_pb2, predict_pb2, prediction_service_pb2_grpc
    except ImportError as exc:
        raise ImportError(
            f"gRPC calls need the optional package tensorflow-serving-api ({exc}): "
            "pip install 'tensorflow-serving-api>=2.21,<2.22' (tfkit's 'serving' extra), "
            "or use the REST functions, which need only the standard library."
        ) from exc
    return grpc, tf, predict_pb2, get_model_metadata_pb2, prediction_service_pb2_grpc


def _model_spec(spec: Any, model_name: str, version: int | None, signature_name: str | None) -> None:
    if not model_name:
        raise ValueError("model name must be a non-empty string")
    spec.name = model_name
    if version is not None:
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise ValueError(f"version must be a non-negative integer, got {version!r}")
        spec.version.value = version
    if signature_name is not None:
        spec.signature_name = signature_name


def _grpc_call(grpc: Any, target: str, method: str, request: Any, deadline: _Deadline, limit: int) -> Any:
    """One unary ``PredictionService`` call on a fresh channel, within what is left of ``deadline``;
    answers past ``limit`` bytes are refused by gRPC itself; gRPC errors become ours."""
    _, _, _, _, service = _grpc_apis()
    timeout_message = (
        f"TensorFlow Serving over gRPC at {target} did not answer within the {deadline.seconds:g} s timeout "
        "(connecting, sending and reading count together); pass a larger timeout= (--timeout) for a slow model"
    )
    try:
        seconds = deadline.remaining()
    except TimeoutError:
        raise ConnectionError(timeout_message) from None
    options = [("grpc.max_receive_message_length", min(limit, 2**31 - 1))]
    with grpc.insecure_channel(target, options=options) as channel:
        stub = service.PredictionServiceStub(channel)
        try:
            return getattr(stub, method)(request, timeout=seconds)
        except grpc.RpcError as exc:
            code, details = exc.code(), exc.details() or ""
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise ConnectionError(timeout_message) from None
            if code == grpc.StatusCode.UNAVAILABLE:
                raise ConnectionError(
                    f"Could not reach TensorFlow Serving over gRPC at {target} ({code.name}: {details}). "
                    "Is the server running with its gRPC port published (docker run -p 8500:8500 ...)? "
                    "See export/README.md."
                ) from None
            sizes = re.search(r"larger than max \((\d+) vs\. (\d+)\)", details)
            if code == grpc.StatusCode.RESOURCE_EXHAUSTED and sizes and int(sizes.group(2)) == options[0][1]:
                raise ValueError(
                    f"{target} answered a {int(sizes.group(1)):,}-byte {method} message, more than "
                    f"max_response_bytes={limit:,} (--max-response-bytes)"
                ) from None
            raise ServingError(details or code.name, code=code.name) from None


def grpc_model_metadata(
    target: str,
    model_name: str,
    version: int | None = None,
    timeout: float = 10.0,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
) -> dict:
    """``PredictionService.GetModelMetadata`` over gRPC, as the same dict that REST's ``/metadata`` answers.

    ``target`` is ``host:port`` of the gRPC port (8500 by default in TF Serving's
    image). The ``signature_def`` metadata (a packed ``SignatureDefMap``) is
    unpacked, so ``answer["metadata"]["signature_def"]["signature_def"]`` maps
    signature names to their inputs and outputs. ``timeout`` and
    ``max_response_bytes`` work as in ``predict``.
    """
    return _grpc_metadata(target, model_name, version, _Deadline(timeout), _check_limit(max_response_bytes))


def _grpc_metadata(target: str, model_name: str, version: int | None, deadline: _Deadline, limit: int) -> dict:
    grpc, _, _, metadata_pb2, _ = _grpc_apis()
    from google.protobuf import json_format
    from google.protobuf.message import DecodeError

    request = metadata_pb2.GetModelMetadataRequest(metadata_field=["signature_def"])
    _model_spec(request.model_spec, model_name, version, None)
    response = _grpc_call(grpc, target, "GetModelMetadata", request, deadline, limit)
    signatures = metadata_pb2.SignatureDefMap()
    try:
        unpacked = response.metadata["signature_def"].Unpack(signatures)
    except DecodeError as error:
        raise ValueError(f"{target} answered signature_def metadata that does not parse ({error})") from None
    if not unpacked:
        raise ValueError(
            f"{target} answered signature_def metadata of type {response.metadata['signature_def'].type_url}"
        )
    as_dict = {"always_print_fields_with_no_presence": True, "preserving_proto_field_name": True}  # as REST prints
    answer = {"model_spec": json_format.MessageToDict(response.model_spec, **as_dict)}
    answer["metadata"] = {"signature_def": json_format.MessageToDict(signatures, **as_dict)}
    return answer


def grpc_predict(
    target: str,
    model_name: str,
    inputs: Any,
    signature_name: str = "serving_default",
    version: int | None = None,
    timeout: float = 10.0,
    output_filter: Sequence[str] | None = None,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
) -> dict:
    """``PredictionService.Predict`` over gRPC: ``{output name: numpy array}``.

    ``inputs`` is ``{input name: array-like}``; a single array is sent under the
    signature's only input name (looked up with ``grpc_model_metadata``). Each
    value is converted with ``tf.make_tensor_proto`` in the dtype the signature
    declares when the name is known, and the answer's ``TensorProto``s come back
    through ``tf.make_ndarray``. ``timeout`` bounds the look-up and the
    ``Predict`` call together; ``max_response_bytes`` bounds each answer.
    """
    grpc, tf, predict_pb2, _, _ = _grpc_apis()
    from tensorflow.core.framework import types_pb2

    deadline, limit = _Deadline(timeout), _check_limit(max_response_bytes)
    signature = None
    if not isinstance(inputs, dict) or not all(isinstance(name, str) for name in inputs):
        signature = _signature(target, model_name, signature_name, version, deadline, limit)
        names = sorted(signature.get("inputs", {}))
        if len(names) != 1:
            raise ValueError(
                f"signature {signature_name!r} of {model_name!r} takes inputs {names}: pass inputs={{name: array, ...}}"
            )
        inputs = {names[0]: inputs}
    request = predict_pb2.PredictRequest()
    _model_spec(request.model_spec, model_name, version, signature_name)
    declared = (signature or {}).get("inputs", {})
    for name, value in inputs.items():
        dtype = declared.get(name, {}).get("dtype")  # "DT_FLOAT": a tensorflow.DataType enum name
        dtype = tf.as_dtype(types_pb2.DataType.Value(dtype)) if dtype else None
        request.inputs[name].CopyFrom(tf.make_tensor_proto(value, dtype=dtype))
    request.output_filter.extend(output_filter or [])
    response = _grpc_call(grpc, target, "Predict", request, deadline, limit)
    return {name: _to_array(tf, proto, f"{target} output {name!r}", limit) for name, proto in response.outputs.items()}


def _to_array(tf: Any, proto: Any, what: str, limit: int) -> Any:
    """``tf.make_ndarray(proto)``, once its shape is known to fit in ``limit`` bytes.

    A ``TensorProto`` may declare any shape and give a single value to repeat over it: a 20-byte answer
    could make ``make_ndarray`` fill gigabytes. The answer's size is bounded by ``max_response_bytes``; so is
    the array made from it (at least one byte counted per element, for strings).
    """
    dims = [dim.size for dim in proto.tensor_shape.dim]
    if any(size < 0 for size in dims):
        raise ValueError(f"{what} has the shape {dims}: a negative dimension")
    elements = 1
    for size in dims:
        elements *= size
    try:
        dtype = tf.as_dtype(proto.dtype)
        itemsize = max(dtype.size, 1) if dtype != tf.string else 1
    except TypeError as error:
        raise ValueError(f"{what} has an unknown dtype ({error})") from None
    if elements * itemsize > limit:
        raise ValueError(
            f"{what} declares {elements:,} elements of shape {dims}, more than "
            f"max_response_bytes={limit:,} bytes would hold (--max-response-bytes)"
        )
    try:
        return tf.make_ndarray(proto)
    # KeyError: a dtype with no numpy twin; OverflowError: an int_val out of the dtype's range (uint16)
    except (ValueError, TypeError, IndexError, KeyError, OverflowError) as error:
        raise ValueError(f"{what} is not a readable tensor ({type(error).__name__}: {error})") from None


def _signature(
    target: str, model_name: str, signature_name: str, version: int | None, deadline: _Deadline, limit: int
) -> dict:
    signatures = _grpc_metadata(target, model_name, version, deadline, limit)["metadata"]["signature_def"]
    signatures = signatures.get("signature_def", {})
    if signature_name not in signatures:
        raise ServingError(f'Serving signature key "{signature_name}" not found; the model has {sorted(signatures)}')
    return signatures[signature_name]


# --- command line --------------------------------------------------------------


def parse_shape(text: str) -> tuple[int, ...]:
    """``"1x784"`` -> ``(1, 784)``."""
    try:
        shape = tuple(int(part) for part in text.lower().split("x"))
    except ValueError:
        shape = ()
    if not shape or any(dim <= 0 for dim in shape):
        raise ValueError(f"expected a shape like 1x784 (positive sizes joined by 'x'), got {text!r}")
    return shape


def random_tensor(shape: Sequence[int], seed: int | None = None) -> list:
    """Nested lists of uniform floats in [0, 1) with the given shape."""
    rng = random.Random(seed)

    def fill(dims: Sequence[int]) -> Any:
        if len(dims) == 1:
            return [rng.random() for _ in range(dims[0])]
        return [fill(dims[1:]) for _ in range(dims[0])]

    return fill(tuple(shape))


def read_inputs(path: str) -> Any:
    """A batch from ``.npy`` (needs numpy, cast to float32) or ``.json`` (nested lists)."""
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as handle:
            try:
                return json.load(handle)
            except RecursionError:
                raise ValueError(f"{path}: JSON nested deeper than Python's parser goes") from None
    try:
        import numpy as np
    except ImportError as exc:
        raise SystemExit(f"reading {path} needs numpy; pass a .json file or --random instead") from exc
    return np.load(path, allow_pickle=False).astype("float32").tolist()


def _shape_argument(text: str) -> tuple[int, ...]:
    try:
        return parse_shape(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive(kind: type) -> Any:
    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not 0 < value < math.inf:
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text!r}")
        return value

    return convert


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Send a predict request to TensorFlow Serving.")
    parser.add_argument("--model", required=True, help="served model name, e.g. vae")
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, default=8501, help="REST port (default 8501)")
    parser.add_argument("--version", type=int, default=None, help="model version (default: latest)")
    parser.add_argument("--signature-name", default=None, help="non-default serving signature")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--inputs", metavar="FILE", help="batch as .npy (numpy) or .json")
    source.add_argument(
        "--random",
        metavar="SHAPE",
        type=_shape_argument,
        default=None,
        help="random batch in [0, 1), e.g. 1x784 (the default when --inputs is not given)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for --random")
    parser.add_argument("--columnar", action="store_true", help='send {"inputs": ...}')
    parser.add_argument(
        "--timeout",
        type=_positive(float),
        default=10.0,
        help="seconds for the whole request: connecting, sending and reading together (default 10)",
    )
    parser.add_argument(
        "--max-response-bytes",
        type=_positive(int),
        default=DEFAULT_MAX_RESPONSE_BYTES,
        metavar="N",
        help=f"refuse an answer larger than N bytes (default {DEFAULT_MAX_RESPONSE_BYTES})",
    )
    parser.add_argument(
        "--grpc",
        metavar="HOST:PORT",
        default=None,
        help="call PredictionService over gRPC at HOST:PORT (e.g. localhost:8500) instead of REST; "
        "needs tensorflow-serving-api",
    )
    parser.add_argument("--metadata", action="store_true", help="print the model's metadata (signatures) instead")
    return parser


def _answer(args: argparse.Namespace) -> Any:
    """What the command line asked for, as JSON-ready data."""
    limits = {"timeout": args.timeout, "max_response_bytes": args.max_response_bytes}
    url = f"http://{args.host}:{args.port}"
    if args.metadata:
        if args.grpc is None:
            return model_metadata(url, args.model, version=args.version, **limits)
        return grpc_model_metadata(args.grpc, args.model, version=args.version, **limits)
    batch = read_inputs(args.inputs) if args.inputs else random_tensor(args.random or (1, 784), seed=args.seed)
    if args.grpc is not None:
        outputs = grpc_predict(
            args.grpc,
            args.model,
            batch,
            signature_name=args.signature_name or "serving_default",
            version=args.version,
            **limits,
        )
        return {name: value.tolist() for name, value in outputs.items()}
    if args.columnar:
        payload = build_predict_request(inputs=batch, signature_name=args.signature_name)
    else:
        payload = build_predict_request(instances=batch, signature_name=args.signature_name)
    return predict(url, args.model, payload, version=args.version, **limits)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; 0 with the answer as JSON on stdout, or 1 with one error line on stderr."""
    args = build_parser().parse_args(argv)
    try:
        answer = _answer(args)
    except (ServingError, ValueError, ImportError, OSError) as exc:  # OSError: ConnectionError, an unreadable --inputs
        print(_one_line(str(exc)), file=sys.stderr)
        return 1
    print(json.dumps(answer))
    return 0


def _one_line(message: str) -> str:
    return _shorten(" ".join(part.strip() for part in message.splitlines() if part.strip()), 2000)


if __name__ == "__main__":
    sys.exit(main())
