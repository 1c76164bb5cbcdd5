"""``SpectralNormalization``: keep a layer's kernel at spectral norm about 1 by power iteration (GAN critics).

    critic = tfkit.layers.SpectralNormalization(tfkit.layers.Conv2D(64, 3), power_iterations=1)
    y = critic(images, training=True)      # kernel <- kernel / sigma, sigma estimated with vector_u
    y = critic(images)                     # inference: the kernel and vector_u are left as they are

Keras 3's layer: ``vector_u`` ``(1, kernel.shape[-1])`` is a non-trainable weight
(truncated normal, stddev 0.02) holding the power iteration's state. Each
training call runs ``power_iterations`` steps ``v = normalize(u W^T)``,
``u = normalize(v W)`` on the kernel flattened to ``(-1, out)``, then writes
``u`` back and divides the kernel *in place* by ``sigma = v W u^T`` (an
all-zero kernel is left alone). Calls with ``training`` false change nothing.
The wrapped layer needs a ``kernel`` (Dense, Conv*, ...) or ``embeddings``
(Embedding); once built, ``self.kernel`` is that variable (its weight path is
``<wrapper>/kernel``, and Keras's ``.keras`` files, which store it among the
wrapper's variables, load). One deliberate difference: Keras casts the output to the
inputs' dtype, which turns an ``Embedding``'s vectors into integers; tfkit
casts only floating inputs and returns an ``Embedding``'s floats.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfkit import initializers
from tfkit.base import registry
from tfkit.base.argument_validation import positive_int
from tfkit.engine.input_spec import InputSpec
from tfkit.layers.wrappers import Wrapper

__all__ = ["SpectralNormalization"]

_EPSILON = 1e-7  # Keras's backend.epsilon(): normalize() never divides by less


def _normalize(x: tf.Tensor) -> tf.Tensor:
    """``x / ||x||`` over all entries, as Keras's ``ops.normalize(x, axis=None)``: ``x * min(rsqrt(sum x^2), 1/eps)``."""
    return x * tf.minimum(tf.math.rsqrt(tf.reduce_sum(tf.square(x))), tf.cast(1.0 / _EPSILON, x.dtype))


def power_iteration(kernel: tf.Tensor, vector_u: tf.Tensor, iterations: int) -> tuple[tf.Tensor, tf.Tensor]:
    """``(new vector_u, kernel / sigma)``: ``iterations`` steps on the kernel flattened to ``(-1, out)``."""
    weights = tf.reshape(kernel, [-1, kernel.shape[-1]])
    u = vector_u
    v = u
    for _ in range(iterations):
        v = _normalize(tf.matmul(u, weights, transpose_b=True))
        u = _normalize(tf.matmul(v, weights))
    u, v = tf.stop_gradient(u), tf.stop_gradient(v)
    sigma = tf.matmul(tf.matmul(v, weights), u, transpose_b=True)
    return u, tf.reshape(kernel / sigma, tf.shape(kernel))


@registry.builtin("layers")
class SpectralNormalization(Wrapper):
    """Performs spectral normalization on the weights of a target layer.

    This wrapper constrains the spectral norm (the largest singular value) of
    the wrapped layer's `kernel` (`Dense`, `Conv*`, ...) or `embeddings`
    (`Embedding`) to about 1, which stabilizes the training of GAN
    discriminators (Miyato et al., 2018). It keeps the state of a power
    iteration in a non-trainable weight `vector_u` of shape
    `(1, kernel.shape[-1])` (truncated normal, stddev 0.02).

    Each training call runs `power_iterations` steps
    `v = normalize(u W^T)`, `u = normalize(v W)` on the kernel flattened to
    `(-1, out)`, writes `u` back, and divides the kernel in place by
    `sigma = v W u^T` (an all-zero kernel is left alone) before calling the
    wrapped layer. Calls with `training` false change nothing. Once built,
    `self.kernel` is the wrapped layer's variable (its weight path is
    `<wrapper>/kernel`, so Keras's `.keras` files load).

    One deliberate difference from Keras: Keras casts the output to the
    inputs' dtype, which turns an `Embedding`'s vectors into integers; tfkit
    casts only floating inputs and returns an `Embedding`'s floats.

    Args:
        layer: A `Layer` instance that has either a `kernel` (e.g. `Conv2D`,
            `Dense`) or an `embeddings` attribute (`Embedding`).
        power_iterations: Positive int, the number of power iterations per
            training call. Defaults to `1`.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: The inputs of the wrapped layer.
        training: Python boolean: if true, normalize the kernel (and update
            `vector_u`) before the call. Defaults to `False`.

    Input shape:
        The wrapped layer's input shape (rank 1 or more).

    Output shape:
        The wrapped layer's output shape.

    Raises:
        ValueError: If `power_iterations` is not a positive integer, or (at
            build time) the wrapped layer has neither a `kernel` nor an
            `embeddings` weight.

    Example:
        >>> layer = tfkit.layers.SpectralNormalization(tfkit.layers.Dense(3), power_iterations=20)
        >>> layer(np.ones((2, 4)), training=True).shape
        TensorShape([2, 3])
        >>> layer.vector_u.shape
        TensorShape([1, 3])
        >>> round(float(np.linalg.norm(layer.kernel.numpy(), 2)), 2)
        1.0
    """

    def __init__(self, layer: Any, power_iterations: int = 1, **kwargs: Any) -> None:
        super().__init__(layer, **kwargs)
        self.power_iterations = positive_int(
            power_iterations, "power_iterations", f"SpectralNormalization layer '{self.name}'"
        )

    def _kernel_variable(self) -> tf.Variable:
        """The wrapped layer's ``kernel`` (or ``embeddings``): the variable that training calls normalize."""
        for attribute in ("kernel", "embeddings"):
            variable = getattr(self.layer, attribute, None)
            if isinstance(variable, tf.Variable):
                return variable
        raise ValueError(
            f"SpectralNormalization layer '{self.name}' wraps {type(self.layer).__name__} '{self.layer.name}', "
            f"which has neither a `kernel` nor an `embeddings` weight; wrap a Dense, Conv or Embedding layer"
        )

    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        self.input_spec = InputSpec(min_ndim=1, axes={-1: tuple(input_shape)[-1]})
        kernel = self._kernel_variable()
        # Held here too, as Keras does: its files store the kernel among this layer's own variables.
        self.kernel = kernel
        self.kernel_shape = tuple(kernel.shape)
        self.vector_u = self.add_weight(
            shape=(1, self.kernel_shape[-1]),
            initializer=initializers.TruncatedNormal(stddev=0.02),
            trainable=False,
            name="vector_u",
            dtype=kernel.dtype,
            autocast=False,  # state, not a factor of the computation: read as stored under mixed precision
        )

    def normalized_weights(self) -> tuple[tf.Tensor, tf.Tensor]:
        """``(new vector_u, normalized kernel)`` from the current ones, in the variables' dtypes (Keras's name)."""
        kernel = self._kernel_variable()
        return power_iteration(tf.convert_to_tensor(kernel), tf.convert_to_tensor(self.vector_u), self.power_iterations)

    def call(self, inputs: Any, training: Any = False) -> Any:
        if training:
            kernel = self._kernel_variable()  # the variable itself (self.kernel reads cast under mixed precision)
            current = tf.convert_to_tensor(kernel)
            new_u, new_kernel = tf.cond(
                tf.reduce_all(tf.equal(current, 0)),
                lambda: (tf.convert_to_tensor(self.vector_u), current),
                self.normalized_weights,
            )
            self.vector_u.assign(new_u)
            kernel.assign(new_kernel)
        outputs = self.layer(inputs)
        dtype = getattr(inputs, "dtype", None)
        if dtype is not None and tf.as_dtype(dtype).is_floating:
            outputs = tf.nest.map_structure(lambda y: tf.cast(y, dtype), outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "power_iterations": self.power_iterations}
