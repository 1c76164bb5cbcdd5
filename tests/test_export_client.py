"""export/client.py: request building, response parsing, and predict() against a fake TF Serving."""

import contextlib
import importlib.util
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

CLIENT_PATH = Path(__file__).resolve().parents[1] / "export" / "client.py"
_spec = importlib.util.spec_from_file_location("export_client", CLIENT_PATH)
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)


# --- request building ------------------------------------------------------------


def test_row_format_request():
    assert client.build_predict_request(instances=[[1.0, 2.0], [3.0, 4.0]]) == {"instances": [[1.0, 2.0], [3.0, 4.0]]}


def test_columnar_request_with_named_inputs_and_signature():
    body = client.build_predict_request(
        inputs={"x": ((1, 2), (3, 4)), "mask": [True, False]}, signature_name="serving_default"
    )
    assert body == {"signature_name": "serving_default", "inputs": {"x": [[1, 2], [3, 4]], "mask": [True, False]}}
    assert json.loads(json.dumps(body)) == body


def test_arrays_become_nested_lists():
    np = pytest.importorskip("numpy")
    batch = np.arange(6, dtype=np.float32).reshape(2, 3) / 2
    body = client.build_predict_request(instances=batch)
    assert body == {"instances": [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]}
    row_objects = client.build_predict_request(instances=[{"x": np.zeros(2, np.float32)}])
    assert row_objects == {"instances": [{"x": [0.0, 0.0]}]}


def test_request_needs_exactly_one_format():
    with pytest.raises(ValueError, match="exactly one of instances="):
        client.build_predict_request()
    with pytest.raises(ValueError, match="exactly one of instances="):
        client.build_predict_request(instances=[1.0], inputs=[1.0])
    with pytest.raises(ValueError, match="instances= must be a list"):
        client.build_predict_request(instances=3.0)
    with pytest.raises(ValueError, match="signature_name must be a non-empty string"):
        client.build_predict_request(inputs=[1.0], signature_name="")


def test_predict_urls():
    assert client.predict_url("http://h:8501/", "vae") == "http://h:8501/v1/models/vae:predict"
    assert client.predict_url("http://h:8501", "vae", version=3) == "http://h:8501/v1/models/vae/versions/3:predict"
    with pytest.raises(ValueError, match="version must be a non-negative integer"):
        client.predict_url("http://h:8501", "vae", version="1")


# --- response parsing -------------------------------------------------------------


def test_parse_row_and_columnar_answers():
    assert client.parse_predict_response({"predictions": [[0.5], [0.25]]}) == [[0.5], [0.25]]
    named = {"outputs": {"z_mean": [[0.1]], "z_log_var": [[0.2]]}}
    assert client.parse_predict_response(named) == {"z_mean": [[0.1]], "z_log_var": [[0.2]]}


def test_parse_error_answers():
    with pytest.raises(client.ServingError, match="Servable not found") as info:
        client.parse_predict_response({"error": "Servable not found for request: Latest(half)"})
    assert info.value.message == "Servable not found for request: Latest(half)"
    with pytest.raises(ValueError, match=r"got keys \['result'\]"):
        client.parse_predict_response({"result": [1]})
    with pytest.raises(ValueError, match="expected a JSON object"):
        client.parse_predict_response([1, 2])
    endpoint = "http://127.0.0.1:8501/v1/models/m:predict"
    with pytest.raises(ValueError, match=r"from http://127\.0\.0\.1:8501/v1/models/m:predict, got keys"):
        client.parse_predict_response({"metadata": {}}, endpoint)


# --- end to end against a fake TensorFlow Serving -------------------------------------

_PREDICT_PATH = re.compile(r"^/v1/models/([^/:]+)(?:/versions/(\d+))?:predict$")


def _half_plus_three(value):
    if isinstance(value, list):
        return [_half_plus_three(item) for item in value]
    if isinstance(value, dict):
        return {key: _half_plus_three(item) for key, item in value.items()}
    return value * 0.5 + 3.0


class FakeServingHandler(BaseHTTPRequestHandler):
    """``POST /v1/models/vae[/versions/N]:predict`` answering 0.5 * x + 3 like TF Serving would."""

    def log_message(self, *args):
        pass

    def _answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, self.headers["Content-Type"], request))
        match = _PREDICT_PATH.match(self.path)
        if not match or match.group(1) != "vae":
            name = match.group(1) if match else self.path
            return self._answer(404, {"error": f"Servable not found for request: Latest({name})"})
        if ("instances" in request) == ("inputs" in request):
            return self._answer(400, {"error": "Missing 'inputs' or 'instances' key"})
        if "instances" in request:
            return self._answer(200, {"predictions": _half_plus_three(request["instances"])})
        return self._answer(200, {"outputs": _half_plus_three(request["inputs"])})


@contextlib.contextmanager
def fake_serving():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeServingHandler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_predict_end_to_end_against_fake_serving(capsys):
    with fake_serving() as (url, requests):
        payload = client.build_predict_request(instances=[[1.0, 2.0], [4.0, 6.0]])
        answer = client.predict(url, "vae", payload, version=1, timeout=5.0)
        exit_code = client.main(
            [
                "--model",
                "vae",
                "--host",
                "127.0.0.1",
                "--port",
                url.rsplit(":", 1)[1],
                "--random",
                "2x3",
                "--columnar",
                "--signature-name",
                "serving_default",
                "--timeout",
                "5",
            ]
        )
        with pytest.raises(client.ServingError, match="Servable not found") as info:
            client.predict(url, "missing", payload, timeout=5.0)
    assert answer == [[3.5, 4.0], [5.0, 6.0]]
    assert info.value.status == 404
    assert exit_code == 0
    sent = client.random_tensor((2, 3), seed=0)
    assert json.loads(capsys.readouterr().out) == _half_plus_three(sent)
    assert [(path, content_type) for path, content_type, _ in requests] == [
        ("/v1/models/vae/versions/1:predict", "application/json"),
        ("/v1/models/vae:predict", "application/json"),
        ("/v1/models/missing:predict", "application/json"),
    ]
    assert requests[1][2] == {"signature_name": "serving_default", "inputs": sent}


def test_unreachable_server_is_a_clear_connection_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    payload = client.build_predict_request(instances=[[0.0]])
    with pytest.raises(ConnectionError, match="Could not reach TensorFlow Serving"):
        client.predict(f"http://127.0.0.1:{port}", "vae", payload, timeout=2.0)


def test_cli_helpers():
    assert client.parse_shape("1x784") == (1, 784)
    with pytest.raises(ValueError, match="shape like 1x784"):
        client.parse_shape("1x0")
    batch = client.random_tensor((2, 3), seed=1)
    assert len(batch) == 2 and all(len(row) == 3 for row in batch)
    assert all(0.0 <= value < 1.0 for row in batch for value in row)
    assert batch == client.random_tensor((2, 3), seed=1)


def test_cli_reads_npy_inputs(tmp_path):
    np = pytest.importorskip("numpy")
    path = tmp_path / "batch.npy"
    np.save(path, np.array([[1, 2]], dtype=np.uint8))
    assert client.read_inputs(str(path)) == [[1.0, 2.0]]
    json_path = tmp_path / "batch.json"
    json_path.write_text("[[0.5, 1.5]]")
    assert client.read_inputs(str(json_path)) == [[0.5, 1.5]]


# --- gRPC is optional --------------------------------------------------------------------


def test_rest_client_imports_no_grpc_and_grpc_calls_name_the_missing_package(monkeypatch):
    import subprocess
    import sys

    probe = (
        f"import importlib.util, sys; s = importlib.util.spec_from_file_location('c', {str(CLIENT_PATH)!r}); "
        "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); "
        "print(sorted(n for n in sys.modules if n.split('.')[0] in ('grpc', 'tensorflow', 'numpy')))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert loaded.stdout.strip() == "[]", loaded.stderr
    for name in ["tensorflow_serving", *[m for m in sys.modules if m.startswith("tensorflow_serving.")]]:
        monkeypatch.setitem(sys.modules, name, None)  # as if tensorflow-serving-api were not installed
    with pytest.raises(ImportError, match="tensorflow-serving-api"):
        client.grpc_predict("localhost:8500", "vae", {"inputs": [[0.0]]})
    with pytest.raises(ImportError, match="tensorflow-serving-api"):
        client.grpc_model_metadata("localhost:8500", "vae")
