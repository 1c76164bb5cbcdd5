"""export/client.py against hostile REST servers: one deadline, a size cap, and one error line for each.

    with raw_server(trickle_body) as url:
        error = bounded(lambda: client.predict(url, "vae", PAYLOAD, timeout=0.5))
    assert isinstance(error, ConnectionError)

Each server is a thread of this process on 127.0.0.1 (port 0), stopped when its
test ends; each client call runs in a thread the test waits on for at most
BOUND seconds (tests/hostile_servers.py), so a client that hangs fails the
test instead of hanging it.
"""

import importlib.util
import json
from pathlib import Path

import pytest
from hostile_servers import bounded, drip, hold, raw_server, read_request, reset

CLIENT_PATH = Path(__file__).resolve().parents[1] / "export" / "client.py"
_spec = importlib.util.spec_from_file_location("export_client_hostile", CLIENT_PATH)
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)

PAYLOAD = {"instances": [[1.0, 2.0]]}
LIMIT = 2**20  # max_response_bytes in these tests


# --- behaviours -----------------------------------------------------------------------------


def answer(status, body):
    return f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body


def trickle_body(conn, stop):
    if read_request(conn, stop):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
        drip(conn, stop)


def slow_headers(conn, stop):
    if read_request(conn, stop):
        conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        drip(conn, stop, b"a")


def silent(conn, stop):
    if read_request(conn, stop):
        hold(conn, stop)


def endless_body(conn, stop):
    """Far more than LIMIT bytes with no Content-Length, then held open (8 MiB at most: memory stays bounded)."""
    if read_request(conn, stop):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[")
        for _ in range(128):
            conn.sendall(b"0," * 32768)
        hold(conn, stop)


def endless_chunked_body(conn, stop):
    if read_request(conn, stop):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"0," * 32768
        for _ in range(128):
            conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        hold(conn, stop)


def huge_content_length(conn, stop):
    if read_request(conn, stop):
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n[0,")
        hold(conn, stop)


def deeply_nested(conn, stop):
    if read_request(conn, stop):
        conn.sendall(answer("200 OK", b'{"predictions": ' + b"[" * 100000 + b"]" * 100000 + b"}"))


def deeply_nested_error(conn, stop):
    if read_request(conn, stop):
        conn.sendall(answer("400 Bad Request", b'{"error": ' + b"[" * 100000 + b"]" * 100000 + b"}"))


def short_body(conn, stop):
    if read_request(conn, stop):
        conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"predictions"')


def not_http(conn, stop):
    if read_request(conn, stop):
        conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\nProtocol mismatch.\r\n")


def reset_before_answer(conn, stop):
    if read_request(conn, stop):
        reset(conn)


def reset_mid_body(conn, stop):
    if read_request(conn, stop):
        conn.sendall(
            b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"predictions": [['
        )
        reset(conn)


def closed_without_answer(conn, stop):
    read_request(conn, stop)


def chunked_answer(conn, stop):
    if read_request(conn, stop):
        body = json.dumps({"predictions": [[3.5, 4.0]]}).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        for part in (body[:7], body[7:]):
            conn.sendall(b"%x\r\n%s\r\n" % (len(part), part))
        conn.sendall(b"0\r\n\r\n")


# (server, timeout, error type, words of the message)
HOSTILE = {
    "trickling body": (trickle_body, 0.5, ConnectionError, "did not answer within the 0.5 s timeout"),
    "slow headers": (slow_headers, 0.5, ConnectionError, "did not answer within the 0.5 s timeout"),
    "silent": (silent, 0.5, ConnectionError, "did not answer within the 0.5 s timeout"),
    "endless body": (endless_body, 10.0, ValueError, f"more than max_response_bytes={LIMIT:,}"),
    "endless chunked body": (endless_chunked_body, 10.0, ValueError, f"more than max_response_bytes={LIMIT:,}"),
    "huge Content-Length": (huge_content_length, 10.0, ValueError, "1,000,000,000,000-byte answer"),
    "deeply nested JSON": (deeply_nested, 10.0, ValueError, "nested deeper"),
    "deeply nested error": (deeply_nested_error, 10.0, client.ServingError, "HTTP 400"),
    "short body": (short_body, 10.0, ConnectionError, "closed the connection 14 bytes into its answer"),
    "non-HTTP answer": (not_http, 10.0, ValueError, "did not answer HTTP"),
    "reset before the answer": (reset_before_answer, 10.0, ConnectionError, "broke the connection"),
    "reset mid-body": (reset_mid_body, 10.0, ConnectionError, "TensorFlow Serving at http://127.0.0.1:"),
    "closed without an answer": (closed_without_answer, 10.0, ConnectionError, "broke the connection"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_server_costs_one_clear_error(case):
    behave, timeout, kind, words = HOSTILE[case]
    with raw_server(behave) as url:
        error = bounded(lambda: client.predict(url, "vae", PAYLOAD, timeout=timeout, max_response_bytes=LIMIT))
    assert isinstance(error, kind), repr(error)
    message = str(error)
    assert words in message and "\n" not in message, message
    assert url in message or isinstance(error, client.ServingError), message


@pytest.mark.parametrize(
    "case", ["trickling body", "endless body", "deeply nested JSON", "non-HTTP answer", "short body"]
)
def test_the_command_line_prints_one_line_for_a_hostile_server(case, capsys):
    behave, timeout, _, words = HOSTILE[case]
    with raw_server(behave) as url:
        port = url.rsplit(":", 1)[1]
        code = bounded(
            lambda: client.main(
                [
                    "--model",
                    "vae",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    port,
                    "--random",
                    "1x2",
                    "--timeout",
                    str(timeout),
                    "--max-response-bytes",
                    str(LIMIT),
                ]
            )
        )
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and words in err and "Traceback" not in err, err


def test_metadata_shares_the_deadline():
    with raw_server(trickle_body) as url:
        error = bounded(lambda: client.model_metadata(url, "vae", timeout=0.5))
    assert isinstance(error, ConnectionError) and "0.5 s timeout" in str(error), repr(error)


def test_a_well_behaved_chunked_answer_still_reads():
    with raw_server(chunked_answer) as url:
        assert bounded(lambda: client.predict(url, "vae", PAYLOAD, timeout=10.0)) == [[3.5, 4.0]]


def test_an_answer_at_the_limit_is_read_and_one_byte_more_is_refused():
    body = json.dumps({"predictions": [[0.0] * 1000]}).encode()

    def exact(conn, stop):
        if read_request(conn, stop):
            conn.sendall(answer("200 OK", body))

    with raw_server(exact) as url:
        assert bounded(lambda: client.predict(url, "vae", PAYLOAD, max_response_bytes=len(body))) == [[0.0] * 1000]
        error = bounded(lambda: client.predict(url, "vae", PAYLOAD, max_response_bytes=len(body) - 1))
    assert isinstance(error, ValueError) and f"{len(body):,}-byte answer" in str(error), repr(error)


def test_limits_are_checked():
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        client.predict("http://127.0.0.1:1", "vae", PAYLOAD, timeout=0)
    with pytest.raises(ValueError, match="max_response_bytes must be a positive integer"):
        client.predict("http://127.0.0.1:1", "vae", PAYLOAD, max_response_bytes=0)
    with pytest.raises(SystemExit):
        client.build_parser().parse_args(["--model", "vae", "--timeout", "-1"])
