"""A loopback stand-in for TensorFlow Serving, for tests only: NOT TensorFlow Serving.

    server = ServingStandIn({"scorer": "/tmp/models/scorer"}).start()
    predict(f"http://127.0.0.1:{server.rest_port}", "scorer", {"instances": [[0.0] * 4]})
    server.stop()

No TF Serving binary (``tensorflow_model_server`` or its docker image) can be
installed where these tests run, so this module plays its part: it loads the
real SavedModel version folders with ``tf.saved_model.load``, replays each
version's ``assets.extra/tf_serving_warmup_requests`` as TF Serving does on
load, and answers on 127.0.0.1 (ports chosen by the OS):

- REST, following https://www.tensorflow.org/tfx/serving/api_rest:
  ``GET /v1/models/<name>[/versions/<v>]`` (status), ``.../metadata``, and
  ``POST .../<name>[/versions/<v>]:predict`` in row (``instances`` ->
  ``predictions``) and columnar (``inputs`` -> ``outputs``) format; errors
  answer an HTTP error status with ``{"error": "<message>"}``.
- gRPC ``tensorflow.serving.PredictionService`` ``Predict`` and
  ``GetModelMetadata`` (the ``tensorflow-serving-api`` protos), with the
  status codes and messages of TF Serving's ``predict_util.cc`` and
  ``get_model_metadata_impl.cc``.

Its messages for the documented cases are TF Serving's; anything else
(classify/regress, labels, b64 strings, batching) is not implemented.
"""

from __future__ import annotations

import json
import os
import re
import threading
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
import numpy as np
import tensorflow as tf
from google.protobuf import json_format, text_format
from tensorflow.core.protobuf import saved_model_pb2
from tensorflow_serving.apis import get_model_metadata_pb2, predict_pb2, prediction_log_pb2, prediction_service_pb2_grpc
from tensorflow_serving.config import model_server_config_pb2

DEFAULT_SIGNATURE = "serving_default"
WARMUP_FILE = os.path.join("assets.extra", "tf_serving_warmup_requests")
# TF Serving's REST front end maps a status code to an HTTP status (http_rest_api_handler).
HTTP_STATUS = {"INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 400, "NOT_FOUND": 404, "UNIMPLEMENTED": 501}


class Failure(Exception):
    """A request failed with a gRPC status code name and TF Serving's message."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Servable:
    """One loaded version: the SavedModel's functions and its ``SignatureDef`` protos."""

    def __init__(self, name: str, version: int, path: str):
        self.name, self.version, self.path = name, version, path
        with open(os.path.join(path, "saved_model.pb"), "rb") as handle:
            proto = saved_model_pb2.SavedModel.FromString(handle.read())
        self.signature_defs = dict(proto.meta_graphs[0].signature_def)
        self.loaded = tf.saved_model.load(path)
        self.warmup_replayed = 0

    def run(self, signature_name: str, inputs: dict[str, Any], output_filter: list[str] = ()) -> dict[str, np.ndarray]:
        """TF Serving's ``RunPredict``: signature lookup, input checks, outputs by alias."""
        signature_name = signature_name or DEFAULT_SIGNATURE
        if signature_name not in self.signature_defs:
            raise Failure("FAILED_PRECONDITION", f'Serving signature key "{signature_name}" not found.')
        signature = self.signature_defs[signature_name]
        expected, sent = set(signature.inputs), set(inputs)
        if sent != expected:
            raise Failure(
                "INVALID_ARGUMENT",
                f"input size does not match signature: {len(sent)}!={len(expected)} len({{{','.join(sorted(sent))}}}) "
                f"!= len({{{','.join(sorted(expected))}}}). Sent extra: {{{','.join(sorted(sent - expected))}}}. "
                f"Missing but required: {{{','.join(sorted(expected - sent))}}}.",
            )
        for alias in output_filter:
            if alias not in signature.outputs:
                raise Failure(
                    "INVALID_ARGUMENT",
                    f"output tensor alias not found in signature: {alias} Outputs "
                    f"expected to be in the set {{{','.join(sorted(signature.outputs))}}}.",
                )
        tensors = {}
        for name, value in inputs.items():
            dtype = tf.as_dtype(signature.inputs[name].dtype)
            try:
                tensors[name] = tf.convert_to_tensor(
                    np.asarray(value).astype(dtype.as_numpy_dtype) if not isinstance(value, np.ndarray) else value
                )
            except (ValueError, TypeError) as error:
                raise Failure("INVALID_ARGUMENT", f"input {name}: {error}") from None
            if tensors[name].dtype != dtype:
                raise Failure(
                    "INVALID_ARGUMENT",
                    f"Expects arg[{name}] to be {dtype.name} but {tensors[name].dtype.name} is provided",
                )
        try:
            outputs = self.loaded.signatures[signature_name](**tensors)
        except (tf.errors.InvalidArgumentError, ValueError, TypeError) as error:
            raise Failure("INVALID_ARGUMENT", str(error).splitlines()[0]) from None
        names = list(output_filter) or sorted(signature.outputs)
        return {name: outputs[name].numpy() for name in names}

    def replay_warmup(self) -> None:
        """Run every ``PredictLog`` request of the warmup file, as TF Serving does before serving."""
        path = os.path.join(self.path, WARMUP_FILE)
        if not os.path.exists(path):
            return
        for record in tf.data.TFRecordDataset(path):
            log = prediction_log_pb2.PredictionLog.FromString(record.numpy())
            request = log.predict_log.request
            inputs = {name: tf.make_ndarray(proto) for name, proto in request.inputs.items()}
            self.run(request.model_spec.signature_name, inputs, list(request.output_filter))
            self.warmup_replayed += 1


def read_model_config(path: str, mount: dict[str, str]) -> dict[str, tuple[str, list[int] | None]]:
    """``models.config`` (text ``ModelServerConfig``) -> ``{name: (base_path, versions or None)}``.

    ``mount`` maps container paths to host folders (``{"/models": tmp_dir}``),
    like ``docker run -v``. ``versions`` is the ``specific`` policy's list; None
    means the latest version (``latest`` with ``num_versions`` 1 or no policy).
    """
    with open(path, encoding="utf-8") as handle:
        config = text_format.Parse(handle.read(), model_server_config_pb2.ModelServerConfig())
    models = {}
    for entry in config.model_config_list.config:
        base = entry.base_path
        for inside, outside in mount.items():
            if base == inside or base.startswith(inside.rstrip("/") + "/"):
                base = outside + base[len(inside.rstrip("/")) :]
        policy = entry.model_version_policy
        if policy.HasField("specific"):
            versions = list(policy.specific.versions)
        elif policy.HasField("latest") and policy.latest.num_versions > 1:
            raise NotImplementedError("the stand-in serves latest { num_versions: 1 } only")
        else:
            versions = None
        models[entry.name] = (base, versions)
    return models


class ServingStandIn:
    """Loads every configured model version, then serves REST and gRPC on 127.0.0.1 until ``stop``."""

    def __init__(self, models: dict[str, Any]):
        self.servables: dict[str, dict[int, Servable]] = {}
        for name, where in models.items():
            base, versions = where if isinstance(where, tuple) else (where, None)
            found = sorted(int(entry) for entry in os.listdir(base) if entry.isdigit()) if os.path.isdir(base) else []
            wanted = versions if versions is not None else found[-1:]
            missing = [version for version in wanted if version not in found] or ([] if wanted else ["any"])
            if missing:
                # TF Serving would wait for these forever, never becoming ready.
                raise FileNotFoundError(f"model {name!r}: no version folder {missing} under {base}")
            self.servables[name] = {v: Servable(name, v, os.path.join(base, str(v))) for v in wanted}
            for servable in self.servables[name].values():
                servable.replay_warmup()
        self.rest_port = self.grpc_port = None
        self._http = self._grpc = self._thread = self._workers = None

    # --- lookup shared by both protocols ---------------------------------------------

    def servable(self, name: str, version: int | None) -> Servable:
        versions = self.servables.get(name, {})
        if version is None:
            if not versions:
                raise Failure("NOT_FOUND", f"Servable not found for request: Latest({name})")
            return versions[max(versions)]
        if version not in versions:
            raise Failure("NOT_FOUND", f"Servable not found for request: Specific({name}, {version})")
        return versions[version]

    def metadata(self, name: str, version: int | None) -> get_model_metadata_pb2.GetModelMetadataResponse:
        servable = self.servable(name, version)
        response = get_model_metadata_pb2.GetModelMetadataResponse()
        response.model_spec.name = servable.name
        response.model_spec.version.value = servable.version
        signatures = get_model_metadata_pb2.SignatureDefMap()
        for key, signature in servable.signature_defs.items():
            signatures.signature_def[key].CopyFrom(signature)
        response.metadata["signature_def"].Pack(signatures)
        return response

    # --- start and stop -------------------------------------------------------------------

    def start(self) -> "ServingStandIn":
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _rest_handler(self))
        self._http.daemon_threads = True
        self.rest_port = self._http.server_address[1]
        self._thread = threading.Thread(target=self._http.serve_forever, name="stand-in-rest", daemon=True)
        self._thread.start()
        self._workers = futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="stand-in-grpc")
        self._grpc = grpc.server(self._workers)
        prediction_service_pb2_grpc.add_PredictionServiceServicer_to_server(_PredictionService(self), self._grpc)
        self.grpc_port = self._grpc.add_insecure_port("127.0.0.1:0")
        self._grpc.start()
        return self

    def stop(self) -> None:
        if self._grpc is not None:
            self._grpc.stop(grace=None).wait(5)
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._thread.join(5)
        if self._workers is not None:
            self._workers.shutdown(wait=True)
        self._http = self._grpc = self._thread = self._workers = None


class _PredictionService(prediction_service_pb2_grpc.PredictionServiceServicer):
    def __init__(self, server: ServingStandIn):
        self.server = server

    def Predict(self, request: predict_pb2.PredictRequest, context: Any) -> predict_pb2.PredictResponse:
        try:
            version = request.model_spec.version.value if request.model_spec.HasField("version") else None
            servable = self.server.servable(request.model_spec.name, version)
            inputs = {name: tf.make_ndarray(proto) for name, proto in request.inputs.items()}
            outputs = servable.run(request.model_spec.signature_name, inputs, list(request.output_filter))
        except Failure as failure:
            context.abort(getattr(grpc.StatusCode, failure.code), failure.message)
        response = predict_pb2.PredictResponse()
        response.model_spec.name = servable.name
        response.model_spec.version.value = servable.version
        response.model_spec.signature_name = request.model_spec.signature_name or DEFAULT_SIGNATURE
        for name, value in outputs.items():
            response.outputs[name].CopyFrom(tf.make_tensor_proto(value))
        return response

    def GetModelMetadata(self, request: Any, context: Any) -> get_model_metadata_pb2.GetModelMetadataResponse:
        try:
            if not request.HasField("model_spec"):
                raise Failure("INVALID_ARGUMENT", "Missing ModelSpec")
            if not request.metadata_field:
                raise Failure("INVALID_ARGUMENT", "GetModelMetadataRequest must specify at least one metadata_field")
            for field in request.metadata_field:
                if field != "signature_def":
                    raise Failure("INVALID_ARGUMENT", f"Metadata field {field} is not supported")
            version = request.model_spec.version.value if request.model_spec.HasField("version") else None
            return self.server.metadata(request.model_spec.name, version)
        except Failure as failure:
            context.abort(getattr(grpc.StatusCode, failure.code), failure.message)


# --- REST ---------------------------------------------------------------------------------

_PATH = re.compile(r"^/v1/models/(?P<name>[^/:]+)(?:/versions/(?P<version>\d+))?(?P<verb>:predict|/metadata)?$")


def _rows_to_columns(instances: list, names: list[str]) -> dict[str, Any]:
    if instances and all(isinstance(row, dict) for row in instances):
        return {name: [row.get(name) for row in instances] for name in {key for row in instances for key in row}}
    if len(names) != 1:
        raise Failure("INVALID_ARGUMENT", f"instances must be objects naming the inputs {sorted(names)}")
    return {names[0]: instances}


def _predict_json(server: ServingStandIn, name: str, version: int | None, body: Any) -> dict:
    if not isinstance(body, dict):
        raise Failure("INVALID_ARGUMENT", "JSON Value: not an object")
    if ("instances" in body) == ("inputs" in body):
        raise Failure(
            "INVALID_ARGUMENT",
            "Missing 'inputs' or 'instances' key"
            if "inputs" not in body
            else "Request body can not have both 'inputs' and 'instances' keys",
        )
    servable = server.servable(name, version)
    signature_name = body.get("signature_name", "") or DEFAULT_SIGNATURE
    if signature_name not in servable.signature_defs:
        raise Failure("FAILED_PRECONDITION", f'Serving signature key "{signature_name}" not found.')
    names = sorted(servable.signature_defs[signature_name].inputs)
    if "instances" in body:
        if not isinstance(body["instances"], list):
            raise Failure("INVALID_ARGUMENT", "Expecting 'instances' to be an list/array")
        inputs = _rows_to_columns(body["instances"], names)
    else:
        value = body["inputs"]
        inputs = value if isinstance(value, dict) else {names[0] if len(names) == 1 else "inputs": value}
    outputs = servable.run(signature_name, inputs)
    if "instances" in body:
        if len(outputs) == 1:
            return {"predictions": next(iter(outputs.values())).tolist()}
        batch = len(next(iter(outputs.values())))
        return {"predictions": [{key: value[row].tolist() for key, value in outputs.items()} for row in range(batch)]}
    if len(outputs) == 1:
        return {"outputs": next(iter(outputs.values())).tolist()}
    return {"outputs": {key: value.tolist() for key, value in outputs.items()}}


def _rest_handler(server: ServingStandIn) -> type:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def _answer(self, status: int, body: dict) -> None:
            raw = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _serve(self, method: str) -> None:
            match = _PATH.match(self.path)
            try:
                if match is None:
                    raise Failure("NOT_FOUND", f"Malformed request: {method} {self.path}")
                name, verb = match["name"], match["verb"]
                version = int(match["version"]) if match["version"] else None
                if method == "POST" and verb == ":predict":
                    length = int(self.headers.get("Content-Length") or 0)
                    try:
                        body = json.loads(self.rfile.read(length) or b"null")
                    except json.JSONDecodeError as error:
                        raise Failure("INVALID_ARGUMENT", f"JSON Parse error: {error}") from None
                    self._answer(200, _predict_json(server, name, version, body))
                elif method == "GET" and verb == "/metadata":
                    response = server.metadata(name, version)
                    # TF Serving prints fields left at their defaults too ("signature_name": "", "name": "").
                    answer = json_format.MessageToDict(
                        response, always_print_fields_with_no_presence=True, preserving_proto_field_name=True
                    )
                    signatures = get_model_metadata_pb2.SignatureDefMap()
                    response.metadata["signature_def"].Unpack(signatures)
                    # TF Serving's REST answer shows the unpacked SignatureDefMap, without "@type".
                    answer["metadata"] = {
                        "signature_def": json_format.MessageToDict(
                            signatures, always_print_fields_with_no_presence=True, preserving_proto_field_name=True
                        )
                    }
                    self._answer(200, answer)
                elif method == "GET" and verb is None:
                    versions = (
                        [server.servable(name, version)]
                        if version is not None
                        else list(server.servables.get(name, {}).values()) or [server.servable(name, None)]
                    )
                    self._answer(
                        200,
                        {
                            "model_version_status": [
                                {
                                    "version": str(s.version),
                                    "state": "AVAILABLE",
                                    "status": {"error_code": "OK", "error_message": ""},
                                }
                                for s in versions
                            ]
                        },
                    )
                else:
                    raise Failure("NOT_FOUND", f"Malformed request: {method} {self.path}")
            except Failure as failure:
                self._answer(HTTP_STATUS.get(failure.code, 500), {"error": failure.message})

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

    return Handler
