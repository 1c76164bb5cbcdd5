"""Target ``serving_json``: the TF Serving REST client's reading of an answer (``export/client.py``).

One input is the bytes a server sends back on the socket: status line, headers
and body. The client's connection is replaced by a socket pair holding those
bytes, so ``predict`` and ``model_metadata`` run their whole answer path: HTTP
parsing (``http.client``), the size limit, JSON decoding and the response
format. Each returns, raises ``ServingError`` (the server's error message) or
``ValueError`` naming the endpoint, or ``ConnectionError`` (an answer cut short);
nothing else. Reference: ``json.loads`` of the body read as UTF-8 (RFC 8259), where the answer is a plain
``Content-Length`` one: ``predict`` returns exactly its ``predictions`` (or
``outputs``).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

from fuzzing.target import Finding, Target, read_guarded, write_seeds
from fuzzing.targets import serving_client

URL, MODEL = "http://127.0.0.1:8501", "fuzz_model"
ENDPOINT = f"{URL}/v1/models/{MODEL}:predict"
_state: dict = {"client": None, "answer": b"", "server_end": None}


def _fake_connect(parts, deadline) -> socket.socket:
    """A socket whose peer has sent the answer and then ended its side (``Connection: close``).

    The peer stays open for reading until the call is over, so the client's
    request lands in its buffer rather than on a closed socket (``EPIPE``).
    """
    ours, theirs = socket.socketpair()
    theirs.sendall(_state["answer"])
    theirs.shutdown(socket.SHUT_WR)
    _state["server_end"] = theirs
    return ours


def _close_server_end() -> None:
    if _state["server_end"] is not None:
        _state["server_end"].close()
        _state["server_end"] = None


def _reference(answer: bytes):
    head, separator, body = answer.partition(b"\r\n\r\n")
    if not separator or not head.startswith(b"HTTP/1.1 200 "):
        return None
    headers = {}
    for line in head.split(b"\r\n")[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            return None
        headers[name.strip().lower()] = value.strip()
    if set(headers) - {b"content-type", b"content-length"} or not headers.get(b"content-length", b"").isdigit():
        return None
    length = int(headers[b"content-length"])
    if len(body) != length:
        return None
    try:
        decoded = json.loads(body.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(decoded, dict) or "error" in decoded:
        return None
    for key in ("predictions", "outputs"):
        if key in decoded:
            return (decoded[key],)
    return None


def _call(read):
    client = _state["client"]
    try:
        return True, read()
    except (client.ServingError, ConnectionError):
        return False, None
    finally:
        _close_server_end()


def check(data: bytes) -> None:
    client = _state["client"]
    _state["answer"] = data
    accepted, result = read_guarded(
        frozenset(), (), URL, lambda: _call(lambda: client.predict(URL, MODEL, {"instances": [[1.0]]}, timeout=5))
    )
    expected = _reference(data)
    if expected is not None and not (accepted and result[0]):
        raise Finding("predict refused a plain 200 answer whose body json.loads reads as predictions")
    if expected is not None and json.dumps(result[1], sort_keys=True) != json.dumps(expected[0], sort_keys=True):
        raise Finding("predict's answer differs from json.loads of the body")
    read_guarded(frozenset(), (), URL, lambda: _call(lambda: client.model_metadata(URL, MODEL, timeout=5)))


def _http(status: str, body: bytes, extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{extra}Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def seeds(folder: Path) -> int:
    chunked = b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"predictions": \r\n5\r\n[1.5]\r\n1\r\n}\r\n0\r\n\r\n'
    metadata = {
        "model_spec": {"name": MODEL, "version": "1"},
        "metadata": {
            "signature_def": {
                "signature_def": {
                    "serving_default": {
                        "inputs": {"x": {"dtype": "DT_FLOAT", "tensor_shape": {"dim": [{"size": "-1"}]}}}
                    }
                }
            }
        },
    }
    named = [
        ("rows", _http("200 OK", json.dumps({"predictions": [[0.1, 0.9], [0.5, 0.5]]}).encode())),
        ("columns", _http("200 OK", json.dumps({"outputs": {"y": [[1.0]], "z": [2]}}).encode())),
        ("error-400", _http("400 Bad Request", b'{"error": "Failed to process element: 0 of \'instances\'"}')),
        ("not-found-404", _http("404 Not Found", b'{ "error": "Servable not found for request: Latest(m)" }')),
        ("html-502", b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 11\r\n\r\n<html></ht>"),
        ("chunked", chunked),
        ("metadata", _http("200 OK", json.dumps(metadata).encode())),
        ("no-length", b'HTTP/1.1 200 OK\r\n\r\n{"predictions": [3]}'),
    ]
    return write_seeds(folder, named)


def setup() -> None:
    client = _state["client"] = serving_client.load()
    client._connect = _fake_connect


TARGET = Target(
    name="serving_json",
    reader="export/client.py REST answers: HTTP, size limit, JSON, response format",
    modules=("tfkit_export_client",),
    guide_modules=("http.client",),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=16384,
    timeout=30,
    dictionary=(
        b"HTTP/1.1 200 OK\r\n",
        b"Content-Length: ",
        b"Transfer-Encoding: chunked\r\n",
        b"\r\n\r\n",
        b'"predictions"',
        b'"outputs"',
        b'"error"',
        b'"signature_def"',
    ),
    suite_runs=3000,
)
