"""export/client.py end to end, over REST and gRPC, against a loopback stand-in for TensorFlow Serving.

No TensorFlow Serving binary can be installed here, so ``serving_stand_in.py``
stands in for it: it loads the real SavedModel that ``model.export`` wrote and
answers TF Serving's documented REST and gRPC protocols. What is checked is the
client and the export; the server is a stand-in.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import tfkit

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from serving_stand_in import StandIn  # noqa: E402

_spec = importlib.util.spec_from_file_location("export_client", HERE.parent / "export" / "client.py")
client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(client)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("models")
    tfkit.utils.set_random_seed(0)
    inputs = tfkit.Input((4,), name="features")
    model = tfkit.Model(inputs, tfkit.layers.Dense(2, name="scores")(inputs))
    model.export(str(base / "toy"), version=1, verbose=False)
    batch = np.random.default_rng(0).random((3, 4)).astype("float32")
    with StandIn({"toy": str(base / "toy")}) as server:
        yield server, model.predict(batch, verbose=0), batch


def test_rest_predict_row_and_columnar_formats(served):
    server, expected, batch = served
    rows = client.predict(server.rest_url, "toy", client.build_predict_request(instances=batch))
    np.testing.assert_allclose(rows, expected, rtol=1e-6)          # {"predictions": [[...], ...]}
    columns = client.predict(server.rest_url, "toy", client.build_predict_request(inputs={"features": batch}),
                             version=1)
    np.testing.assert_allclose(columns, expected, rtol=1e-6)       # {"outputs": [[...], ...]}


def test_rest_metadata_and_errors_as_tf_serving_documents_them(served):
    server, _, _ = served
    metadata = client.model_metadata(server.rest_url, "toy")
    assert metadata["model_spec"] == {"name": "toy", "signature_name": "", "version": "1"}
    signature = metadata["metadata"]["signature_def"]["signature_def"]["serving_default"]
    assert signature["method_name"] == "tensorflow/serving/predict"
    assert signature["inputs"]["features"]["dtype"] == "DT_FLOAT"
    assert [d["size"] for d in signature["inputs"]["features"]["tensor_shape"]["dim"]] == ["-1", "4"]
    assert list(signature["outputs"]) == ["scores"]
    with pytest.raises(client.ServingError) as caught:
        client.predict(server.rest_url, "nope", client.build_predict_request(instances=[[0.0] * 4]))
    assert caught.value.status == 404 and "Servable not found" in caught.value.message
    with pytest.raises(client.ServingError) as caught:
        client.predict(server.rest_url, "toy", client.build_predict_request(instances=[[0.0] * 4],
                                                                             signature_name="missing"))
    assert caught.value.status == 400 and "missing" in caught.value.message


def test_grpc_predict_and_metadata(served):
    pytest.importorskip("tensorflow_serving.apis")
    server, expected, batch = served
    outputs = client.grpc_predict(server.grpc_target, "toy", {"features": batch})
    assert list(outputs) == ["scores"] and outputs["scores"].dtype == np.float32
    np.testing.assert_allclose(outputs["scores"], expected, rtol=1e-6)
    metadata = client.grpc_model_metadata(server.grpc_target, "toy", version=1)
    assert metadata["model_spec"]["name"] == "toy" and metadata["model_spec"]["version"] == 1
    assert metadata["signature_def"]["serving_default"] == {
        "inputs": {"features": {"dtype": "float32", "shape": [-1, 4]}},
        "outputs": {"scores": {"dtype": "float32", "shape": [-1, 2]}},
        "method_name": "tensorflow/serving/predict",
    }


def test_grpc_errors_name_the_status(served):
    pytest.importorskip("tensorflow_serving.apis")
    server, _, batch = served
    with pytest.raises(client.ServingError, match="NOT_FOUND: Servable not found"):
        client.grpc_predict(server.grpc_target, "nope", {"features": batch})
    with pytest.raises(client.ServingError, match="INVALID_ARGUMENT"):
        client.grpc_predict(server.grpc_target, "toy", {"wrong_name": batch})
    with pytest.raises(ConnectionError, match="Could not reach"):
        client.grpc_predict("127.0.0.1:9", "toy", {"features": batch}, timeout=2)


def test_the_command_line_speaks_grpc(served, capsys):
    pytest.importorskip("tensorflow_serving.apis")
    server, _, _ = served
    assert client.main(["--model", "toy", "--grpc", server.grpc_target, "--input-name", "features",
                        "--random", "2x4"]) == 0
    printed = capsys.readouterr().out
    assert '"scores"' in printed
