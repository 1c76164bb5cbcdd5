"""A loopback stand-in for TensorFlow Serving, for testing export/client.py end to end.

    with StandIn({"toy": "export/models/toy"}) as server:      # model name -> base folder (version folders)
        server.rest_url            # http://127.0.0.1:<port>
        server.grpc_target         # 127.0.0.1:<port>

This is NOT TensorFlow Serving: no TF Serving binary can be installed here.
It loads the real SavedModel versions with ``tf.saved_model.load`` and
answers the two protocols TF Serving documents, as they document them:

- REST: ``POST /v1/models/<name>[/versions/<v>]:predict`` with the row
  (``{"instances": [...]}`` -> ``{"predictions": [...]}``) or columnar
  (``{"inputs": ...}`` -> ``{"outputs": ...}``) format and an optional
  ``signature_name``; ``GET /v1/models/<name>[/versions/<v>]/metadata``;
  errors as ``{"error": "..."}`` with a 4xx status.
- gRPC ``tensorflow.serving.PredictionService``: ``Predict`` and
  ``GetModelMetadata`` (``metadata_field: "signature_def"``), with
  ``NOT_FOUND`` / ``INVALID_ARGUMENT`` statuses for bad requests.

Both bind 127.0.0.1 on free ports, run in daemon threads, and stop on exit.
"""

from __future__ import annotations

import json
import os
import threading
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import tensorflow as tf


class NotServed(Exception):
    """No such model or version (TF Serving: NOT_FOUND, HTTP 404)."""


class _Models:
    """The loaded versions of each model: ``{name: {version: loaded SavedModel}}``."""

    def __init__(self, bases: dict[str, str]) -> None:
        self.versions = {}
        for name, base in bases.items():
            found = {int(v): tf.saved_model.load(os.path.join(base, v)) for v in os.listdir(base) if v.isdigit()}
            self.versions[name] = found

    def find(self, name: str, version: int | None) -> tuple[int, Any]:
        versions = self.versions.get(name)
        if not versions:
            raise NotServed(f"Servable not found for request: Latest({name})")
        if version is None:
            version = max(versions)
        if version not in versions:
            raise NotServed(f"Servable not found for request: Specific({name}, {version})")
        return version, versions[version]

    @staticmethod
    def signature(loaded: Any, signature_name: str | None) -> Any:
        name = signature_name or "serving_default"
        if name not in loaded.signatures:
            raise ValueError(f"Serving signature name: \"{name}\" not found in signature def")
        return loaded.signatures[name]


def _input_specs(function: Any) -> dict[str, tf.TensorSpec]:
    return function.structured_input_signature[1]


def _run(function: Any, inputs: dict[str, Any]) -> dict[str, np.ndarray]:
    specs = _input_specs(function)
    missing = sorted(set(specs) - set(inputs))
    extra = sorted(set(inputs) - set(specs))
    if missing or extra:
        raise ValueError(f"input names do not match the signature: missing {missing}, unexpected {extra}")
    tensors = {name: tf.convert_to_tensor(np.asarray(value), dtype=specs[name].dtype) for name, value in inputs.items()}
    return {name: value.numpy() for name, value in function(**tensors).items()}


def _signature_def_json(function: Any, method: str = "tensorflow/serving/predict") -> dict:
    def describe(spec: tf.TensorSpec, name: str) -> dict:
        dims = [{"size": str(-1 if d is None else d), "name": ""} for d in spec.shape.as_list()]
        from tensorflow.core.framework import types_pb2

        return {"dtype": types_pb2.DataType.Name(spec.dtype.as_datatype_enum),   # "DT_FLOAT", as protobuf's JSON
                "tensor_shape": {"dim": dims, "unknown_rank": False}, "name": f"serving_default_{name}:0"}

    outputs = {name: tf.TensorSpec(t.shape, t.dtype) for name, t in function.structured_outputs.items()}
    return {"inputs": {n: describe(s, n) for n, s in _input_specs(function).items()},
            "outputs": {n: describe(s, n) for n, s in outputs.items()}, "method_name": method, "defaults": {}}


def _rest_handler(models: _Models) -> type:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:   # quiet
            pass

        def _answer(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _route(self) -> tuple[str, int | None, str] | None:
            path = self.path
            if not path.startswith("/v1/models/"):
                return None
            rest = path[len("/v1/models/"):]
            action = ""
            if ":" in rest:
                rest, action = rest.split(":", 1)
            elif rest.endswith("/metadata"):
                rest, action = rest[: -len("/metadata")], "metadata"
            parts = rest.split("/")
            version = int(parts[2]) if len(parts) == 3 and parts[1] == "versions" and parts[2].isdigit() else None
            return parts[0], version, action

        def do_GET(self) -> None:
            route = self._route()
            if route is None or route[2] != "metadata":
                self._answer(404, {"error": "Malformed request: GET " + self.path})
                return
            name, version, _ = route
            try:
                version, loaded = models.find(name, version)
            except NotServed as error:
                self._answer(404, {"error": str(error)})
                return
            signatures = {key: _signature_def_json(fn) for key, fn in loaded.signatures.items()}
            self._answer(200, {"model_spec": {"name": name, "signature_name": "", "version": str(version)},
                               "metadata": {"signature_def": {
                                   "@type": "type.googleapis.com/tensorflow.serving.SignatureDefMap",
                                   "signature_def": signatures}}})

        def do_POST(self) -> None:
            route = self._route()
            if route is None or route[2] != "predict":
                self._answer(404, {"error": "Malformed request: POST " + self.path})
                return
            name, version, _ = route
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                _, loaded = models.find(name, version)
                function = models.signature(loaded, body.get("signature_name"))
            except NotServed as error:
                self._answer(404, {"error": str(error)})
                return
            except ValueError as error:
                self._answer(400, {"error": str(error)})
                return
            try:
                self._answer(200, self._predict(function, body))
            except (ValueError, TypeError, tf.errors.OpError) as error:
                self._answer(400, {"error": str(error)[:500]})

        @staticmethod
        def _predict(function: Any, body: dict) -> dict:
            names = list(_input_specs(function))
            if ("instances" in body) == ("inputs" in body):
                raise ValueError("Missing 'inputs' or 'instances' key")
            if "instances" in body:               # row format: one item (or {name: item}) per example
                rows = body["instances"]
                if rows and isinstance(rows[0], dict):
                    inputs = {n: [row[n] for row in rows] for n in names}
                else:
                    if len(names) != 1:
                        raise ValueError(f"the signature has inputs {names}: send one object per instance")
                    inputs = {names[0]: rows}
                outputs = _run(function, inputs)
                if len(outputs) == 1:
                    return {"predictions": next(iter(outputs.values())).tolist()}
                count = len(next(iter(outputs.values())))
                return {"predictions": [{k: v[i].tolist() for k, v in outputs.items()} for i in range(count)]}
            columns = body["inputs"]                 # columnar format: a tensor, or {name: tensor}
            inputs = columns if isinstance(columns, dict) else {names[0]: columns}
            outputs = _run(function, inputs)
            if len(outputs) == 1:
                return {"outputs": next(iter(outputs.values())).tolist()}
            return {"outputs": {k: v.tolist() for k, v in outputs.items()}}

    return Handler


def _grpc_servicer(models: _Models) -> Any:
    import grpc
    from tensorflow_serving.apis import get_model_metadata_pb2, predict_pb2, prediction_service_pb2_grpc

    class Servicer(prediction_service_pb2_grpc.PredictionServiceServicer):
        def _find(self, spec: Any, context: Any) -> tuple[int, Any]:
            version = spec.version.value if spec.HasField("version") else None
            try:
                return models.find(spec.name, version)
            except NotServed as error:
                context.abort(grpc.StatusCode.NOT_FOUND, str(error))

        def Predict(self, request: Any, context: Any) -> Any:
            version, loaded = self._find(request.model_spec, context)
            try:
                function = models.signature(loaded, request.model_spec.signature_name)
                outputs = _run(function, {k: tf.make_ndarray(v) for k, v in request.inputs.items()})
            except (ValueError, TypeError, tf.errors.OpError) as error:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error)[:500])
            response = predict_pb2.PredictResponse()
            response.model_spec.name = request.model_spec.name
            response.model_spec.version.value = version
            response.model_spec.signature_name = request.model_spec.signature_name or "serving_default"
            for name, value in outputs.items():
                response.outputs[name].CopyFrom(tf.make_tensor_proto(value))
            return response

        def GetModelMetadata(self, request: Any, context: Any) -> Any:
            version, loaded = self._find(request.model_spec, context)
            if list(request.metadata_field) != ["signature_def"]:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, "Metadata field signature_def is required")
            signatures = get_model_metadata_pb2.SignatureDefMap()
            for key, function in loaded.signatures.items():
                entry = signatures.signature_def[key]
                entry.method_name = "tensorflow/serving/predict"
                for direction, specs in (("inputs", _input_specs(function)),
                                         ("outputs", {n: tf.TensorSpec(t.shape, t.dtype)
                                                      for n, t in function.structured_outputs.items()})):
                    for name, spec in specs.items():
                        info = getattr(entry, direction)[name]
                        info.name = f"{key}_{name}:0"
                        info.dtype = spec.dtype.as_datatype_enum
                        info.tensor_shape.CopyFrom(spec.shape.as_proto())
            response = get_model_metadata_pb2.GetModelMetadataResponse()
            response.model_spec.name = request.model_spec.name
            response.model_spec.version.value = version
            response.metadata["signature_def"].Pack(signatures)
            return response

    return Servicer()


class StandIn:
    """REST and gRPC on 127.0.0.1 for the given models; a context manager that stops both."""

    def __init__(self, bases: dict[str, str]) -> None:
        self.models = _Models(bases)
        self._http: ThreadingHTTPServer | None = None
        self._grpc: Any = None

    def __enter__(self) -> "StandIn":
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _rest_handler(self.models))
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        self.rest_url = f"http://127.0.0.1:{self._http.server_address[1]}"
        try:
            import grpc
            from tensorflow_serving.apis import prediction_service_pb2_grpc
        except ImportError:
            self.grpc_target = None
            return self
        self._grpc = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        prediction_service_pb2_grpc.add_PredictionServiceServicer_to_server(_grpc_servicer(self.models), self._grpc)
        port = self._grpc.add_insecure_port("127.0.0.1:0")
        self._grpc.start()
        self.grpc_target = f"127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._grpc is not None:
            self._grpc.stop(grace=None).wait(5)
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
