"""Hostile servers for client tests: threads of the test process on 127.0.0.1, stopped with the test.

with raw_server(lambda conn, stop: drip(conn, stop)) as url:      # http://127.0.0.1:<port>
    error = bounded(lambda: client.predict(url, "vae", payload, timeout=0.5))
# the server's threads are joined here; bounded() failed the test if the call outlived BOUND seconds
"""

import contextlib
import socket
import struct
import threading

import pytest
import time_limits

# Seconds a client call may take before the test fails (the tests' deadlines are 0.5-2 s), on a quiet machine:
# time_limits stretches it by the machine's load per core. A client whose deadline does not hold never returns.
BOUND = 20.0


@contextlib.contextmanager
def raw_server(behave):
    """``http://127.0.0.1:<port>`` where each connection runs ``behave(conn, stop)`` in its own thread."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    stop = threading.Event()
    workers = []

    def serve_one(conn):
        with conn:
            try:
                behave(conn, stop)
            except OSError:
                pass  # the client gave up and closed its end

    def accept():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            worker = threading.Thread(target=serve_one, args=(conn,), daemon=True)
            workers.append(worker)
            worker.start()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        acceptor.join(5)
        listener.close()
        for worker in workers:
            worker.join(5)
        assert not acceptor.is_alive() and not any(worker.is_alive() for worker in workers), "a server kept running"


def read_request(conn, stop):
    """Read one request (headers and Content-Length body); False when the client left or the test ended."""
    conn.settimeout(0.05)
    data = b""
    while b"\r\n\r\n" not in data or len(data) < _request_size(data):
        if stop.is_set():
            return False
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            return False
        data += chunk
    conn.settimeout(None)
    return True


def _request_size(data):
    head, _, _ = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(head) + 4 + int(value)
    return len(head) + 4


def drip(conn, stop, byte=b" ", every=0.1):
    """One byte every ``every`` seconds until the test ends."""
    while not stop.wait(every):
        conn.sendall(byte)


def hold(conn, stop):
    """Keep the connection open, saying nothing, until the test ends."""
    stop.wait(BOUND)


def reset(conn):
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST


def bounded(call):
    """``call()``'s result or the exception it raised; fails the test if it is still running after BOUND s."""
    outcome = {}

    def run():
        try:
            outcome["value"] = call()
        except BaseException as error:  # noqa: BLE001  handed to the test
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    deadline = time_limits.Deadline(BOUND)
    while worker.is_alive() and not deadline.passed():
        worker.join(min(max(deadline.remaining(), 0.01), 1.0))
    if worker.is_alive():
        pytest.fail(f"the client was still waiting after {deadline.elapsed():.0f} s: its deadline did not hold")
    return outcome.get("error", outcome.get("value"))
