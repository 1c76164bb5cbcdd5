"""The floor: the same models as raw ``tf.Variable``s and ops, one ``tf.function`` an epoch.

    load("raw_tf"); metrics, info = train(job, x, y)
    metrics, missing, info = predict(job, x, export_dir)

Each epoch is ONE call of a ``tf.function`` that shuffles an index vector, loops
over the batches in the graph (``tf.gather`` on the data tensors), and applies
Adam written out exactly as Keras does it (bias correction folded into the step
size, epsilon 1e-7). No XLA, no Keras, no tfkit. Initializers follow Keras's
defaults (Glorot-uniform kernels, zero biases, orthogonal recurrent kernels,
uniform(-0.05, 0.05) embeddings, forget-gate bias 1).
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from bench import timing

tf: Any = None


def load(peer: str) -> None:
    global tf
    import tensorflow

    tf = tensorflow


# ---------------------------------------------------------------- parameters

def _glorot(rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return tf.Variable(rng.uniform(-limit, limit, size=shape).astype("float32"))


def _zeros(shape: tuple[int, ...]) -> Any:
    return tf.Variable(np.zeros(shape, dtype="float32"))


def _orthogonal(rng: np.random.Generator, rows: int, cols: int) -> Any:
    q, r = np.linalg.qr(rng.normal(size=(max(rows, cols), min(rows, cols))))
    q = q * np.sign(np.diag(r))
    q = q if rows >= cols else q.T
    return tf.Variable(q[:rows, :cols].astype("float32"))


class Adam:
    """Keras's Adam: ``alpha = lr * sqrt(1 - b2^t) / (1 - b1^t)``, ``var -= alpha * m / (sqrt(v) + eps)``."""

    def __init__(self, params: list[Any], learning_rate: float = 1e-3, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7) -> None:
        self.params = params
        self.learning_rate, self.beta_1, self.beta_2, self.epsilon = learning_rate, beta_1, beta_2, epsilon
        self.momentums = [tf.Variable(tf.zeros_like(p)) for p in params]
        self.velocities = [tf.Variable(tf.zeros_like(p)) for p in params]
        self.iterations = tf.Variable(0, dtype=tf.int64)

    def apply(self, gradients: list[Any]) -> None:
        local_step = tf.cast(self.iterations + 1, tf.float32)
        beta_1_power = tf.pow(tf.constant(self.beta_1, tf.float32), local_step)
        beta_2_power = tf.pow(tf.constant(self.beta_2, tf.float32), local_step)
        alpha = self.learning_rate * tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        for param, gradient, m, v in zip(self.params, gradients, self.momentums, self.velocities):
            gradient = tf.convert_to_tensor(gradient)  # embedding gradients come as IndexedSlices
            m.assign_add((gradient - m) * (1 - self.beta_1))
            v.assign_add((tf.square(gradient) - v) * (1 - self.beta_2))
            param.assign_sub(alpha * m / (tf.sqrt(v) + self.epsilon))
        self.iterations.assign_add(1)


# -------------------------------------------------------------------- models

class Vae:
    """The guide's VAE (784-64-32) as a function of its variables."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.w = {
            "enc_proj": _glorot(rng, (784, 64)), "enc_proj_b": _zeros((64,)),
            "mean": _glorot(rng, (64, 32)), "mean_b": _zeros((32,)),
            "log_var": _glorot(rng, (64, 32)), "log_var_b": _zeros((32,)),
            "dec_proj": _glorot(rng, (32, 64)), "dec_proj_b": _zeros((64,)),
            "out": _glorot(rng, (64, 784)), "out_b": _zeros((784,)),
        }

    def forward(self, x: Any) -> tuple[Any, Any]:
        w = self.w
        h = tf.nn.relu(tf.matmul(x, w["enc_proj"]) + w["enc_proj_b"])
        z_mean = tf.matmul(h, w["mean"]) + w["mean_b"]
        z_log_var = tf.matmul(h, w["log_var"]) + w["log_var_b"]
        z = z_mean + tf.exp(0.5 * z_log_var) * tf.random.normal(tf.shape(z_mean))
        h = tf.nn.relu(tf.matmul(z, w["dec_proj"]) + w["dec_proj_b"])
        reconstructed = tf.sigmoid(tf.matmul(h, w["out"]) + w["out_b"])
        kl = -0.5 * tf.reduce_mean(z_log_var - tf.square(z_mean) - tf.exp(z_log_var) + 1)
        return reconstructed, kl

    def loss(self, x: Any, y: Any) -> Any:
        reconstructed, kl = self.forward(x)
        return tf.reduce_mean(tf.square(reconstructed - y)) + kl


class Cnn:
    """Conv2D(32,3,relu) -> MaxPool(2) -> Conv2D(64,3,relu) -> MaxPool(2) -> Flatten -> Dense(10)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.w = {
            "conv1": _glorot(rng, (3, 3, 1, 32)), "conv1_b": _zeros((32,)),
            "conv2": _glorot(rng, (3, 3, 32, 64)), "conv2_b": _zeros((64,)),
            "dense": _glorot(rng, (1600, 10)), "dense_b": _zeros((10,)),
        }

    def loss(self, x: Any, y: Any) -> Any:
        w = self.w
        h = tf.nn.relu(tf.nn.conv2d(x, w["conv1"], 1, "VALID") + w["conv1_b"])
        h = tf.nn.max_pool2d(h, 2, 2, "VALID")
        h = tf.nn.relu(tf.nn.conv2d(h, w["conv2"], 1, "VALID") + w["conv2_b"])
        h = tf.nn.max_pool2d(h, 2, 2, "VALID")
        logits = tf.matmul(tf.reshape(h, (-1, 1600)), w["dense"]) + w["dense_b"]
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


class Lstm:
    """Embedding(1000, 64, mask_zero) -> LSTM(64) -> Dense(1) logits; masked steps keep the state."""

    units = 64

    def __init__(self, rng: np.random.Generator) -> None:
        bias = np.zeros(4 * self.units, dtype="float32")
        bias[self.units:2 * self.units] = 1.0  # unit_forget_bias
        self.w = {
            "embedding": tf.Variable(rng.uniform(-0.05, 0.05, size=(1000, 64)).astype("float32")),
            "kernel": _glorot(rng, (64, 4 * self.units)),
            "recurrent": _orthogonal(rng, self.units, 4 * self.units),
            "bias": tf.Variable(bias),
            "dense": _glorot(rng, (self.units, 1)), "dense_b": _zeros((1,)),
        }

    def loss(self, tokens: Any, y: Any) -> Any:
        w, units = self.w, self.units
        mask = tf.transpose(tf.not_equal(tokens, 0))[:, :, None]           # (T, B, 1)
        inputs = tf.gather(w["embedding"], tokens)                          # (B, T, 64)
        projected = tf.transpose(tf.einsum("btd,dk->btk", inputs, w["kernel"]) + w["bias"], (1, 0, 2))
        steps = tf.shape(tokens)[1]
        # A TensorArray, not projected[t]: a slice's gradient would be a full (T, B, 4U) tensor per step.
        projected = tf.TensorArray(tf.float32, size=steps).unstack(projected)
        batch = tf.shape(tokens)[0]
        state = (tf.zeros((batch, units)), tf.zeros((batch, units)))

        def step(t: Any, h: Any, c: Any) -> tuple[Any, Any, Any]:
            z = projected.read(t) + tf.matmul(h, w["recurrent"])
            i, f, g, o = tf.split(z, 4, axis=1)
            c_new = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
            h_new = tf.sigmoid(o) * tf.tanh(c_new)
            return t + 1, tf.where(mask[t], h_new, h), tf.where(mask[t], c_new, c)

        _, h, _ = tf.while_loop(lambda t, h, c: t < steps, step, (0,) + state)
        logits = tf.matmul(h, w["dense"]) + w["dense_b"]
        return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))


MODELS = {"vae": Vae, "cnn": Cnn, "lstm": Lstm}


def make_epoch_function(loss_fn: Callable[[Any, Any], Any], params: list[Any], optimizer: Adam,
                        samples: int, batch_size: int) -> Callable[[Any, Any], Any]:
    """One ``tf.function`` that trains a whole epoch and returns the sample-weighted mean loss."""
    steps = -(-samples // batch_size)

    @tf.function
    def train_epoch(x: Any, y: Any) -> Any:
        order = tf.random.shuffle(tf.range(samples))
        total = tf.constant(0.0)
        for step in tf.range(steps):
            batch = order[step * batch_size:tf.minimum((step + 1) * batch_size, samples)]
            with tf.GradientTape() as tape:
                loss = loss_fn(tf.gather(x, batch), tf.gather(y, batch))
            optimizer.apply(tape.gradient(loss, params))
            total += loss * tf.cast(tf.shape(batch)[0], tf.float32)
        return total / samples

    return train_epoch


def train(job: dict[str, Any], x: Any, y: Any) -> tuple[dict[str, float], dict[str, Any]]:
    model = MODELS[job["workload"]](np.random.default_rng(0))
    params = list(model.w.values())
    optimizer = Adam(params, learning_rate=1e-3)
    train_epoch = make_epoch_function(model.loss, params, optimizer, len(x), job["batch_size"])
    fit_start = time.perf_counter()
    x_tensor = tf.convert_to_tensor(x)
    y_tensor = x_tensor if y is x else tf.convert_to_tensor(y)
    epoch_ends, losses = [], []
    for _ in range(job["epochs"]):
        losses.append(float(train_epoch(x_tensor, y_tensor)))
        epoch_ends.append(time.perf_counter())
    info = {"loop": "one tf.function per epoch, in-graph tf.gather batches", "jit_compile": "False"}
    return timing.epoch_metrics(fit_start, epoch_ends, losses), info


def _serving_module(model: Vae) -> Any:
    """A ``tf.Module`` whose ``serve`` is the VAE's forward pass on a (None, 784) batch."""

    class Serving(tf.Module):
        def __init__(self) -> None:
            super().__init__(name="raw_vae")
            self.weights = list(model.w.values())

        @tf.function(input_signature=[tf.TensorSpec([None, 784], tf.float32, name="inputs")])
        def serve(self, inputs: Any) -> dict[str, Any]:
            return {"output_0": model.forward(inputs)[0]}

    return Serving()


def predict(job: dict[str, Any], x: Any, export_dir: str) -> tuple[dict, dict, dict]:
    model = Vae(np.random.default_rng(0))
    batch_size = job["batch_size"]

    @tf.function
    def predict_all(inputs: Any) -> Any:
        steps = (tf.shape(inputs)[0] + batch_size - 1) // batch_size
        outputs = tf.TensorArray(tf.float32, size=steps, infer_shape=False)
        for step in tf.range(steps):
            outputs = outputs.write(step, model.forward(inputs[step * batch_size:(step + 1) * batch_size])[0])
        return outputs.concat()

    calls = 2 if job["quick"] else 5
    metrics = timing.predict_metrics(lambda: predict_all(x).numpy(), len(x), calls)
    module = _serving_module(model)
    tf.saved_model.save(module, export_dir, signatures={"serving_default": module.serve})
    metrics["serving_latency_ms"] = timing.serving_latency_ms(
        export_dir, x[:1], calls=100 if job["quick"] else 300)
    return metrics, {}, {"loop": "one tf.function over all batches", "jit_compile": "False"}
