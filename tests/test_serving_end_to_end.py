"""export/client.py end to end, REST and gRPC, against a loopback stand-in for TensorFlow Serving.

The server here is NOT TensorFlow Serving: no TF Serving binary can be installed
where these tests run, so ``tests/serving_stand_in.py`` loads the real exported
SavedModel with ``tf.saved_model.load`` and answers TF Serving's documented REST
API and ``PredictionService`` gRPC protocol on 127.0.0.1. The request and
response shapes checked below, field by field, are those of TF Serving's
documentation (https://www.tensorflow.org/tfx/serving/api_rest) and protos
(``predict.proto``, ``get_model_metadata.proto``).
"""

import importlib.util
import json
import math
import signal
import socket
import threading
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tensorflow_serving.apis.prediction_service_pb2_grpc")
grpc = pytest.importorskip("grpc")

import tensorflow as tf  # noqa: E402
import time_limits  # noqa: E402
from serving_stand_in import ServingStandIn, read_model_config  # noqa: E402

import tfkit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("export_client", ROOT / "export" / "client.py")
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)

X = np.random.RandomState(0).normal(size=(3, 4)).astype("float32")
TEST_SECONDS = 60  # on a quiet machine; time_limits adds the margin the machine's load asks for
REQUEST_SECONDS = 10  # a request to the stand-in (which answers in milliseconds): a hang detector, scaled alike


@pytest.fixture(autouse=True)
def time_limit():
    """Fail a test that runs past TEST_SECONDS (times the load) instead of hanging on a socket."""
    limit = math.ceil(time_limits.seconds(TEST_SECONDS))

    def expire(*_):
        raise TimeoutError(f"test ran past {limit} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(limit)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A tfkit model exported as version 1 of "dense" and a stand-in serving it; stopped at the end."""
    model = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(2)])
    base = tmp_path_factory.mktemp("models") / "dense"
    path = model.export(str(base), version=1, warmup_inputs=X[:1])
    server = ServingStandIn({"dense": str(base)}).start()
    try:
        yield model, path, server
    finally:
        server.stop()


def _names(path):
    signature = tf.saved_model.load(path).signatures["serving_default"]
    return list(signature.structured_input_signature[1]), list(signature.structured_outputs)


def _http(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, data=data, method=method), timeout=time_limits.seconds(REQUEST_SECONDS)
        ) as answer:
            return answer.status, answer.headers["Content-Type"], json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], json.loads(error.read())


# --- REST ---------------------------------------------------------------------------------


def test_rest_row_and_columnar_predictions_equal_model_predict(served):
    model, _, server = served
    url = f"http://127.0.0.1:{server.rest_port}"
    expected = model.predict(X, verbose=0)
    rows = client.predict(url, "dense", client.build_predict_request(instances=X))
    np.testing.assert_allclose(rows, expected, rtol=1e-6, atol=1e-6)
    columns = client.predict(url, "dense", client.build_predict_request(inputs=X), version=1)
    np.testing.assert_allclose(columns, expected, rtol=1e-6, atol=1e-6)


def test_rest_answers_have_the_documented_shape(served):
    model, path, server = served
    (input_name,), (output_name,) = _names(path)
    base = f"http://127.0.0.1:{server.rest_port}/v1/models/dense"
    # Row format: {"instances": [...]} -> {"predictions": [...]}, one item per example.
    status, content_type, body = _http("POST", base + ":predict", {"instances": X.tolist()})
    assert (status, content_type) == (200, "application/json")
    assert list(body) == ["predictions"] and len(body["predictions"]) == 3
    assert all(len(row) == 2 for row in body["predictions"])
    # Row format with named inputs: one object per example.
    status, _, named = _http("POST", base + ":predict", {"instances": [{input_name: row} for row in X.tolist()]})
    assert status == 200
    np.testing.assert_allclose(named["predictions"], body["predictions"], rtol=1e-6)
    # Columnar format: {"inputs": {name: tensor}} -> {"outputs": tensor}, names omitted for one output.
    status, _, columnar = _http(
        "POST", base + "/versions/1:predict", {"signature_name": "serving_default", "inputs": {input_name: X.tolist()}}
    )
    assert status == 200 and list(columnar) == ["outputs"]
    np.testing.assert_allclose(columnar["outputs"], model.predict(X, verbose=0), rtol=1e-6, atol=1e-6)


def test_rest_metadata_and_status_fields(served):
    _, path, server = served
    url = f"http://127.0.0.1:{server.rest_port}"
    (input_name,), (output_name,) = _names(path)
    answer = client.model_metadata(url, "dense")
    assert answer["model_spec"] == {"name": "dense", "signature_name": "", "version": "1"}
    signature = answer["metadata"]["signature_def"]["signature_def"]["serving_default"]
    assert signature["method_name"] == "tensorflow/serving/predict"
    assert list(signature["inputs"]) == [input_name] and list(signature["outputs"]) == [output_name]
    assert signature["inputs"][input_name]["dtype"] == "DT_FLOAT"
    assert signature["inputs"][input_name]["tensor_shape"]["dim"] == [
        {"size": "-1", "name": ""},
        {"size": "4", "name": ""},
    ]
    assert signature["inputs"][input_name]["tensor_shape"]["unknown_rank"] is False
    assert signature["outputs"][output_name]["dtype"] == "DT_FLOAT"
    assert signature["outputs"][output_name]["tensor_shape"]["dim"] == [
        {"size": "-1", "name": ""},
        {"size": "2", "name": ""},
    ]
    status, _, body = _http("GET", url + "/v1/models/dense")
    assert status == 200
    assert body == {
        "model_version_status": [
            {"version": "1", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}
        ]
    }


def test_rest_errors_answer_an_http_status_and_an_error_object(served):
    _, _, server = served
    url = f"http://127.0.0.1:{server.rest_port}"
    # The documented example: unknown model -> 404 {"error": "Servable not found for request: Latest(half)"}.
    status, content_type, body = _http("POST", url + "/v1/models/half:predict", {"instances": [1.0, 5.0]})
    assert (status, content_type, body) == (
        404,
        "application/json",
        {"error": "Servable not found for request: Latest(half)"},
    )
    with pytest.raises(client.ServingError) as raised:
        client.predict(url, "dense", {"instances": X.tolist()}, version=7)
    assert (raised.value.status, raised.value.message) == (404, "Servable not found for request: Specific(dense, 7)")
    with pytest.raises(client.ServingError) as raised:
        client.predict(url, "dense", {"signature_name": "nope", "instances": X.tolist()})
    assert (raised.value.status, raised.value.message) == (400, 'Serving signature key "nope" not found.')
    with pytest.raises(client.ServingError, match="HTTP 404"):
        client.model_metadata(url, "half")


# --- gRPC ---------------------------------------------------------------------------------


def test_grpc_predict_equals_model_predict(served):
    model, path, server = served
    target = f"127.0.0.1:{server.grpc_port}"
    (input_name,), (output_name,) = _names(path)
    expected = model.predict(X, verbose=0)
    outputs = client.grpc_predict(target, "dense", {input_name: X})
    assert list(outputs) == [output_name]
    assert outputs[output_name].dtype == np.float32 and outputs[output_name].shape == (3, 2)
    np.testing.assert_allclose(outputs[output_name], expected, rtol=1e-6, atol=1e-6)
    # A bare batch goes to the signature's only input (its name from GetModelMetadata), as float32.
    outputs = client.grpc_predict(target, "dense", X.astype("float64").tolist(), version=1, output_filter=[output_name])
    np.testing.assert_allclose(outputs[output_name], expected, rtol=1e-6, atol=1e-6)


def test_grpc_predict_response_fields(served):
    from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc

    _, path, server = served
    (input_name,), (output_name,) = _names(path)
    request = predict_pb2.PredictRequest()
    request.model_spec.name = "dense"
    request.inputs[input_name].CopyFrom(tf.make_tensor_proto(X))
    with grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
        response = prediction_service_pb2_grpc.PredictionServiceStub(channel).Predict(
            request, timeout=time_limits.seconds(REQUEST_SECONDS)
        )
    # PredictResponse: model_spec (name, version, the signature used) and outputs keyed by output alias.
    assert response.model_spec.name == "dense"
    assert response.model_spec.HasField("version") and response.model_spec.version.value == 1
    assert response.model_spec.signature_name == "serving_default"
    assert list(response.outputs) == [output_name]
    tensor = response.outputs[output_name]
    assert tensor.dtype == tf.float32.as_datatype_enum
    assert [dim.size for dim in tensor.tensor_shape.dim] == [3, 2]


def test_grpc_metadata_fields(served):
    _, path, server = served
    (input_name,), (output_name,) = _names(path)
    target = f"127.0.0.1:{server.grpc_port}"
    answer = client.grpc_model_metadata(target, "dense")
    assert answer["model_spec"] == {"name": "dense", "signature_name": "", "version": "1"}
    signatures = answer["metadata"]["signature_def"]["signature_def"]
    assert "serving_default" in signatures
    signature = signatures["serving_default"]
    assert signature["method_name"] == "tensorflow/serving/predict"
    assert signature["inputs"][input_name]["dtype"] == "DT_FLOAT"
    assert signature["inputs"][input_name]["tensor_shape"]["dim"] == [
        {"size": "-1", "name": ""},
        {"size": "4", "name": ""},
    ]
    assert signature["outputs"][output_name]["tensor_shape"]["dim"] == [
        {"size": "-1", "name": ""},
        {"size": "2", "name": ""},
    ]
    # The same answer as REST's /metadata.
    rest = client.model_metadata(f"http://127.0.0.1:{server.rest_port}", "dense")
    assert rest["metadata"] == answer["metadata"]


def test_grpc_errors_carry_tf_serving_status_codes(served):
    from tensorflow_serving.apis import get_model_metadata_pb2, prediction_service_pb2_grpc

    _, path, server = served
    (input_name,), _ = _names(path)
    target = f"127.0.0.1:{server.grpc_port}"
    with pytest.raises(client.ServingError) as raised:
        client.grpc_predict(target, "half", {input_name: X})
    assert (raised.value.code, raised.value.message) == ("NOT_FOUND", "Servable not found for request: Latest(half)")
    with pytest.raises(client.ServingError) as raised:
        client.grpc_model_metadata(target, "dense", version=7)
    assert (raised.value.code, raised.value.message) == (
        "NOT_FOUND",
        "Servable not found for request: Specific(dense, 7)",
    )
    with pytest.raises(client.ServingError) as raised:
        client.grpc_predict(target, "dense", {input_name: X}, signature_name="nope")
    assert raised.value.code == "FAILED_PRECONDITION"
    with pytest.raises(client.ServingError) as raised:
        client.grpc_predict(target, "dense", {"wrong": X})
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.message.startswith("input size does not match signature")
    # GetModelMetadata needs metadata_field=["signature_def"].
    request = get_model_metadata_pb2.GetModelMetadataRequest()
    request.model_spec.name = "dense"
    with grpc.insecure_channel(target) as channel, pytest.raises(grpc.RpcError) as raised:
        prediction_service_pb2_grpc.PredictionServiceStub(channel).GetModelMetadata(
            request, timeout=time_limits.seconds(REQUEST_SECONDS)
        )
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert raised.value.details() == "GetModelMetadataRequest must specify at least one metadata_field"


def test_grpc_unreachable_server_is_a_connection_error():
    with socket.socket() as held:  # a bound port that nothing listens on
        held.bind(("127.0.0.1", 0))
        with pytest.raises(ConnectionError, match="gRPC"):
            client.grpc_predict(f"127.0.0.1:{held.getsockname()[1]}", "dense", {"x": X}, timeout=2)


# --- command line, warmup, models.config -------------------------------------------------


def test_cli_speaks_rest_and_grpc(served, capsys):
    model, path, server = served
    _, (output_name,) = _names(path)
    expected = model.predict(X, verbose=0)
    batch_file = Path(path).parent.parent / "batch.json"
    batch_file.write_text(json.dumps(X.tolist()))
    assert client.main(["--model", "dense", "--port", str(server.rest_port), "--inputs", str(batch_file)]) == 0
    np.testing.assert_allclose(json.loads(capsys.readouterr().out), expected, rtol=1e-6, atol=1e-6)
    grpc_target = f"127.0.0.1:{server.grpc_port}"
    assert client.main(["--model", "dense", "--grpc", grpc_target, "--inputs", str(batch_file)]) == 0
    np.testing.assert_allclose(json.loads(capsys.readouterr().out)[output_name], expected, rtol=1e-6, atol=1e-6)
    assert client.main(["--model", "dense", "--grpc", grpc_target, "--metadata"]) == 0
    assert json.loads(capsys.readouterr().out)["model_spec"]["name"] == "dense"
    assert client.main(["--model", "nope", "--grpc", grpc_target, "--random", "1x4"]) == 1
    assert "gRPC NOT_FOUND: Servable not found for request: Latest(nope)" in capsys.readouterr().err


def test_the_warmup_file_is_replayed_on_load(served):
    _, _, server = served
    assert server.servable("dense", 1).warmup_replayed == 1  # one signature, one request


def test_models_config_names_only_models_the_documented_commands_export(tmp_path):
    """TF Serving waits for every configured model: each must be one that export/README.md's commands write."""
    model = tfkit.Sequential([tfkit.Input((4,)), tfkit.layers.Dense(2)])
    config = read_model_config(str(ROOT / "export" / "models.config"), {"/models": str(tmp_path)})
    readme = (ROOT / "export" / "README.md").read_text()
    for name, (base, versions) in config.items():
        assert f"export/models/{name}/" in readme, f"models.config serves {name!r}, which no documented command exports"
        for version in versions or [1]:
            model.export(base, version=version)  # stands in for the documented export of that version
    before = set(threading.enumerate())
    server = ServingStandIn(config).start()  # raises if a configured version is missing
    try:
        for name in config:
            assert client.model_metadata(f"http://127.0.0.1:{server.rest_port}", name)["model_spec"]["name"] == name
    finally:
        server.stop()
    left = [t.name for t in set(threading.enumerate()) - before if t.name.startswith("stand-in")]
    assert not left  # the stand-in stops the threads it started
