"""RemoteMonitor (issue 19): each epoch's logs POSTed to a loopback HTTP server started (and stopped) by the test."""

import http.server
import json
import socket
import threading
import time
import urllib.parse

import numpy as np
import pytest

import tfkit
from tfkit import callbacks, layers


class _Recorder(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (http.server's name)
        server = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        server.records.append({"path": self.path, "headers": dict(self.headers), "body": body})
        time.sleep(server.delay)
        self.send_response(server.status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    httpd.daemon_threads = True
    httpd.block_on_close = False
    httpd.records, httpd.status, httpd.delay = [], 200, 0.0
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
        assert not thread.is_alive()


def _root(httpd):
    return f"http://127.0.0.1:{httpd.server_address[1]}"


def _fit(monitor, epochs=2):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 3)).astype("float32")
    model = tfkit.Sequential([tfkit.Input((3,)), layers.Dense(1)])
    model.compile("sgd", "mse")
    return model.fit(x, x[:, :1], epochs=epochs, batch_size=8, verbose=0, callbacks=[monitor]).history


def test_posts_a_form_field_with_the_json_logs_each_epoch(server):
    history = _fit(callbacks.RemoteMonitor(root=_root(server), headers={"X-Token": "abc"}))
    assert [r["path"] for r in server.records] == ["/publish/epoch/end/"] * 2
    for epoch, record in enumerate(server.records):
        assert record["headers"]["Content-Type"] == "application/x-www-form-urlencoded"
        assert record["headers"]["X-Token"] == "abc"
        form = urllib.parse.parse_qs(record["body"].decode("ascii"))
        assert list(form) == ["data"]
        sent = json.loads(form["data"][0])
        assert sent == {"epoch": epoch, "loss": pytest.approx(history["loss"][epoch])}


def test_send_as_json_posts_the_body_to_the_given_path(server):
    monitor = callbacks.RemoteMonitor(root=_root(server), path="/events", field="ignored", send_as_json=True)
    history = _fit(monitor, epochs=1)
    (record,) = server.records
    assert record["path"] == "/events"
    assert record["headers"]["Content-Type"] == "application/json"
    assert json.loads(record["body"]) == {"epoch": 0, "loss": pytest.approx(history["loss"][0])}


def test_numpy_values_are_sent_as_numbers_and_lists(server):
    monitor = callbacks.RemoteMonitor(root=_root(server), send_as_json=True)
    monitor.on_epoch_end(3, {"loss": np.float32(0.5), "counts": np.array([1, 2]), "lr": 0.1})
    assert json.loads(server.records[0]["body"]) == {"epoch": 3, "loss": 0.5, "counts": [1, 2], "lr": 0.1}


def test_an_http_error_warns_and_training_goes_on(server):
    server.status = 500
    with pytest.warns(UserWarning, match=r"answered .*/publish/epoch/end/ with HTTP 500"):
        history = _fit(callbacks.RemoteMonitor(root=_root(server)))
    assert len(history["loss"]) == 2 and len(server.records) == 2


def test_an_unreachable_or_slow_server_warns(server):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    with pytest.warns(UserWarning, match=r"Could not reach RemoteMonitor root server at http://127.0.0.1:\d+"):
        callbacks.RemoteMonitor(root=f"http://127.0.0.1:{closed_port}").on_epoch_end(0, {"loss": 1.0})
    server.delay = 1.0
    slow = callbacks.RemoteMonitor(root=_root(server))
    slow.timeout = 0.2
    with pytest.warns(UserWarning, match=r"Could not reach RemoteMonitor root server .*timed out"):
        slow.on_epoch_end(0, {"loss": 1.0})  # gave up at its timeout, before the server answered


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"root": "file:///etc"}, r"root must be an http:// or https:// URL, got root='file:///etc'"),
        ({"root": "localhost:9000"}, "root must be an http:// or https:// URL"),
        ({"headers": ["X-Token"]}, "headers must be a dict of strings"),
    ],
)
def test_bad_arguments_say_what_is_wrong(kwargs, message):
    with pytest.raises(ValueError, match=message):
        callbacks.RemoteMonitor(**kwargs)
