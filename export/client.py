"""A TensorFlow Serving client: REST (standard library only) and gRPC (``tensorflow-serving-api``).

    payload = build_predict_request(instances=[[0.0] * 784])
    predictions = predict("http://localhost:8501", "vae", payload)           # REST, port 8501
    outputs = grpc_predict("localhost:8500", "vae", {"inputs": batch})       # gRPC, port 8500: {name: array}
    # CLI: python export/client.py --model vae --random 1x784 [--grpc localhost:8500]

Row format (``{"instances": [...]}``) answers ``{"predictions": ...}``;
columnar format (``{"inputs": ...}``) answers ``{"outputs": ...}``; a failed
request answers ``{"error": "..."}``, raised here as ``ServingError``.
numpy is optional and only used by the CLI to read ``--inputs FILE.npy``.
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
    """TensorFlow Serving answered ``{"error": ...}`` (or a non-JSON failure)."""

    def __init__(self, message: str, status: int | None = None):
        self.message = message
        self.status = status
        prefix = f"HTTP {status}: " if status is not None else ""
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


def predict_url(url: str, model: str, version: int | None = None) -> str:
    """``<url>/v1/models/<model>[/versions/<version>]:predict``."""
    if not model:
        raise ValueError("model name must be a non-empty string")
    path = f"/v1/models/{urllib.parse.quote(model, safe='')}"
    if version is not None:
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise ValueError(f"version must be a non-negative integer, got {version!r}")
        path += f"/versions/{version}"
    return url.rstrip("/") + path + ":predict"


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
    endpoint = predict_url(url, model, version)
    request = urllib.request.Request(
        endpoint,
        data=json.dumps(payload).encode("utf-8"),
        headers={"Content-Type": "application/json"},
        method="POST",
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
        body = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{endpoint} answered with non-JSON content: {raw[:200]!r}") from exc
    return parse_predict_response(body)


def model_metadata(url: str, model: str, version: int | None = None, timeout: float = 10.0) -> dict:
    """``GET <url>/v1/models/<model>[/versions/<v>]/metadata``: the JSON form of ``GetModelMetadataResponse``."""
    endpoint = predict_url(url, model, version)[: -len(":predict")] + "/metadata"
    try:
        with urllib.request.urlopen(endpoint, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            message = json.loads(raw).get("error", "")
        except (ValueError, AttributeError):
            message = raw.decode("utf-8", "replace")
        raise ServingError(message or str(exc.reason), status=exc.code) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise ConnectionError(f"Could not reach TensorFlow Serving at {endpoint}: {getattr(exc, 'reason', exc)}") from exc


# --- gRPC (needs tensorflow-serving-api, which brings grpcio and TensorFlow) ----------


def _grpc_modules() -> Any:
    try:
        import grpc
        import tensorflow as tf
        from tensorflow_serving.apis import get_model_metadata_pb2, predict_pb2, prediction_service_pb2_grpc
    except ImportError as exc:
        raise ImportError(
            "gRPC calls need the tensorflow-serving-api package: pip install tensorflow-serving-api "
            "(or pip install -e '.[serving]'); REST calls need nothing."
        ) from exc
    return grpc, tf, predict_pb2, get_model_metadata_pb2, prediction_service_pb2_grpc


def _grpc_call(target: str, method: str, request: Any, timeout: float) -> Any:
    grpc, _, _, _, services = _grpc_modules()
    with grpc.insecure_channel(target) as channel:
        stub = services.PredictionServiceStub(channel)
        try:
            return getattr(stub, method)(request, timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code()
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise ConnectionError(
                    f"Could not reach TensorFlow Serving's gRPC port at {target}: {exc.details()}. Is the server "
                    "running with port 8500 published (docker run -p 8500:8500 ...)? See export/README.md."
                ) from None
            raise ServingError(f"{code.name}: {exc.details()}") from None


def grpc_predict(
    target: str,
    model: str,
    inputs: dict,
    signature_name: str = "serving_default",
    version: int | None = None,
    timeout: float = 10.0,
) -> dict:
    """``PredictionService/Predict`` at ``target`` (``host:8500``): ``{output name: numpy array}``.

    ``inputs`` maps the signature's input names to arrays (anything numpy can
    read); each is sent as a ``TensorProto`` of the array's own dtype.
    """
    if not isinstance(inputs, dict) or not inputs:
        raise ValueError("grpc_predict expects inputs={input_name: array, ...} (names as the signature gives them)")
    _, tf, predict_pb2, _, _ = _grpc_modules()
    request = predict_pb2.PredictRequest()
    request.model_spec.name = model
    request.model_spec.signature_name = signature_name
    if version is not None:
        request.model_spec.version.value = int(version)
    for name, value in inputs.items():
        request.inputs[name].CopyFrom(tf.make_tensor_proto(value))
    response = _grpc_call(target, "Predict", request, timeout)
    return {name: tf.make_ndarray(proto) for name, proto in response.outputs.items()}


def grpc_model_metadata(target: str, model: str, version: int | None = None, timeout: float = 10.0) -> dict:
    """``PredictionService/GetModelMetadata``: the model spec and each signature's inputs and outputs.

    Returns ``{"model_spec": {"name", "version", ...}, "signature_def": {signature: {"inputs": {name:
    {"dtype", "shape"}}, "outputs": {...}, "method_name"}}}``, with shapes as lists (-1 for any size).
    """
    _, tf, _, metadata_pb2, _ = _grpc_modules()
    request = metadata_pb2.GetModelMetadataRequest()
    request.model_spec.name = model
    if version is not None:
        request.model_spec.version.value = int(version)
    request.metadata_field.append("signature_def")
    response = _grpc_call(target, "GetModelMetadata", request, timeout)
    signatures = metadata_pb2.SignatureDefMap()
    if not response.metadata["signature_def"].Unpack(signatures):
        raise ServingError("GetModelMetadata answered without a SignatureDefMap")

    def tensors(mapping: Any) -> dict:
        return {name: {"dtype": tf.dtypes.as_dtype(info.dtype).name,
                       "shape": [d.size for d in info.tensor_shape.dim]} for name, info in mapping.items()}

    spec = response.model_spec
    return {
        "model_spec": {"name": spec.name, "version": spec.version.value if spec.HasField("version") else None,
                       "signature_name": spec.signature_name},
        "signature_def": {name: {"inputs": tensors(sig.inputs), "outputs": tensors(sig.outputs),
                                 "method_name": sig.method_name}
                          for name, sig in signatures.signature_def.items()},
    }


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
    parser.add_argument("--grpc", metavar="HOST:PORT", default=None,
                        help="use gRPC at HOST:PORT (e.g. localhost:8500) instead of REST; needs tensorflow-serving-api")
    parser.add_argument("--input-name", default="inputs", help="the signature's input name, for --grpc")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.inputs:
        batch = read_inputs(args.inputs)
    else:
        batch = random_tensor(args.random or (1, 784), seed=args.seed)
    if args.grpc:
        try:
            outputs = grpc_predict(args.grpc, args.model, {args.input_name: batch},
                                   signature_name=args.signature_name or "serving_default",
                                   version=args.version, timeout=args.timeout)
        except (ServingError, ConnectionError, ValueError, ImportError) as exc:
            print(exc, file=sys.stderr)
            return 1
        print(json.dumps({name: value.tolist() for name, value in outputs.items()}))
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
