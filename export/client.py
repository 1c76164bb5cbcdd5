"""A minimal TensorFlow Serving client: REST (standard library only) and gRPC (optional).

    predictions = predict("http://localhost:8501", "vae", build_predict_request(instances=[[0.0] * 784]))
    outputs = grpc_predict("localhost:8500", "vae", {"inputs": np.zeros((1, 784), np.float32)})
    # CLI: python export/client.py --model vae --random 1x784 [--grpc localhost:8500]

REST: row format (``{"instances": [...]}``) answers ``{"predictions": ...}``;
columnar format (``{"inputs": ...}``) answers ``{"outputs": ...}``; a failed
request answers ``{"error": "..."}``, raised here as ``ServingError``.
gRPC (``PredictionService.Predict`` and ``GetModelMetadata``) needs the
optional ``tensorflow-serving-api`` package (tfkit's ``serving`` extra), which
brings TensorFlow and grpcio; it is imported only when a gRPC function runs.
numpy is optional for REST and only used by the CLI to read ``--inputs FILE.npy``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Sequence


class ServingError(RuntimeError):
    """TensorFlow Serving answered an error: REST ``{"error": ...}`` (``status``: the HTTP
    status) or a gRPC status (``code``: its name, e.g. ``"NOT_FOUND"``)."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None):
        self.message = message
        self.status = status
        self.code = code
        prefix = f"HTTP {status}: " if status is not None else ""
        prefix += f"gRPC {code}: " if code is not None else ""
        super().__init__(f"TensorFlow Serving error: {prefix}{message}")


def to_json_value(value: Any) -> Any:
    """Nested lists/dicts of plain numbers from arrays (anything with ``tolist``), tuples, dicts."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {str(key): to_json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(item) for item in value]
    return value


def build_predict_request(
    instances: Any = None,
    inputs: Any = None,
    signature_name: str | None = None,
) -> dict:
    """A ``:predict`` request body in row (``instances``) or columnar (``inputs``) format.

    Give exactly one of ``instances`` (a batch: one item per example, or one
    ``{input_name: value}`` object per example) and ``inputs`` (a tensor, or a
    ``{input_name: tensor}`` object). ``signature_name`` picks a non-default
    serving signature.
    """
    if (instances is None) == (inputs is None):
        given = "both" if instances is not None else "neither"
        raise ValueError(
            "build_predict_request expects exactly one of instances= (row format) or "
            f"inputs= (columnar format), got {given}"
        )
    body: dict[str, Any] = {}
    if signature_name is not None:
        if not isinstance(signature_name, str) or not signature_name:
            raise ValueError(f"signature_name must be a non-empty string, got {signature_name!r}")
        body["signature_name"] = signature_name
    if instances is not None:
        instances = to_json_value(instances)
        if not isinstance(instances, list):
            raise ValueError(
                "instances= must be a list (one item per example), "
                f"got {type(instances).__name__}"
            )
        body["instances"] = instances
    else:
        body["inputs"] = to_json_value(inputs)
    return body


def parse_predict_response(body: dict) -> Any:
    """The ``predictions`` (row format) or ``outputs`` (columnar format) of a ``:predict`` answer.

    Raises ``ServingError`` for ``{"error": ...}`` and ``ValueError`` for a body
    that has neither key.
    """
    if not isinstance(body, dict):
        raise ValueError(f"expected a JSON object from TensorFlow Serving, got {type(body).__name__}")
    if "error" in body:
        raise ServingError(str(body["error"]))
    for key in ("predictions", "outputs"):
        if key in body:
            return body[key]
    raise ValueError(
        f"expected 'predictions' or 'outputs' in the answer, got keys {sorted(body)}"
    )


def model_url(url: str, model: str, version: int | None = None) -> str:
    """``<url>/v1/models/<model>[/versions/<version>]``."""
    if not model:
        raise ValueError("model name must be a non-empty string")
    path = f"/v1/models/{urllib.parse.quote(model, safe='')}"
    if version is not None:
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise ValueError(f"version must be a non-negative integer, got {version!r}")
        path += f"/versions/{version}"
    return url.rstrip("/") + path


def predict_url(url: str, model: str, version: int | None = None) -> str:
    """``<url>/v1/models/<model>[/versions/<version>]:predict``."""
    return model_url(url, model, version) + ":predict"


def metadata_url(url: str, model: str, version: int | None = None) -> str:
    """``<url>/v1/models/<model>[/versions/<version>]/metadata``."""
    return model_url(url, model, version) + "/metadata"


def _http_json(endpoint: str, payload: dict | None, timeout: float) -> Any:
    """GET (``payload`` None) or POST JSON to ``endpoint``; the decoded answer, errors raised."""
    data = None if payload is None else json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(
        endpoint,
        data=data,
        headers={"Content-Type": "application/json"} if data is not None else {},
        method="GET" if data is None else "POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            parse_predict_response(json.loads(raw))
        except (ValueError, json.JSONDecodeError):
            pass  # fall through to the status line below
        except ServingError as error:
            raise ServingError(error.message, status=exc.code) from None
        text = raw.decode("utf-8", "replace").strip()
        raise ServingError(text or str(exc.reason), status=exc.code) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConnectionError(
            f"Could not reach TensorFlow Serving at {endpoint}: {reason}. Is the server running "
            "with its REST port published (docker run -p 8501:8501 ...)? See export/README.md."
        ) from exc
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{endpoint} answered with non-JSON content: {raw[:200]!r}") from exc


def predict(
    url: str,
    model: str,
    payload: dict,
    version: int | None = None,
    timeout: float = 10.0,
) -> Any:
    """POST ``payload`` to a model's ``:predict`` endpoint and return its predictions/outputs.

    ``url`` is the server's base, e.g. ``http://localhost:8501``. Raises
    ``ServingError`` when the server answers with an error and
    ``ConnectionError`` when it cannot be reached.
    """
    return parse_predict_response(_http_json(predict_url(url, model, version), payload, timeout))


def model_metadata(url: str, model: str, version: int | None = None, timeout: float = 10.0) -> dict:
    """GET a model's ``/metadata``: the JSON form of ``GetModelMetadataResponse``.

    ``answer["metadata"]["signature_def"]["signature_def"]["serving_default"]["inputs"]``
    maps each input name to its ``dtype`` (e.g. ``"DT_FLOAT"``) and ``tensor_shape``.
    """
    body = _http_json(metadata_url(url, model, version), None, timeout)
    if isinstance(body, dict) and "error" in body:
        raise ServingError(str(body["error"]))
    return body


# --- gRPC (optional: tensorflow-serving-api) -----------------------------------


def _grpc_apis() -> Any:
    """``(grpc, tf, predict_pb2, get_model_metadata_pb2, prediction_service_pb2_grpc)``, imported now."""
    try:
        import grpc
        import tensorflow as tf
        from tensorflow_serving.apis import get_model_metadata_pb2, predict_pb2, prediction_service_pb2_grpc
    except ImportError as exc:
        raise ImportError(
            f"gRPC calls need the optional package tensorflow-serving-api ({exc}): "
            "pip install 'tensorflow-serving-api>=2.21,<2.22' (tfkit's 'serving' extra), "
            "or use the REST functions, which need only the standard library."
        ) from exc
    return grpc, tf, predict_pb2, get_model_metadata_pb2, prediction_service_pb2_grpc


def _model_spec(spec: Any, model_name: str, version: int | None, signature_name: str | None) -> None:
    if not model_name:
        raise ValueError("model name must be a non-empty string")
    spec.name = model_name
    if version is not None:
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise ValueError(f"version must be a non-negative integer, got {version!r}")
        spec.version.value = version
    if signature_name is not None:
        spec.signature_name = signature_name


def _grpc_call(grpc: Any, target: str, method: str, request: Any, timeout: float) -> Any:
    """One unary ``PredictionService`` call on a fresh channel; gRPC errors become ours."""
    _, _, _, _, service = _grpc_apis()
    with grpc.insecure_channel(target) as channel:
        stub = service.PredictionServiceStub(channel)
        try:
            return getattr(stub, method)(request, timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code()
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise ConnectionError(
                    f"Could not reach TensorFlow Serving over gRPC at {target} ({code.name}: {exc.details()}). "
                    "Is the server running with its gRPC port published (docker run -p 8500:8500 ...)? "
                    "See export/README.md."
                ) from None
            raise ServingError(exc.details() or code.name, code=code.name) from None


def grpc_model_metadata(target: str, model_name: str, version: int | None = None, timeout: float = 10.0) -> dict:
    """``PredictionService.GetModelMetadata`` over gRPC, as the same dict that REST's ``/metadata`` answers.

    ``target`` is ``host:port`` of the gRPC port (8500 by default in TF Serving's
    image). The ``signature_def`` metadata (a packed ``SignatureDefMap``) is
    unpacked, so ``answer["metadata"]["signature_def"]["signature_def"]`` maps
    signature names to their inputs and outputs.
    """
    grpc, _, _, metadata_pb2, _ = _grpc_apis()
    from google.protobuf import json_format

    request = metadata_pb2.GetModelMetadataRequest(metadata_field=["signature_def"])
    _model_spec(request.model_spec, model_name, version, None)
    response = _grpc_call(grpc, target, "GetModelMetadata", request, timeout)
    signatures = metadata_pb2.SignatureDefMap()
    if not response.metadata["signature_def"].Unpack(signatures):
        raise ValueError(f"{target} answered signature_def metadata of type {response.metadata['signature_def'].type_url}")
    as_dict = {"always_print_fields_with_no_presence": True, "preserving_proto_field_name": True}  # as REST prints
    answer = {"model_spec": json_format.MessageToDict(response.model_spec, **as_dict)}
    answer["metadata"] = {"signature_def": json_format.MessageToDict(signatures, **as_dict)}
    return answer


def grpc_predict(
    target: str,
    model_name: str,
    inputs: Any,
    signature_name: str = "serving_default",
    version: int | None = None,
    timeout: float = 10.0,
    output_filter: Sequence[str] | None = None,
) -> dict:
    """``PredictionService.Predict`` over gRPC: ``{output name: numpy array}``.

    ``inputs`` is ``{input name: array-like}``; a single array is sent under the
    signature's only input name (looked up with ``grpc_model_metadata``). Each
    value is converted with ``tf.make_tensor_proto`` in the dtype the signature
    declares when the name is known, and the answer's ``TensorProto``s come back
    through ``tf.make_ndarray``.
    """
    grpc, tf, predict_pb2, _, _ = _grpc_apis()
    from tensorflow.core.framework import types_pb2

    signature = None
    if not isinstance(inputs, dict) or not all(isinstance(name, str) for name in inputs):
        signature = _signature(target, model_name, signature_name, version, timeout)
        names = sorted(signature.get("inputs", {}))
        if len(names) != 1:
            raise ValueError(
                f"signature {signature_name!r} of {model_name!r} takes inputs {names}: "
                "pass inputs={name: array, ...}"
            )
        inputs = {names[0]: inputs}
    request = predict_pb2.PredictRequest()
    _model_spec(request.model_spec, model_name, version, signature_name)
    declared = (signature or {}).get("inputs", {})
    for name, value in inputs.items():
        dtype = declared.get(name, {}).get("dtype")  # "DT_FLOAT": a tensorflow.DataType enum name
        dtype = tf.as_dtype(types_pb2.DataType.Value(dtype)) if dtype else None
        request.inputs[name].CopyFrom(tf.make_tensor_proto(value, dtype=dtype))
    request.output_filter.extend(output_filter or [])
    response = _grpc_call(grpc, target, "Predict", request, timeout)
    return {name: tf.make_ndarray(proto) for name, proto in response.outputs.items()}


def _signature(target: str, model_name: str, signature_name: str, version: int | None, timeout: float) -> dict:
    signatures = grpc_model_metadata(target, model_name, version, timeout)["metadata"]["signature_def"]
    signatures = signatures.get("signature_def", {})
    if signature_name not in signatures:
        raise ServingError(f'Serving signature key "{signature_name}" not found; the model has {sorted(signatures)}')
    return signatures[signature_name]


# --- command line --------------------------------------------------------------


def parse_shape(text: str) -> tuple[int, ...]:
    """``"1x784"`` -> ``(1, 784)``."""
    try:
        shape = tuple(int(part) for part in text.lower().split("x"))
    except ValueError:
        shape = ()
    if not shape or any(dim <= 0 for dim in shape):
        raise ValueError(f"expected a shape like 1x784 (positive sizes joined by 'x'), got {text!r}")
    return shape


def random_tensor(shape: Sequence[int], seed: int | None = None) -> list:
    """Nested lists of uniform floats in [0, 1) with the given shape."""
    rng = random.Random(seed)

    def fill(dims: Sequence[int]) -> Any:
        if len(dims) == 1:
            return [rng.random() for _ in range(dims[0])]
        return [fill(dims[1:]) for _ in range(dims[0])]

    return fill(tuple(shape))


def read_inputs(path: str) -> Any:
    """A batch from ``.npy`` (needs numpy, cast to float32) or ``.json`` (nested lists)."""
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    try:
        import numpy as np
    except ImportError as exc:
        raise SystemExit(f"reading {path} needs numpy; pass a .json file or --random instead") from exc
    return np.load(path, allow_pickle=False).astype("float32").tolist()


def _shape_argument(text: str) -> tuple[int, ...]:
    try:
        return parse_shape(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Send a predict request to TensorFlow Serving.")
    parser.add_argument("--model", required=True, help="served model name, e.g. vae")
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, default=8501, help="REST port (default 8501)")
    parser.add_argument("--version", type=int, default=None, help="model version (default: latest)")
    parser.add_argument("--signature-name", default=None, help="non-default serving signature")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--inputs", metavar="FILE", help="batch as .npy (numpy) or .json")
    source.add_argument(
        "--random", metavar="SHAPE", type=_shape_argument, default=None,
        help="random batch in [0, 1), e.g. 1x784 (the default when --inputs is not given)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for --random")
    parser.add_argument("--columnar", action="store_true", help='send {"inputs": ...}')
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds")
    parser.add_argument(
        "--grpc", metavar="HOST:PORT", default=None,
        help="call PredictionService over gRPC at HOST:PORT (e.g. localhost:8500) instead of REST; "
        "needs tensorflow-serving-api",
    )
    parser.add_argument("--metadata", action="store_true", help="print the model's metadata (signatures) instead")
    return parser


def _grpc_main(args: argparse.Namespace, batch: Any) -> Any:
    if args.metadata:
        return grpc_model_metadata(args.grpc, args.model, version=args.version, timeout=args.timeout)
    outputs = grpc_predict(
        args.grpc, args.model, batch, signature_name=args.signature_name or "serving_default",
        version=args.version, timeout=args.timeout,
    )
    return {name: value.tolist() for name, value in outputs.items()}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.metadata and args.grpc is None:
        url = f"http://{args.host}:{args.port}"
        try:
            print(json.dumps(model_metadata(url, args.model, version=args.version, timeout=args.timeout)))
        except (ServingError, ConnectionError, ValueError) as exc:
            print(exc, file=sys.stderr)
            return 1
        return 0
    if args.inputs:
        batch = read_inputs(args.inputs)
    else:
        batch = random_tensor(args.random or (1, 784), seed=args.seed)
    if args.grpc is not None:
        try:
            print(json.dumps(_grpc_main(args, batch)))
        except (ServingError, ConnectionError, ValueError, ImportError) as exc:
            print(exc, file=sys.stderr)
            return 1
        return 0
    if args.columnar:
        payload = build_predict_request(inputs=batch, signature_name=args.signature_name)
    else:
        payload = build_predict_request(instances=batch, signature_name=args.signature_name)
    url = f"http://{args.host}:{args.port}"
    try:
        answer = predict(url, args.model, payload, version=args.version, timeout=args.timeout)
    except (ServingError, ConnectionError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 1
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
