"""Tools built for Keras, used on tfkit models as their documentation shows, with `tfkit` in place of `keras`.

TensorBoard's HParams callback, Optuna's pruning callback, W&B's metrics logger (offline)
and MLflow's callback run in `tfkit.Model.fit` as they are; tf2onnx converts a tfkit model
with Keras 3's recipe; keras-tuner and MLflow's autologging, which check for or patch
`keras.Model`, go through `tfkit_integrations`. Each test asserts on what the tool
recorded (event files, trial values, run files, tracked metrics), compared with what
`fit` returned or with `predict`. A tool that is not installed skips its tests.
"""

from __future__ import annotations

import ast
import doctest
import inspect
import json
import pathlib
import re
import struct
import time
import warnings
import zipfile

import numpy as np
import pytest
import tensorflow as tf
import time_limits

import tfkit

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOOLS = {
    "keras",
    "tf_keras",
    "keras_tuner",
    "mlflow",
    "optuna",
    "optuna_integration",
    "wandb",
    "tensorboard",
    "tfkit_integrations",
}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    x = rng.random((32, 3)).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.25).astype("float32")


def regressor(units: int = 4, learning_rate: float = 0.1) -> tfkit.Model:
    model = tfkit.Sequential([tfkit.Input((3,)), tfkit.layers.Dense(units, activation="tanh"), tfkit.layers.Dense(1)])
    model.compile(tfkit.optimizers.SGD(learning_rate), "mse", metrics=["mae"])
    return model


def test_tfkit_never_imports_keras_or_the_tools():
    suspects = re.compile(rf"(?:import|from)\s+(?:{'|'.join(TOOLS)})\b|\btf\.keras\b")
    found = []
    for path in sorted((ROOT / "tfkit").rglob("*.py")):
        source = path.read_text()
        if not suspects.search(source):  # only files that could hold such an import are parsed
            continue
        for node in ast.walk(ast.parse(source)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if n.split(".")[0] in TOOLS]
            if isinstance(node, ast.Attribute) and node.attr == "keras" and getattr(node.value, "id", None) == "tf":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} tf.keras")
    assert found == []


# ---------------------------------------------------------------------------------------------- TensorBoard HParams


def test_tensorboard_hparams_callback_records_the_session_of_a_tfkit_fit(tmp_path, data):
    hp = pytest.importorskip("tensorboard.plugins.hparams.api")
    from tensorboard.plugins.hparams import api_pb2, metadata, plugin_data_pb2

    hparams = {"units": 4, "optimizer": "sgd"}
    regressor().fit(*data, epochs=1, verbose=0, callbacks=[hp.KerasCallback(str(tmp_path), hparams, trial_id="t0")])
    written = {}
    for events in tmp_path.glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(events)):
            for value in event.summary.value:
                if value.metadata.plugin_data.plugin_name == metadata.PLUGIN_NAME:
                    content = plugin_data_pb2.HParamsPluginData.FromString(value.metadata.plugin_data.content)
                    written[content.WhichOneof("data")] = content
    start = written["session_start_info"].session_start_info
    assert {
        name: v.number_value if v.HasField("number_value") else v.string_value for name, v in start.hparams.items()
    } == hparams
    assert start.group_name == "t0"
    assert written["session_end_info"].session_end_info.status == api_pb2.STATUS_SUCCESS


# ---------------------------------------------------------------------------------------------------------- Optuna


def test_optuna_pruning_callback_reports_every_epoch_and_prunes_a_tfkit_fit(data):
    optuna = pytest.importorskip("optuna")
    KerasPruningCallback = pytest.importorskip("optuna_integration").KerasPruningCallback
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    val_losses = []

    def objective(trial):
        model = regressor(learning_rate=trial.suggest_float("learning_rate", 0.01, 0.1))
        history = model.fit(
            *data, validation_split=0.25, epochs=3, verbose=0, callbacks=[KerasPruningCallback(trial, "val_loss")]
        )
        val_losses.append(history.history["val_loss"])
        return history.history["val_loss"][-1]

    study = optuna.create_study(pruner=optuna.pruners.NopPruner(), sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(objective, n_trials=1)
    assert study.trials[0].intermediate_values == dict(enumerate(val_losses[0]))

    pruning = optuna.create_study(pruner=optuna.pruners.ThresholdPruner(upper=0.0))  # any loss above 0 is pruned
    pruning.optimize(objective, n_trials=1)
    assert pruning.trials[0].state == optuna.trial.TrialState.PRUNED
    assert list(pruning.trials[0].intermediate_values) == [0]  # fit stopped after epoch 0
    assert len(val_losses) == 1


# ------------------------------------------------------------------------------------------------ Weights & Biases


def wandb_records(path: pathlib.Path):
    """The records of an offline W&B run file: a ':W&B' header, then LevelDB-log records of protobuf messages."""
    from wandb.proto import wandb_internal_pb2

    data, block, position, pieces = path.read_bytes(), 32768, 7, b""
    assert data[:4] == b":W&B"
    while position + 7 <= len(data):
        if block - position % block < 7:  # too little room for a record header: padding
            position += block - position % block
            continue
        _, length, kind = struct.unpack("<IHB", data[position : position + 7])
        chunk, position = data[position + 7 : position + 7 + length], position + 7 + length
        pieces = chunk if kind in (1, 2) else pieces + chunk  # full / first, then middle and last pieces
        if kind in (1, 4):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pieces)
            yield record


def wandb_history(path: pathlib.Path) -> list[dict]:
    """The history rows (``wandb.log`` calls) of an offline W&B run file, as dicts."""
    return [
        {item.key or "/".join(item.nested_key): json.loads(item.value_json) for item in record.history.item}
        for record in wandb_records(path)
        if record.WhichOneof("record_type") == "history"
    ]


def test_wandb_metrics_logger_logs_each_epoch_of_a_tfkit_fit_offline(tmp_path, monkeypatch, data):
    wandb = pytest.importorskip("wandb")
    WandbMetricsLogger = pytest.importorskip("wandb.integration.keras").WandbMetricsLogger
    for name, value in {"WANDB_MODE": "offline", "WANDB_DIR": str(tmp_path), "WANDB_SILENT": "true"}.items():
        monkeypatch.setenv(name, value)
    run = wandb.init(project="tfkit-tests", dir=str(tmp_path))
    try:
        history = regressor().fit(
            *data, epochs=2, batch_size=8, validation_split=0.25, verbose=0, callbacks=[WandbMetricsLogger()]
        )
    finally:
        wandb.finish()
    # W&B's service process writes the run file; on a busy machine its last records may land just after
    # finish() returns, so the file is read again until both epochs are in it (or the time limit passes).
    run_file = next(tmp_path.glob(f"wandb/offline-run-*-{run.id}/run-{run.id}.wandb"))
    deadline = time_limits.Deadline(30)
    while True:
        logged = wandb_history(run_file)
        if len(logged) >= 2 or deadline.passed():
            break
        time.sleep(0.2)
    kinds = sorted({record.WhichOneof("record_type") for record in wandb_records(run_file)})
    assert [entry["epoch/epoch"] for entry in logged] == [0, 1], f"the run file holds records of kinds {kinds}"
    for name in ("loss", "mae", "val_loss", "val_mae"):
        np.testing.assert_allclose([entry[f"epoch/{name}"] for entry in logged], history.history[name], rtol=1e-6)
    np.testing.assert_allclose([entry["epoch/learning_rate"] for entry in logged], [0.1, 0.1])


# ---------------------------------------------------------------------------------------------------------- MLflow


@pytest.fixture
def mlflow(tmp_path, monkeypatch):
    mlflow = pytest.importorskip("mlflow")
    pytest.importorskip("mlflow.keras")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 keeps the file store behind this switch
    previous = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    yield mlflow
    if mlflow.active_run() is not None:
        mlflow.end_run()
    mlflow.set_tracking_uri(previous)


# Given, so that MLflow does not infer them by loading the model in a new process (about ten seconds).
REQUIREMENTS = ["tensorflow", "keras"]


def logged_metric(mlflow, run_id: str, name: str) -> list[float]:
    """A metric's values by step (MLflow may store a value twice), once MLflowCallback's background logging is done."""
    mlflow.flush_async_logging()
    by_step = {m.step: m.value for m in mlflow.MlflowClient().get_metric_history(run_id, name)}
    return [by_step[step] for step in sorted(by_step)]


def test_mlflow_callback_logs_the_params_metrics_and_summary_of_a_tfkit_fit(mlflow, data):
    from mlflow.keras import MlflowCallback

    model = regressor()
    with mlflow.start_run() as run:
        history = model.fit(
            *data, epochs=2, batch_size=8, validation_split=0.25, verbose=0, callbacks=[MlflowCallback()]
        )
    run_id = run.info.run_id
    for name in ("loss", "mae", "val_loss", "val_mae"):
        np.testing.assert_allclose(logged_metric(mlflow, run_id, name), history.history[name], rtol=1e-6)
    params = mlflow.get_run(run_id).data.params
    assert float(params["optimizer_learning_rate"]) == pytest.approx(0.1)
    assert params["optimizer_name"] == model.optimizer.get_config()["name"]
    summary = mlflow.artifacts.load_text(f"{run.info.artifact_uri}/model_summary.txt")
    assert all(layer.name in summary for layer in model.layers)


def test_mlflow_autolog_route_logs_a_tfkit_fit(mlflow, data):
    from tfkit_integrations import mlflow as tfkit_mlflow

    trainer_fit = tfkit.Model.fit
    tfkit_mlflow.autolog(pip_requirements=REQUIREMENTS)
    try:
        model = regressor()
        history = model.fit(*data, epochs=2, batch_size=8, validation_split=0.25, verbose=0)
    finally:
        tfkit_mlflow.autolog(disable=True)
    assert tfkit.Model.fit is trainer_fit
    run = mlflow.last_active_run()
    assert run.info.status == "FINISHED"
    params = run.data.params
    assert (params["epochs"], params["batch_size"], params["validation_split"]) == ("2", "8", "0.25")
    assert "x" not in params and "callbacks" not in params
    assert float(params["optimizer_learning_rate"]) == pytest.approx(0.1)
    for name in ("loss", "val_loss"):
        np.testing.assert_allclose(logged_metric(mlflow, run.info.run_id, name), history.history[name], rtol=1e-6)
    models = mlflow.search_logged_models(experiment_ids=[run.info.experiment_id], output_format="list")
    assert [(m.name, m.source_run_id) for m in models] == [("model", run.info.run_id)]
    assert [i.model_id for i in run.inputs.model_inputs] == [models[0].model_id]  # created before fit, as in MLflow 3
    (dataset,) = run.inputs.dataset_inputs  # x and y, logged by default (log_datasets=True)
    assert [(t.key, t.value) for t in dataset.tags] == [("mlflow.data.context", "train")]
    assert json.loads(dataset.dataset.profile)["features_shape"] == list(data[0].shape)

    model.fit(*data, epochs=1, verbose=0)  # autologging is off again: no new run
    assert mlflow.last_active_run().info.run_id == run.info.run_id


def test_mlflow_autolog_takes_every_argument_of_mlflow_keras_autolog(mlflow):
    from tfkit_integrations import mlflow as tfkit_mlflow

    theirs = inspect.signature(mlflow.keras.autolog).parameters
    ours = inspect.signature(tfkit_mlflow.autolog).parameters
    assert list(ours)[: len(theirs)] == list(theirs)  # same names, in the same order (positional calls agree)
    for name, parameter in theirs.items():
        assert (ours[name].kind, ours[name].default) == (parameter.kind, parameter.default), name
    assert all(p.kind is p.KEYWORD_ONLY for p in list(ours.values())[len(theirs) :])  # ours only: pip_requirements


def test_mlflow_autolog_without_models_or_datasets_logs_as_keras_autolog_does(mlflow, data):
    keras = pytest.importorskip("keras")
    from tfkit_integrations import mlflow as tfkit_mlflow

    def twin(lib):
        model = lib.Sequential([lib.Input((3,)), lib.layers.Dense(1)])
        model.compile(lib.optimizers.SGD(0.1, name="sgd"), "mse", metrics=["mae"])  # not sgd_<n> after other tests
        return model

    runs = {}
    for name, lib, autolog in (("keras", keras, mlflow.keras.autolog), ("tfkit", tfkit, tfkit_mlflow.autolog)):
        autolog(log_models=False, log_datasets=False)  # as in MLflow's documentation
        try:
            twin(lib).fit(*data, epochs=2, batch_size=8, validation_split=0.25, verbose=0)
        finally:
            autolog(disable=True)
        mlflow.flush_async_logging()
        runs[name] = mlflow.get_run(mlflow.last_active_run().info.run_id)
    ours, theirs = runs["tfkit"], runs["keras"]
    assert ours.info.status == "FINISHED" and ours.info.run_id != theirs.info.run_id
    assert sorted(ours.data.metrics) == sorted(theirs.data.metrics) == [
        "loss", "mae", "val_loss", "val_mae", "validation_loss", "validation_mae"
    ]  # fmt: skip
    assert set(theirs.data.params) <= set(ours.data.params)  # tfkit's fit has arguments of its own (check_finite)
    for name, value in theirs.data.params.items():
        if name != "optimizer_learning_rate":  # Keras logs the float32 value (0.10000000149011612)
            assert ours.data.params[name] == value, name
    assert float(ours.data.params["optimizer_learning_rate"]) == pytest.approx(0.1)
    for run in (ours, theirs):
        assert run.inputs.dataset_inputs == [] and run.inputs.model_inputs == []
    assert mlflow.search_logged_models(experiment_ids=[ours.info.experiment_id], output_format="list") == []


def test_mlflow_autolog_exclusive_leaves_the_users_run_alone_and_warns_once_of_input_examples(
    mlflow, data, monkeypatch
):
    from tfkit_integrations import mlflow as tfkit_mlflow

    monkeypatch.setattr(tfkit_mlflow._SETTINGS, "warned", set())
    with pytest.warns(UserWarning, match="ignores log_input_examples"):
        tfkit_mlflow.autolog(exclusive=True, log_input_examples=True, log_models=False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tfkit_mlflow.autolog(exclusive=True, log_input_examples=True, log_models=False)  # no second warning
        with mlflow.start_run() as run:
            regressor().fit(*data, epochs=1, verbose=0)
        regressor().fit(*data, epochs=1, verbose=0)  # no active run: autologging starts and fills its own
        with pytest.raises(mlflow.exceptions.MlflowException, match="remove the MlflowCallback"):
            regressor().fit(*data, epochs=1, verbose=0, callbacks=[mlflow.keras.MlflowCallback()])  # as MLflow
    finally:
        tfkit_mlflow.autolog(disable=True)
    mlflow.flush_async_logging()
    users = mlflow.get_run(run.info.run_id)
    assert users.data.params == {} and users.data.metrics == {}
    own = mlflow.last_active_run()
    assert own.info.run_id != run.info.run_id and own.data.params["epochs"] == "1" and "loss" in own.data.metrics


def test_mlflow_autolog_logs_an_exported_saved_model_and_is_silent_when_asked(mlflow, data):
    from tfkit_integrations import mlflow as tfkit_mlflow

    x, _ = data
    model = regressor()
    tfkit_mlflow.autolog(save_exported_model=True, log_datasets=False, pip_requirements=REQUIREMENTS)
    try:
        model.fit(*data, epochs=1, verbose=0)
        run = mlflow.last_active_run()
        (logged,) = mlflow.search_logged_models(experiment_ids=[run.info.experiment_id], output_format="list")
        served = mlflow.pyfunc.load_model(logged.model_uri)  # a SavedModel, called through its serve endpoint
        np.testing.assert_allclose(served.predict(x), model.predict(x, verbose=0), atol=1e-5)

        # MLflow cannot export a model without its signature: a warning, and the training goes on
        tfkit_mlflow.autolog(save_exported_model=True, log_model_signatures=False, log_datasets=False)
        with pytest.warns(RuntimeWarning, match="could not log the model.*signature"):
            model.fit(*data, epochs=1, verbose=0)
        tfkit_mlflow.autolog(save_exported_model=True, log_model_signatures=False, log_datasets=False, silent=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            model.fit(*data, epochs=1, verbose=0)
    finally:
        tfkit_mlflow.autolog(disable=True)
    assert mlflow.last_active_run().info.status == "FINISHED"


def test_mlflow_keras_flavor_logs_a_tfkit_model_that_pyfunc_serves(mlflow, data, tmp_path):
    from tfkit_integrations.mlflow import model_signature

    x, _ = data
    model = regressor()
    with mlflow.start_run():
        info = mlflow.keras.log_model(
            model, name="model", signature=model_signature(model), pip_requirements=REQUIREMENTS
        )
    served = mlflow.pyfunc.load_model(info.model_uri)  # Keras 3 loads tfkit's .keras archive
    saved = next(
        pathlib.Path(mlflow.artifacts.download_artifacts(info.model_uri, dst_path=str(tmp_path))).rglob("*.keras")
    )
    assert zipfile.is_zipfile(saved)
    np.testing.assert_allclose(served.predict(x), model.predict(x, verbose=0), atol=1e-5)


# --------------------------------------------------------------------------------------------------------- tf2onnx


@pytest.fixture(scope="module")
def onnx_tools():
    return pytest.importorskip("tf2onnx"), pytest.importorskip("onnxruntime")


def test_tf2onnx_converts_a_tfkit_model_with_keras_3s_recipe(onnx_tools, data):
    tf2onnx, onnxruntime = onnx_tools
    x, _ = data
    features = tfkit.Input((3,), name="features")
    hidden = tfkit.layers.Dense(5, activation="relu")(features)
    model = tfkit.Model(features, [tfkit.layers.Dense(2, name="scores")(hidden), tfkit.layers.Dense(1)(hidden)])
    model.output_names = ["scores", "value"]  # Keras 3's recipe names the outputs before converting
    spec = (tf.TensorSpec((None, 3), tf.float32, name="input"),)
    proto, _ = tf2onnx.convert.from_keras(model, input_signature=spec, opset=13)
    session = onnxruntime.InferenceSession(proto.SerializeToString())
    assert [o.name for o in session.get_outputs()] == ["scores", "value"]
    for converted, predicted in zip(session.run(None, {"input": x}), model.predict(x, verbose=0)):
        np.testing.assert_allclose(converted, predicted, atol=1e-5)


def test_tf2onnx_converts_a_sequential_tfkit_model_named_output(onnx_tools, data):
    tf2onnx, onnxruntime = onnx_tools
    x, _ = data
    model = regressor()
    model.output_names = ["output"]
    proto, _ = tf2onnx.convert.from_keras(model, input_signature=(tf.TensorSpec((None, 3), tf.float32, name="x"),))
    session = onnxruntime.InferenceSession(proto.SerializeToString())
    assert [o.name for o in session.get_outputs()] == ["output"]
    np.testing.assert_allclose(session.run(None, {"x": x})[0], model.predict(x, verbose=0), atol=1e-5)


def test_output_names_are_assignable_as_in_keras_3(data):
    keras = pytest.importorskip("keras")
    x, y = data
    for lib in (keras, tfkit):
        inputs = lib.Input((3,))
        outputs = [lib.layers.Dense(1, name="first")(inputs), lib.layers.Dense(1, name="second")(inputs)]
        model = lib.Model(inputs, outputs)
        assert model.output_names == ["first", "second"]
        model.output_names = ["price", "volume"]
        model.compile("sgd", loss={"price": "mse", "volume": "mae"})  # compile keys follow the new names
        logs = model.evaluate(x, {"price": y, "volume": y}, verbose=0, return_dict=True)
        assert sorted(logs) == ["loss", "price_loss", "volume_loss"], lib.__name__
    model.output_names = None  # tfkit: back to the layers' names
    assert model.output_names == ["first", "second"]
    with pytest.raises(ValueError, match="has 2 output.*got 1 name"):
        model.output_names = ["only_one"]
    with pytest.raises(TypeError, match="list of non-empty strings"):
        model.output_names = "price"
    sequential = regressor()
    sequential.output_names = ["output"]
    assert sequential.output_names == ["output"]


def test_a_dict_output_model_keeps_its_keys_for_compile_when_output_names_are_assigned(data):
    x, y = data
    inputs = tfkit.Input((3,))
    model = tfkit.Model(inputs, {"price": tfkit.layers.Dense(1)(inputs), "volume": tfkit.layers.Dense(1)(inputs)})
    model.output_names = ["a", "b"]
    model.compile("sgd", loss={"price": "mse", "volume": "mae"})
    assert sorted(model.evaluate(x, {"price": y, "volume": y}, verbose=0, return_dict=True)) == [
        "loss",
        "price_loss",
        "volume_loss",
    ]


# ----------------------------------------------------------------------------------------------------- keras-tuner


def build_model(hp):
    model = tfkit.Sequential(
        [tfkit.Input((3,)), tfkit.layers.Dense(hp.Int("units", 2, 6, step=2), activation="tanh"), tfkit.layers.Dense(1)]
    )
    model.compile(tfkit.optimizers.SGD(hp.Choice("learning_rate", [0.03, 0.1])), "mse")
    return model


@pytest.fixture(scope="module")
def kt():
    return pytest.importorskip("keras_tuner"), pytest.importorskip("tfkit_integrations.keras_tuner")


def test_keras_tuners_own_classes_stop_at_their_keras_model_check(kt, tmp_path, data):
    keras_tuner, _ = kt
    tuner = keras_tuner.RandomSearch(build_model, objective="val_loss", max_trials=1, directory=str(tmp_path))
    with pytest.raises(keras_tuner.errors.FatalTypeError, match="valid Keras Model"):
        tuner.search(*data, epochs=1, validation_split=0.25, verbose=0)


@pytest.mark.parametrize(
    "name, options, fit_options",
    [
        ("RandomSearch", {"max_trials": 2}, {"epochs": 2}),
        ("BayesianOptimization", {"max_trials": 3, "num_initial_points": 2}, {"epochs": 2}),
        ("Hyperband", {"max_epochs": 3, "factor": 3}, {}),
    ],
)
def test_keras_tuner_searches_tfkit_models_and_returns_the_best(kt, tmp_path, data, name, options, fit_options):
    _, adapters = kt
    x, y = data
    tuner = getattr(adapters, name)(
        build_model, objective="val_loss", seed=0, directory=str(tmp_path), project_name=name, **options
    )
    tuner.search(x, y, validation_split=0.25, verbose=0, **fit_options)
    trials = [t for t in tuner.oracle.trials.values() if t.status == "COMPLETED"]
    assert len(trials) >= 2 and all(t.score is not None for t in trials)
    best_trial = tuner.oracle.get_best_trials(1)[0]
    assert best_trial.score == min(t.score for t in trials)
    best = tuner.get_best_models(1)[0]  # rebuilt, with its best epoch's checkpoint
    assert isinstance(best, tfkit.Model)
    assert best.layers[0].units == best_trial.hyperparameters.get("units")
    validation = slice(24, None)  # validation_split=0.25 holds out the last 8 rows
    assert best.evaluate(x[validation], y[validation], verbose=0) == pytest.approx(best_trial.score, rel=1e-5)


def test_keras_results_turns_a_tfkit_history_into_what_keras_tuner_reads(kt, data):
    _, adapters = kt
    keras = pytest.importorskip("keras")
    history = regressor().fit(*data, epochs=2, validation_split=0.25, verbose=0)
    converted = adapters.keras_results([history, 0.5])
    assert isinstance(converted[0], keras.callbacks.History) and converted[1] == 0.5
    assert converted[0].history == history.history and converted[0].epoch == [0, 1]


# ---------------------------------------------------------------------------------------- the adapters' docstrings


@pytest.mark.parametrize("module_name", ["tfkit_integrations.keras_tuner", "tfkit_integrations.mlflow"])
def test_the_adapters_docstring_examples_run(module_name, tmp_path, monkeypatch, request):
    module = pytest.importorskip(module_name)
    if module_name.endswith("mlflow"):
        request.getfixturevalue("mlflow")  # its runs go to a file store in tmp_path
    monkeypatch.chdir(tmp_path)
    result = doctest.testmod(
        module,
        extraglobs={"tfkit": tfkit, "np": np, "tf": tf},
        report=True,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0 and result.failed == 0
