"""The floor: the same models as raw ``tf.Variable``s and ops, one ``tf.function`` call an epoch.

    load("raw_tf"); metrics, info = train(job, x, y)
    metrics, missing, info = predict(job, x, export_dir)

The epoch's ``tf.function`` is built once per fit (``train``), before the first
epoch, and traced once, in the first epoch, as a framework's ``fit`` traces its
step: later epochs call the same concrete function (``info["traces"]`` counts the
traces of the whole fit: 1, or 2 for the ``"python"`` loop's short last batch).
Each epoch is ONE call of a ``tf.function`` that shuffles an index vector, loops
over the batches in the graph (``tf.gather`` on the data tensors), and applies
Adam written out exactly as Keras does it (bias correction folded into the step
size, epsilon 1e-7). No XLA, no Keras, no tfkit. Initializers follow Keras's
defaults (Glorot-uniform kernels, zero biases, orthogonal recurrent kernels,
uniform(-0.05, 0.05) embeddings, forget-gate bias 1, layer-norm scale 1).

The ``tfdata`` floor consumes the very ``tf.data`` pipeline the frameworks get:
one ``tf.function`` per epoch drains an iterator of the dataset in a graph
``while`` loop (``get_next_as_optional``). Of the hand-written ways measured on
2 cores it used the least CPU per epoch (about 0.8 s against 1.0-1.1 s for
``for x, y in dataset`` inside a ``tf.function``, ``TFDATA_LOOP = "graph"``, and
1.5 s for a Python loop calling a compiled step per batch, ``"python"``).
Models the frameworks train with metrics (accuracy, MAE) compute the same
metrics here, as running sums in the graph.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from bench import timing
from bench.data import SHUFFLE_BUFFER

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

    def __init__(
        self,
        params: list[Any],
        learning_rate: float = 1e-3,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
    ) -> None:
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
            "enc_proj": _glorot(rng, (784, 64)),
            "enc_proj_b": _zeros((64,)),
            "mean": _glorot(rng, (64, 32)),
            "mean_b": _zeros((32,)),
            "log_var": _glorot(rng, (64, 32)),
            "log_var_b": _zeros((32,)),
            "dec_proj": _glorot(rng, (32, 64)),
            "dec_proj_b": _zeros((64,)),
            "out": _glorot(rng, (64, 784)),
            "out_b": _zeros((784,)),
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


class VaeTrainStep(Vae):
    """The VAE with its own train_step computes the same loss: MSE + the KL term."""


class Transformer:
    """keras-io's text classifier: token + position embedding, MHA(2 heads, key_dim 32), LN, FFN, pooled head.

    ``loss`` runs in training mode (dropout 0.1 where the example has it) and
    keeps the accuracy as running sums, as ``metrics=["accuracy"]`` does.
    """

    def __init__(
        self,
        rng: np.random.Generator,
        vocab: int = 20_000,
        maxlen: int = 200,
        embed: int = 32,
        heads: int = 2,
        key_dim: int = 32,
        ff: int = 32,
    ) -> None:
        self.heads, self.key_dim = heads, key_dim
        uniform = lambda shape: tf.Variable(rng.uniform(-0.05, 0.05, size=shape).astype("float32"))
        self.w = {
            "token_emb": uniform((vocab, embed)),
            "pos_emb": uniform((maxlen, embed)),
            "query": _glorot(rng, (embed, heads, key_dim)),
            "query_b": _zeros((heads, key_dim)),
            "key": _glorot(rng, (embed, heads, key_dim)),
            "key_b": _zeros((heads, key_dim)),
            "value": _glorot(rng, (embed, heads, key_dim)),
            "value_b": _zeros((heads, key_dim)),
            "attn_out": _glorot(rng, (heads, key_dim, embed)),
            "attn_out_b": _zeros((embed,)),
            "ln1_gamma": tf.Variable(np.ones(embed, "float32")),
            "ln1_beta": _zeros((embed,)),
            "ffn1": _glorot(rng, (embed, ff)),
            "ffn1_b": _zeros((ff,)),
            "ffn2": _glorot(rng, (ff, embed)),
            "ffn2_b": _zeros((embed,)),
            "ln2_gamma": tf.Variable(np.ones(embed, "float32")),
            "ln2_beta": _zeros((embed,)),
            "dense": _glorot(rng, (embed, 20)),
            "dense_b": _zeros((20,)),
            "head": _glorot(rng, (20, 2)),
            "head_b": _zeros((2,)),
        }
        self.metric_sums = [tf.Variable(0.0), tf.Variable(0.0)]  # correct, seen

    @staticmethod
    def _layer_norm(x: Any, gamma: Any, beta: Any) -> Any:
        mean, variance = tf.nn.moments(x, axes=[-1], keepdims=True)
        return (x - mean) * tf.math.rsqrt(variance + 1e-6) * gamma + beta

    def loss(self, tokens: Any, y: Any) -> Any:
        w, rate = self.w, 0.1
        x = tf.gather(w["token_emb"], tokens) + w["pos_emb"][: tf.shape(tokens)[1]]
        query = (tf.einsum("btd,dhk->bthk", x, w["query"]) + w["query_b"]) * (1.0 / np.sqrt(self.key_dim))
        key = tf.einsum("bsd,dhk->bshk", x, w["key"]) + w["key_b"]
        value = tf.einsum("bsd,dhk->bshk", x, w["value"]) + w["value_b"]
        scores = tf.nn.softmax(tf.einsum("bshk,bthk->bhts", key, query), axis=-1)
        attended = tf.einsum("bhts,bshk->bthk", scores, value)
        attended = tf.einsum("bthk,hkd->btd", attended, w["attn_out"]) + w["attn_out_b"]
        out1 = self._layer_norm(x + tf.nn.dropout(attended, rate), w["ln1_gamma"], w["ln1_beta"])
        ffn = tf.nn.relu(tf.einsum("btd,df->btf", out1, w["ffn1"]) + w["ffn1_b"])
        ffn = tf.einsum("btf,fd->btd", ffn, w["ffn2"]) + w["ffn2_b"]
        h = self._layer_norm(out1 + tf.nn.dropout(ffn, rate), w["ln2_gamma"], w["ln2_beta"])
        h = tf.nn.dropout(tf.reduce_mean(h, axis=1), rate)
        h = tf.nn.dropout(tf.nn.relu(tf.matmul(h, w["dense"]) + w["dense_b"]), rate)
        logits = tf.matmul(h, w["head"]) + w["head_b"]
        correct = tf.cast(tf.equal(tf.argmax(logits, axis=-1, output_type=tf.int32), y), tf.float32)
        self.metric_sums[0].assign_add(tf.reduce_sum(correct))
        self.metric_sums[1].assign_add(tf.cast(tf.size(y), tf.float32))
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


class MultiIo:
    """image (784) -> Dense(128, relu); aux (10) -> Dense(32, relu); concat -> Dense(64, relu);
    -> digit: Dense(10) softmax (sparse CE + accuracy), value: Dense(1) (MSE + MAE); loss = sum."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.w = {
            "image": _glorot(rng, (784, 128)),
            "image_b": _zeros((128,)),
            "aux": _glorot(rng, (10, 32)),
            "aux_b": _zeros((32,)),
            "trunk": _glorot(rng, (160, 64)),
            "trunk_b": _zeros((64,)),
            "digit": _glorot(rng, (64, 10)),
            "digit_b": _zeros((10,)),
            "value": _glorot(rng, (64, 1)),
            "value_b": _zeros((1,)),
        }
        self.metric_sums = [tf.Variable(0.0), tf.Variable(0.0), tf.Variable(0.0)]  # correct, |error|, seen

    def loss(self, x: Any, y: Any) -> Any:
        w = self.w
        image = tf.nn.relu(tf.matmul(x["image"], w["image"]) + w["image_b"])
        aux = tf.nn.relu(tf.matmul(x["aux"], w["aux"]) + w["aux_b"])
        h = tf.nn.relu(tf.matmul(tf.concat([image, aux], axis=-1), w["trunk"]) + w["trunk_b"])
        logits = tf.matmul(h, w["digit"]) + w["digit_b"]
        value = tf.matmul(h, w["value"]) + w["value_b"]
        digit_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y["digit"], logits=logits))
        error = value - y["value"]
        correct = tf.cast(tf.equal(tf.argmax(logits, axis=-1, output_type=tf.int32), y["digit"]), tf.float32)
        self.metric_sums[0].assign_add(tf.reduce_sum(correct))
        self.metric_sums[1].assign_add(tf.reduce_sum(tf.abs(error)))
        self.metric_sums[2].assign_add(tf.cast(tf.size(y["digit"]), tf.float32))
        return digit_loss + tf.reduce_mean(tf.square(error))


class Cnn:
    """Conv2D(32,3,relu) -> MaxPool(2) -> Conv2D(64,3,relu) -> MaxPool(2) -> Flatten -> Dense(10)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.w = {
            "conv1": _glorot(rng, (3, 3, 1, 32)),
            "conv1_b": _zeros((32,)),
            "conv2": _glorot(rng, (3, 3, 32, 64)),
            "conv2_b": _zeros((64,)),
            "dense": _glorot(rng, (1600, 10)),
            "dense_b": _zeros((10,)),
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
        bias[self.units : 2 * self.units] = 1.0  # unit_forget_bias
        self.w = {
            "embedding": tf.Variable(rng.uniform(-0.05, 0.05, size=(1000, 64)).astype("float32")),
            "kernel": _glorot(rng, (64, 4 * self.units)),
            "recurrent": _orthogonal(rng, self.units, 4 * self.units),
            "bias": tf.Variable(bias),
            "dense": _glorot(rng, (self.units, 1)),
            "dense_b": _zeros((1,)),
        }

    def loss(self, tokens: Any, y: Any) -> Any:
        w, units = self.w, self.units
        mask = tf.transpose(tf.not_equal(tokens, 0))[:, :, None]  # (T, B, 1)
        inputs = tf.gather(w["embedding"], tokens)  # (B, T, 64)
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


MODELS = {
    "vae": Vae,
    "vae_train_step": VaeTrainStep,
    "tfdata": Vae,
    "cnn": Cnn,
    "lstm": Lstm,
    "transformer": Transformer,
    "functional_multi_io": MultiIo,
}
TFDATA_LOOP = "iterator"  # how the tfdata floor consumes the dataset: "iterator" (fastest measured), "graph", "python"


def make_epoch_function(
    loss_fn: Callable[[Any, Any], Any], params: list[Any], optimizer: Adam, samples: int, batch_size: int
) -> Callable[[Any, Any], Any]:
    """One ``tf.function`` that trains a whole epoch and returns the sample-weighted mean loss."""
    steps = -(-samples // batch_size)

    @tf.function
    def train_epoch(x: Any, y: Any) -> Any:
        order = tf.random.shuffle(tf.range(samples))
        total = tf.constant(0.0)
        for step in tf.range(steps):
            batch = order[step * batch_size : tf.minimum((step + 1) * batch_size, samples)]
            take = lambda tensor: tf.gather(tensor, batch)
            with tf.GradientTape() as tape:
                loss = loss_fn(tf.nest.map_structure(take, x), tf.nest.map_structure(take, y))
            optimizer.apply(tape.gradient(loss, params))
            total += loss * tf.cast(tf.shape(batch)[0], tf.float32)
        return total / samples

    return train_epoch


def make_dataset_epoch_function(
    loss_fn: Callable[[Any, Any], Any], params: list[Any], optimizer: Adam, loop: str = TFDATA_LOOP
) -> Callable[[Any], Any]:
    """Train one epoch over a batched ``tf.data.Dataset``; returns the sample-weighted mean loss."""

    @tf.function
    def train_step(x: Any, y: Any) -> tuple[Any, Any]:
        with tf.GradientTape() as tape:
            loss = loss_fn(x, y)
        optimizer.apply(tape.gradient(loss, params))
        return loss * tf.cast(tf.shape(x)[0], tf.float32), tf.cast(tf.shape(x)[0], tf.float32)

    @tf.function
    def train_epoch_in_graph(dataset: Any) -> Any:
        total, seen = tf.constant(0.0), tf.constant(0.0)
        for x, y in dataset:
            with tf.GradientTape() as tape:
                loss = loss_fn(x, y)
            optimizer.apply(tape.gradient(loss, params))
            count = tf.cast(tf.shape(x)[0], tf.float32)
            total += loss * count
            seen += count
        return total / seen

    @tf.function
    def train_epoch_on_iterator(iterator: Any) -> Any:
        total, seen = tf.constant(0.0), tf.constant(0.0)
        batch = iterator.get_next_as_optional()
        while batch.has_value():
            x, y = batch.get_value()
            with tf.GradientTape() as tape:
                loss = loss_fn(x, y)
            optimizer.apply(tape.gradient(loss, params))
            count = tf.cast(tf.shape(x)[0], tf.float32)
            total += loss * count
            seen += count
            batch = iterator.get_next_as_optional()
        return total / seen

    def train_epoch_python(dataset: Any) -> Any:
        total, seen = 0.0, 0.0
        for x, y in dataset:
            weighted, count = train_step(x, y)
            total, seen = total + weighted, seen + count
        return total / seen

    loops = {
        "graph": train_epoch_in_graph,
        "iterator": lambda dataset: train_epoch_on_iterator(iter(dataset)),
        "python": train_epoch_python,
    }
    if loop not in loops:
        raise ValueError(f"loop must be one of {', '.join(loops)}, not {loop!r}")
    return loops[loop]


LOOP_INFO = {
    "arrays": "one tf.function per epoch, in-graph tf.gather batches",
    "graph": "one tf.function per epoch iterating the tf.data pipeline in the graph (for x, y in dataset)",
    "iterator": "one tf.function per epoch draining an iterator of the tf.data pipeline (get_next_as_optional)",
    "python": "a Python loop over the tf.data pipeline calling a tf.function step per batch",
}


def _reset_metric_sums(model: Any) -> None:
    for variable in getattr(model, "metric_sums", ()):
        variable.assign(0.0)


def train(job: dict[str, Any], x: Any, y: Any) -> tuple[dict[str, float], dict[str, Any]]:
    workload = job["workload"]
    model = MODELS[workload](np.random.default_rng(0))
    params = list(model.w.values())
    optimizer = Adam(params, learning_rate=1e-3)
    traces = [0]

    def loss_fn(x: Any, y: Any) -> Any:  # Python runs this only while a tf.function traces it
        traces[0] += 1
        return model.loss(x, y)

    fit_start = time.perf_counter()
    if workload == "tfdata":
        loop = TFDATA_LOOP
        dataset = (
            tf.data.Dataset.from_tensor_slices((x, y))
            .shuffle(SHUFFLE_BUFFER)
            .batch(job["batch_size"])
            .prefetch(tf.data.AUTOTUNE)
        )
        train_epoch = make_dataset_epoch_function(loss_fn, params, optimizer, loop)
        run_epoch = lambda: train_epoch(dataset)
    else:
        loop = "arrays"
        samples = len(tf.nest.flatten(x)[0])
        train_epoch = make_epoch_function(loss_fn, params, optimizer, samples, job["batch_size"])
        x_tensor = tf.nest.map_structure(tf.convert_to_tensor, x)
        y_tensor = x_tensor if y is x else tf.nest.map_structure(tf.convert_to_tensor, y)
        run_epoch = lambda: train_epoch(x_tensor, y_tensor)
    epoch_ends, losses, rss = [], [], []
    for _ in range(job["epochs"]):
        _reset_metric_sums(model)  # metrics restart every epoch, as in fit
        losses.append(float(run_epoch()))
        epoch_ends.append(time.perf_counter())
        rss.append(timing.current_rss_mib())
    info = {
        "loop": LOOP_INFO[loop],
        "jit_compile": "False",
        "traces": traces[0],
        "params": int(sum(int(np.prod(p.shape)) for p in params)),
    }
    return timing.epoch_metrics(fit_start, epoch_ends, losses, rss), info


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
            outputs = outputs.write(step, model.forward(inputs[step * batch_size : (step + 1) * batch_size])[0])
        return outputs.concat()

    calls = 2 if job["quick"] else 5
    metrics = timing.predict_metrics(lambda: predict_all(x).numpy(), len(x), calls)
    module = _serving_module(model)
    tf.saved_model.save(module, export_dir, signatures={"serving_default": module.serve})
    metrics["serving_latency_ms"] = timing.serving_latency_ms(
        export_dir, x[:1], calls=timing.serving_calls(job["quick"])
    )
    return metrics, {}, {"loop": "one tf.function over all batches", "jit_compile": "False"}
