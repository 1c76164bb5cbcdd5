"""The file zoo's models: every kind of model tfkit builds, with its data and how it trains.

    model, x, y = prepare(case, tfkit)     # built, adapted, weights randomized, compiled and trained a step
    twin = fresh_twin(case)                # the same architecture, fresh weights (for .weights.h5)

Most builders are ``keras_zoo``'s (one builder for Keras 3 and tfkit); the kinds
it lacks are here: functional-API subclasses of ``Model`` with their own
``train_step`` / ``test_step`` (keras-io's masked language model pattern), one
with an extra constructor argument and ``get_config``, one that builds its own
graph, subclassed models with ``call``, and models under a global
mixed-precision policy. ``custom_objects(k)`` makes the custom classes for
framework ``k`` and registers them under the package ``file_zoo`` in both.

Run as a script (``python file_zoo_models.py plan.json``), it is the Keras 3
side of the cross-check, in a process of its own: Keras loads each tfkit-written
``.keras`` file named in the plan, and saves its own ``.keras`` of the cases
whose Keras file tfkit should read; it writes what it predicted beside them.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import tensorflow as tf
from keras_zoo import CASES as KERAS_ZOO
from keras_zoo import custom_objects as keras_zoo_objects
from keras_zoo import randomize

_ZOO = {case.name: case for case in KERAS_ZOO}


@dataclass
class FileCase:
    name: str
    build: Callable[[Any], Any]  # build(k): the model, for framework k (Keras 3 or tfkit)
    inputs: Callable[[np.random.Generator], Any]
    loss: Any = None  # compile(optimizer(k), loss) and train a step before saving; None: not compiled
    optimizer: Callable[[Any], Any] | None = None
    adapt: Callable[[Any], None] | None = None  # adapt(model): preprocessing state, before saving
    twin_adapts: bool = False  # a lookup's vocabulary is not a weight: the .weights.h5 twin is adapted alike
    custom: bool = False  # custom_objects(k) when loading
    policy: str | None = None  # the global dtype policy while building
    keras: str | None = None  # why Keras 3 cannot load tfkit's .keras of it; None: it can
    keras_writes: bool = False  # Keras 3 also saves its own .keras of it, which tfkit must load
    tolerance: float = 1e-5

    @property
    def compiled(self) -> bool:
        return self.loss is not None


# ------------------------------------------------------------------ custom classes, per framework

_CUSTOM: dict[str, dict[str, Any]] = {}


def custom_objects(k: Any) -> dict[str, Any]:
    """The zoo's model classes for framework ``k`` (Keras 3 or tfkit), registered under ``file_zoo`` once."""
    key = k.__name__
    if key in _CUSTOM:
        return _CUSTOM[key]
    register = k.saving.register_keras_serializable(package="file_zoo")

    @register
    class MaskedLanguageModel(k.Model):
        """keras-io's masked language model: built the functional way, ``MaskedLanguageModel(inputs, outputs)``,
        with its own ``train_step`` and ``test_step``."""

        def train_step(self, data):
            x, y = data[:2]  # Keras's train_on_batch adds sample_weight
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(gradients, self.trainable_variables)
            return {"loss": loss}

        def test_step(self, data):
            x, y = data[:2]  # Keras's train_on_batch adds sample_weight
            return {"loss": self.compute_loss(x=x, y=y, y_pred=self(x, training=False))}

    @register
    class WeightedLossModel(k.Model):
        """A functional subclass with an extra constructor argument and ``get_config`` (Keras's pattern); its
        ``train_step`` scales the loss by it, so a lost argument changes the next training step."""

        def __init__(self, inputs, outputs, loss_scale=1.0, **kwargs):
            super().__init__(inputs, outputs, **kwargs)
            self.loss_scale = loss_scale

        def train_step(self, data):
            x, y = data[:2]  # Keras's train_on_batch adds sample_weight
            with tf.GradientTape() as tape:
                loss = self.loss_scale * self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
            self.optimizer.apply(tape.gradient(loss, self.trainable_variables), self.trainable_variables)
            return {"loss": loss}

        def get_config(self):
            return {**super().get_config(), "loss_scale": self.loss_scale}

    @register
    class OwnGraphModel(k.Model):
        """A functional subclass that builds its graph from its own arguments, ``OwnGraphModel(units=3)``."""

        def __init__(self, units=3, **kwargs):
            inputs = k.Input((5,))
            hidden = k.layers.Dense(units, activation="tanh")(inputs)
            super().__init__(inputs, k.layers.Dense(2)(hidden), **kwargs)
            self.units = units

        def test_step(self, data):
            x, y = data[:2]  # Keras's train_on_batch adds sample_weight
            return {"loss": self.compute_loss(x=x, y=y, y_pred=self(x, training=False))}

        def get_config(self):
            return {"units": self.units, "name": self.name}

    @register
    class TwoTowers(k.Model):
        """A subclassed model: layers as attributes, its own ``call``."""

        def __init__(self, units=4, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.left = k.layers.Dense(units, activation="tanh")
            self.right = k.layers.Dense(units)
            self.head = k.layers.Dense(1)

        def call(self, inputs):
            return self.head(self.left(inputs) * self.right(inputs))

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    _CUSTOM[key] = {
        "MaskedLanguageModel": MaskedLanguageModel,
        "WeightedLossModel": WeightedLossModel,
        "OwnGraphModel": OwnGraphModel,
        "TwoTowers": TwoTowers,
        **keras_zoo_objects(k),
    }
    return _CUSTOM[key]


# ------------------------------------------------------------------ the builders this zoo adds


def _masked_language_model(k):
    tokens = k.Input((6,), dtype="int32", name="tokens")
    hidden = k.layers.Embedding(20, 4, name="word_embedding")(tokens)
    hidden = k.layers.LayerNormalization()(k.layers.Dense(4, activation="gelu")(hidden))
    return custom_objects(k)["MaskedLanguageModel"](
        tokens, k.layers.Dense(20, name="mlm_head")(hidden), name="masked_language_model"
    )


def _weighted_loss_model(k):
    x = k.Input((5,))
    return custom_objects(k)["WeightedLossModel"](x, k.layers.Dense(2)(x), loss_scale=2.5, name="weighted_loss")


def _own_graph_model(k):
    return custom_objects(k)["OwnGraphModel"](units=3, name="own_graph")


def _two_towers(k):
    return custom_objects(k)["TwoTowers"](units=4, name="two_towers")


def _guide_resnet(k):
    from test_saving_guide_models import ResNet  # the seed guide's subclassed model, unregistered

    return ResNet(num_classes=3)


def _mixed_float16(k):
    return k.Sequential(
        [k.Input((6,)), k.layers.Dense(8, activation="relu"), k.layers.Dense(2, dtype="float32")], name="mixed_float16"
    )


def _mixed_bfloat16(k):
    x = k.Input((4, 3))
    h = k.layers.Conv1D(4, 2, activation="relu")(x)
    return k.Model(x, k.layers.Dense(2, dtype="float32")(k.layers.Flatten()(h)), name="mixed_bfloat16")


def _mobilenet(k):
    return k.applications.MobileNet(input_shape=(32, 32, 3), alpha=0.25, weights=None, classes=3)


def _floats(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.normal(size=shape).astype("float32")


def _adam(k):
    return k.optimizers.Adam(0.01)


def _sgd(k):
    return k.optimizers.SGD(0.05, momentum=0.9)


def _zoo(name: str, **changes: Any) -> FileCase:
    """``keras_zoo``'s case ``name`` as a file case: its builder, inputs, adapt and tolerance."""
    case = _ZOO[name]
    fields = dict(
        name=name, build=case.build, inputs=case.inputs, adapt=case.adapt, tolerance=case.tolerance, custom=case.custom
    )
    return FileCase(**{**fields, **changes})


CASES = [
    _zoo("cnn", loss="mse", optimizer=_adam),  # Sequential, BatchNormalization training in the step
    _zoo("two_in_two_out", loss={"score": "mse", "label": "mse"}, optimizer=_sgd),  # dicts in and out
    _zoo("shared_layer", loss="mse", optimizer=_adam),
    _zoo("nested"),
    _zoo("custom_layers", loss="mse", optimizer=_adam),
    _zoo("lstm_masked", loss="mse", optimizer=_adam),
    _zoo("bidirectional_gru"),
    _zoo("normalization_adapted", loss="mse", optimizer=_sgd),
    _zoo("string_lookup", twin_adapts=True),
    _zoo("text_to_lstm", twin_adapts=True),
    _zoo("quantized_int8"),
    FileCase(
        "masked_language_model",
        _masked_language_model,
        lambda rng: rng.integers(0, 20, size=(4, 6)).astype("int32"),
        loss="mse",
        # not Adam: Keras 3's Adam squares an embedding's sparse gradient before summing a token's repeats
        # (tfkit sums first, as the dense gradient does), so Keras's next step would differ from tfkit's
        optimizer=_sgd,
        custom=True,
        keras_writes=True,
    ),
    FileCase(
        "weighted_loss",
        _weighted_loss_model,
        _floats(4, 5),
        loss="mse",
        optimizer=_sgd,
        custom=True,
        keras="Keras 3 saves a Model subclass whose __init__ takes more than (inputs, outputs, name) without "
        "its layers (Functional.get_config falls back to the base keys), so Keras cannot rebuild it from any file",
    ),
    FileCase("own_graph", _own_graph_model, _floats(4, 5), loss="mse", optimizer=_adam, custom=True, keras_writes=True),
    FileCase("two_towers", _two_towers, _floats(4, 3), loss="mse", optimizer=_adam, custom=True, keras_writes=True),
    FileCase(
        "guide_resnet",
        _guide_resnet,
        lambda rng: rng.random((4, 6, 6, 4)).astype("float32"),
        loss="mse",
        optimizer=_adam,
        keras="the seed guide's ResNet is a tfkit class of a test module, unregistered (custom_objects)",
    ),
    FileCase(
        "mixed_float16",
        _mixed_float16,
        _floats(4, 6),
        loss="mse",
        optimizer=_adam,
        policy="mixed_float16",
        tolerance=1e-3,
    ),
    FileCase(
        "mixed_bfloat16",
        _mixed_bfloat16,
        _floats(4, 4, 3),
        loss="mse",
        optimizer=_sgd,
        policy="mixed_bfloat16",
        tolerance=1e-2,
    ),
    FileCase(
        "mobilenet", _mobilenet, lambda rng: rng.uniform(0, 255, (2, 32, 32, 3)).astype("float32"), tolerance=1e-4
    ),
]

# ------------------------------------------------------------------ preparing a case


def outputs(model: Any, x: Any) -> list[np.ndarray]:
    """The model's outputs on ``x`` (inference), flattened, as float64 arrays."""
    return [np.asarray(t, dtype=np.float64) for t in tf.nest.flatten(model(tf.nest.map_structure(tf.constant, x)))]


def targets(model: Any, x: Any, seed: int) -> Any:
    """Random regression targets shaped like the model's outputs (a dict of outputs gets a dict)."""
    rng = np.random.default_rng(seed)
    predicted = model(tf.nest.map_structure(tf.constant, x))
    return tf.nest.map_structure(lambda t: rng.normal(size=tuple(t.shape)).astype("float32"), predicted)


class policy_scope:
    """The global dtype policy of framework ``k`` set to ``name`` inside the block (nothing when ``name`` is None)."""

    def __init__(self, k: Any, name: str | None):
        self.k, self.name, self.before = k, name, None

    def __enter__(self):
        if self.name is not None:
            self.before = self.k.mixed_precision.global_policy().name
            self.k.mixed_precision.set_global_policy(self.name)

    def __exit__(self, *exc):
        if self.name is not None:
            self.k.mixed_precision.set_global_policy(self.before)


def prepare(case: FileCase, k: Any, seed: int = 0) -> tuple[Any, Any, Any]:
    """``(model, x, y)``: the case's model for framework ``k``, adapted, with random weights, and when compiled,
    trained one step on ``(x, y)`` so its optimizer has state; ``y`` is None for a model that is not compiled."""
    custom_objects(k)
    x = case.inputs(np.random.default_rng(seed))
    with policy_scope(k, case.policy):
        model = case.build(k)
        if case.adapt is not None:
            case.adapt(model)
        model(tf.nest.map_structure(tf.constant, x))  # a subclassed model is built by its first call
        randomize(model, seed)
        y = None
        if case.compiled:
            model.compile(optimizer=case.optimizer(k), loss=case.loss)
            y = targets(model, x, seed + 1)
            model.fit(x, y, batch_size=len(tf.nest.flatten(x)[0]), epochs=1, shuffle=False, verbose=0)
    return model, x, y


def fresh_twin(case: FileCase, k: Any) -> Any:
    """The case's model built again with fresh weights (adapted on the same data where its vocabulary is not a
    weight), for a weights file."""
    x = case.inputs(np.random.default_rng(0))
    with policy_scope(k, case.policy):
        twin = case.build(k)
        if case.twin_adapts:
            case.adapt(twin)
        twin(tf.nest.map_structure(tf.constant, x))
    return twin


def next_step(model: Any, x: Any, y: Any) -> tuple[float, list[np.ndarray]]:
    """One ``train_on_batch`` on ``(x, y)``: its loss and the weights after it."""
    model.reset_metrics()
    logs = model.train_on_batch(x, y, return_dict=True)
    return float(logs["loss"]), [np.asarray(w, dtype=np.float64) for w in model.weights]


# ------------------------------------------------------------------ the Keras 3 side, in its own process

KERAS_SEED = 3  # the seed of the models Keras saves (tfkit's are prepared with 0)


def _keras_side(plan_path: str) -> None:
    """Keras loads each planned tfkit file and predicts; it saves its own file of each case tfkit should read."""
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras

    custom_objects(keras)
    with open(plan_path) as handle:
        plan = json.load(handle)
    cases = {case.name: case for case in CASES}
    results: dict[str, Any] = {}
    for name, entry in plan["load"].items():  # tfkit's .keras files: Keras's predictions on the same inputs
        try:
            model = keras.saving.load_model(entry["path"])
            x = cases[name].inputs(np.random.default_rng(0))
            np.savez(entry["out"], *outputs(model, x))
            results[name] = {"loaded": type(model).__name__}
        except Exception as error:  # reported by the test, case by case
            results[name] = {"error": f"{type(error).__name__}: {str(error)[:1500]}"}
    for name, entry in plan["write"].items():  # Keras's own .keras files, with Keras's predictions
        try:
            model, x, y = prepare(cases[name], keras, seed=KERAS_SEED)
            model.save(entry["path"])
            np.savez(entry["out"], *outputs(model, x))
            if y is not None:  # Keras's next training step from its file's state: the outputs after it
                next_step(model, x, y)
                np.savez(entry["after"], *outputs(model, x))
            results.setdefault(name, {})["written"] = True
        except Exception as error:
            results.setdefault(name, {})["write_error"] = f"{type(error).__name__}: {str(error)[:1500]}"
    with open(plan["results"], "w") as handle:
        json.dump(results, handle)


if __name__ == "__main__":
    _keras_side(sys.argv[1])
