"""export/client.py's gRPC calls against slow, oversized and non-gRPC servers: one deadline, one size cap.

    with grpc_server(delay=1.5) as target:            # a PredictionService that takes 1.5 s a call
        client.grpc_predict(target, "m", [[1.0]], timeout=2.0)  # look-up + Predict > 2 s: ConnectionError

The servers are threads of this process on 127.0.0.1, stopped when the test
ends; each client call is bounded by tests/hostile_servers.py's ``bounded``.
"""

import contextlib
import importlib.util
import threading
from concurrent import futures
from pathlib import Path

import numpy as np
import pytest
from hostile_servers import bounded, hold, raw_server

grpc = pytest.importorskip("grpc")
apis = pytest.importorskip("tensorflow_serving.apis.prediction_service_pb2_grpc")
from tensorflow.core.framework import tensor_pb2, tensor_shape_pb2, types_pb2  # noqa: E402
from tensorflow.core.protobuf import meta_graph_pb2  # noqa: E402
from tensorflow_serving.apis import get_model_metadata_pb2, predict_pb2  # noqa: E402

CLIENT_PATH = Path(__file__).resolve().parents[1] / "export" / "client.py"
_spec = importlib.util.spec_from_file_location("export_client_grpc_hostile", CLIENT_PATH)
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)


def _float_tensor(count):
    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=count)])
    return tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=shape, tensor_content=bytes(4 * count))


class _SlowService(apis.PredictionServiceServicer):
    """Answers after ``delay`` seconds: a signature with input ``x``, and ``floats`` zeros as output ``y``."""

    def __init__(self, stop, delay, floats):
        self.stop, self.delay, self.floats = stop, delay, floats

    def GetModelMetadata(self, request, context):
        self.stop.wait(self.delay)
        signature = meta_graph_pb2.SignatureDef()
        signature.inputs["x"].dtype = types_pb2.DT_FLOAT
        signatures = get_model_metadata_pb2.SignatureDefMap()
        signatures.signature_def["serving_default"].CopyFrom(signature)
        response = get_model_metadata_pb2.GetModelMetadataResponse()
        response.model_spec.name = request.model_spec.name
        response.metadata["signature_def"].Pack(signatures)
        return response

    def Predict(self, request, context):
        self.stop.wait(self.delay)
        response = predict_pb2.PredictResponse()
        response.outputs["y"].CopyFrom(_float_tensor(self.floats))
        return response


@contextlib.contextmanager
def grpc_server(delay=0.0, floats=2):
    """``127.0.0.1:<port>`` of a PredictionService in this process; stopped (its calls cut short) on exit."""
    stop = threading.Event()
    workers = futures.ThreadPoolExecutor(max_workers=4)
    server = grpc.server(workers, options=[("grpc.max_send_message_length", 64 * 2**20)])
    apis.add_PredictionServiceServicer_to_server(_SlowService(stop, delay, floats), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        stop.set()
        server.stop(grace=None).wait(10)
        workers.shutdown(wait=True)


def test_the_signature_look_up_and_predict_share_one_deadline():
    # Each call alone fits in 2 s; together they do not. The old client gave each call the whole timeout.
    with grpc_server(delay=1.5) as target:
        error = bounded(lambda: client.grpc_predict(target, "m", [[1.0]], timeout=2.0))
    assert isinstance(error, ConnectionError), repr(error)
    assert "did not answer within the 2 s timeout" in str(error) and target in str(error)


def test_an_answer_past_max_response_bytes_is_refused_and_the_default_is_the_rests():
    with grpc_server(floats=2**19) as target:  # a 2 MiB output
        error = bounded(
            lambda: client.grpc_predict(target, "m", {"x": np.zeros(1, "float32")}, max_response_bytes=2**20)
        )
        assert isinstance(error, ValueError), repr(error)
        assert "more than max_response_bytes=1,048,576" in str(error) and target in str(error)
    with grpc_server(floats=2**21) as target:  # 8 MiB: past gRPC's own 4 MiB default
        outputs = bounded(lambda: client.grpc_predict(target, "m", {"x": np.zeros(1, "float32")}))
    assert isinstance(outputs, dict) and outputs["y"].shape == (2**21,), repr(outputs)[:300]


def _not_grpc(conn, stop):
    conn.recv(1024)
    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


def _silent(conn, stop):
    hold(conn, stop)


@pytest.mark.parametrize(
    "behave, words",
    [(_not_grpc, "Could not reach TensorFlow Serving over gRPC"), (_silent, "did not answer within the 1 s timeout")],
)
def test_a_server_that_is_not_grpc_or_never_answers_costs_one_line(behave, words, tmp_path, capsys):
    batch = tmp_path / "batch.json"
    batch.write_text("[[1.0]]")  # a bare batch: the client looks up the input name first
    with raw_server(behave) as url:
        target = url.removeprefix("http://")
        code = bounded(
            lambda: client.main(["--model", "m", "--grpc", target, "--inputs", str(batch), "--timeout", "1"])
        )
    out, err = capsys.readouterr()
    assert code == 1 and out == "", (code, out)
    assert err.count("\n") == 1 and words in err and "Traceback" not in err, err
