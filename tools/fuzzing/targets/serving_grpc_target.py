"""Target ``serving_grpc``: the TF Serving gRPC client's reading of an answer (``export/client.py``).

One input is the bytes of a ``PredictResponse`` (or, with the first byte odd, a
``GetModelMetadataResponse``) as a server sends them. The gRPC call is replaced
by the message parsed from those bytes (a message gRPC cannot parse is its
``INTERNAL`` error, a ``ServingError``), so ``grpc_predict`` turns its tensors
into arrays and ``grpc_model_metadata`` unpacks the signatures as they would from
a real server. Each returns, raises ``ServingError`` or ``ValueError`` naming the
target; nothing else, and no answer may make the client allocate more than the
``max_response_bytes`` it set (a 20-byte message declaring a billion floats).
Reference: ``tf.make_ndarray`` on the same protos, where the client accepts them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fuzzing.target import Finding, Target, equal, read_guarded, write_seeds
from fuzzing.targets import serving_client

TARGET_ADDRESS, MODEL = "127.0.0.1:8500", "fuzz_model"
LIMIT = 1 << 20
_state: dict = {"client": None, "answer": b""}


def _fake_call(grpc, target, method, request, deadline, limit):
    from google.protobuf.message import DecodeError
    from tensorflow_serving.apis import get_model_metadata_pb2, predict_pb2

    kind = predict_pb2.PredictResponse if method == "Predict" else get_model_metadata_pb2.GetModelMetadataResponse
    try:
        return kind.FromString(_state["answer"])
    except DecodeError as error:  # what gRPC reports when it cannot parse an answer
        raise _state["client"].ServingError(f"Failed to parse server response: {error}", code="INTERNAL") from None


def _call(read):
    try:
        return True, read()
    except _state["client"].ServingError:
        return False, None


def check(data: bytes) -> None:
    import tensorflow as tf
    from tensorflow_serving.apis import predict_pb2

    client = _state["client"]
    _state["answer"] = data[1:]
    if data[:1] and data[0] % 2:
        read_guarded(
            frozenset(),
            (),
            TARGET_ADDRESS,
            lambda: _call(lambda: client.grpc_model_metadata(TARGET_ADDRESS, MODEL, max_response_bytes=LIMIT)),
        )
        return
    accepted, result = read_guarded(
        frozenset(),
        (),
        TARGET_ADDRESS,
        lambda: _call(
            lambda: client.grpc_predict(
                TARGET_ADDRESS, MODEL, {"x": np.ones((1, 2), np.float32)}, max_response_bytes=LIMIT
            )
        ),
    )
    if accepted and result[0]:
        outputs = result[1]
        response = predict_pb2.PredictResponse.FromString(data[1:])
        for name, proto in response.outputs.items():
            if not equal(outputs[name], tf.make_ndarray(proto)):
                raise Finding(f"output {name}: the client and tf.make_ndarray disagree")


def seeds(folder: Path) -> int:
    import tensorflow as tf
    from tensorflow.core.protobuf import meta_graph_pb2
    from tensorflow_serving.apis import get_model_metadata_pb2, predict_pb2

    named = []
    for name, value in {
        "floats": np.arange(6, dtype=np.float32).reshape(2, 3),
        "ints": np.array([1, 2], np.int64),
        "strings": np.array([b"a", b"bc"]),
        "scalar": np.float64(2.5),
        "bools": np.array([[True, False]]),
    }.items():
        response = predict_pb2.PredictResponse()
        response.outputs["y"].CopyFrom(tf.make_tensor_proto(value))
        response.model_spec.name = MODEL
        named.append((f"predict-{name}", b"\x00" + response.SerializeToString()))
    response = predict_pb2.PredictResponse()
    response.outputs["y"].dtype = tf.float32.as_datatype_enum
    response.outputs["y"].tensor_shape.dim.add(size=3)
    response.outputs["y"].float_val.extend([1.0, 2.0, 3.0])
    named.append(("predict-float-val", b"\x00" + response.SerializeToString()))
    signatures = get_model_metadata_pb2.SignatureDefMap()
    signature = signatures.signature_def["serving_default"]
    signature.inputs["x"].CopyFrom(meta_graph_pb2.TensorInfo(name="x:0", dtype=tf.float32.as_datatype_enum))
    metadata = get_model_metadata_pb2.GetModelMetadataResponse()
    metadata.model_spec.name = MODEL
    metadata.metadata["signature_def"].Pack(signatures)
    named.append(("metadata", b"\x01" + metadata.SerializeToString()))
    return write_seeds(folder, named)


def setup() -> None:
    client = _state["client"] = serving_client.load()
    client._grpc_apis()  # grpc, TensorFlow and the serving protos: imported now
    client._grpc_call = _fake_call


TARGET = Target(
    name="serving_grpc",
    reader="export/client.py gRPC answers: PredictResponse tensors, model metadata",
    modules=("tfkit_export_client",),
    check=check,
    seeds=seeds,
    setup=setup,
    max_len=8192,
    timeout=30,
    suite_runs=2000,
)
