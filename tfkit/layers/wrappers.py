"""Layers that wrap another layer: the ``Wrapper`` base, ``Bidirectional`` and ``TimeDistributed``.

    bi = tfkit.layers.Bidirectional(tfkit.layers.LSTM(16, return_sequences=True))
    y = bi(tf.ones((4, 10, 8)))                              # (4, 10, 32): forward ++ backward
    z = tfkit.layers.TimeDistributed(tfkit.layers.Dense(3))(tf.ones((4, 10, 8)))   # (4, 10, 3)

As in Keras 3, ``TimeDistributed`` (and ``SpectralNormalization``) derive from
``Wrapper``; ``Bidirectional`` is a plain layer holding two copies.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import tensorflow as tf

from tfkit.base import registry
from tfkit.engine.layer import Layer
from tfkit.layers.core import base_config

__all__ = ["Bidirectional", "TimeDistributed", "Wrapper"]

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _call_accepts(layer: Layer, argument: str) -> bool:
    try:
        params = inspect.signature(type(layer).call).parameters
    except (TypeError, ValueError):
        return False
    return argument in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def _renamed_copy(layer: Layer, prefix: str, **overrides: Any) -> Layer:
    """A fresh layer from ``layer``'s config, named ``prefix + name``, with ``overrides``."""
    config = layer.get_config()
    name = layer.name[len(prefix) :] if layer.name.startswith(prefix) else layer.name
    config.update(name=f"{prefix}{name}", **overrides)
    return type(layer).from_config(config)


def _as_layer(value: Any, who: str, what: str) -> Layer:
    if isinstance(value, dict):
        value = registry.resolve("layers", value)
    if not isinstance(value, Layer):
        raise ValueError(f"{who} expected {what} to be a tfkit Layer, got {type(value).__name__}: {value!r}")
    return value


# ------------------------------------------------------------------ Wrapper


class Wrapper(Layer):
    """Abstract wrapper base class.

    Wrappers take another layer (`self.layer`) and augment it in various
    ways. Subclasses write `call`; the base builds the wrapped layer on the
    wrapper's first build and saves it in the config under `"layer"`, as
    Keras 3's `keras.layers.Wrapper`. Do not use this class as a layer, it
    is only an abstract base class. It is not registered for loading:
    register your subclass (`tfkit.saving.register_keras_serializable`). Two
    usable wrappers are `TimeDistributed` and `SpectralNormalization`.

    Args:
        layer: The layer to be wrapped: a `Layer` instance, or its config
            dict.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Whatever the subclass's `call` takes.

    Input shape:
        Defined by the subclass (usually the wrapped layer's input shape).

    Output shape:
        Defined by the subclass.

    Raises:
        ValueError: If `layer` is not a `Layer` (or a layer config).

    Example:
        >>> class Double(tfkit.layers.Wrapper):
        ...     def call(self, inputs):
        ...         return 2 * self.layer(inputs)
        >>> double = Double(tfkit.layers.Dense(2, kernel_initializer="ones"))
        >>> double(np.ones((1, 3))).numpy()
        array([[6., 6.]], dtype=float32)
    """

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.layer = _as_layer(layer, f"{type(self).__name__} layer '{self.name}'", "layer")

    def build(self, input_shape: Any = None) -> None:
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config["layer"] = registry.to_config("layers", self.layer)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Wrapper":
        config = dict(config)
        config["layer"] = registry.resolve("layers", config["layer"])
        return super().from_config(config)


# ------------------------------------------------------------ Bidirectional


@registry.builtin("layers")
class Bidirectional(Layer):
    """Bidirectional wrapper for RNNs.

    Runs a recurrent layer forwards and a copy of it backwards over the same
    inputs, then merges the two outputs. The two layers are rebuilt from
    `layer`'s config as `forward_<name>` and `backward_<name>` (the latter
    with `go_backwards` flipped), so `layer` itself is not used. With
    `return_sequences=True` the backward outputs are flipped back into input
    order before merging, and masked timesteps output zeros in both
    directions. With `return_state` the forward states follow the output,
    then the backward states. `Bidirectional` is a plain layer holding the
    two copies (not a `Wrapper`), as in Keras 3.

    Args:
        layer: A recurrent layer instance (`RNN`, `LSTM`, `GRU`, ...) or a
            config dict of one: a layer with `go_backwards`,
            `return_sequences`, `return_state` and `stateful` attributes.
        merge_mode: Mode by which outputs of the forward and backward RNNs
            are combined: one of `"sum"`, `"mul"`, `"concat"`, `"ave"` or
            `None`. If `None`, the outputs are not combined, they are
            returned as a list `[forward, backward]`. Defaults to
            `"concat"`.
        weights: Optional list of initial weight arrays: the forward layer's
            weights, then the backward layer's, set when the layer is built
            (Keras 3 accepts and ignores this argument). Defaults to `None`.
        backward_layer: Optional recurrent layer instance (or config) to
            handle the backward input processing. It must have the opposite
            `go_backwards` of `layer` and the same `stateful`,
            `return_sequences` and `return_state`. If `None` (the default), a
            copy of `layer` is used.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        sequences: A 3D tensor `(batch, timesteps, features)`.
        initial_state: Optional list of initial state tensors: the forward
            layer's states, then the backward layer's (an even number).
        mask: Optional boolean tensor of shape `(batch, timesteps)`, passed
            to both layers.
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode.

    Input shape:
        3D tensor with shape `(batch_size, timesteps, features)`.

    Output shape:
        The wrapped layer's output shape, with the last axis doubled for
        `merge_mode="concat"`; a list of two outputs for `merge_mode=None`.
        With `return_state=True`, followed by the forward states, then the
        backward states.

    Raises:
        ValueError: If `merge_mode` is not a valid value, `layer` is not a
            recurrent layer, the two layers do not match (as described for
            `backward_layer`), or `initial_state` holds an odd number of
            tensors.

    Example:
        >>> bi = tfkit.layers.Bidirectional(tfkit.layers.LSTM(16, return_sequences=True))
        >>> bi(np.ones((4, 10, 8))).shape
        TensorShape([4, 10, 32])
        >>> bi.forward_layer.name, bi.backward_layer.name
        ('forward_lstm', 'backward_lstm')
        >>> forward, backward = tfkit.layers.Bidirectional(tfkit.layers.GRU(4), merge_mode=None)(np.ones((2, 5, 3)))
        >>> forward.shape, backward.shape
        (TensorShape([2, 4]), TensorShape([2, 4]))
    """

    def __init__(
        self,
        layer: Any,
        merge_mode: str | None = "concat",
        weights: Any = None,
        backward_layer: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        who = f"Bidirectional layer '{self.name}'"
        # the forward layer's weights, then the backward layer's, set when built (Keras 3.15 takes the
        # argument and drops it)
        self._initial_weights = [np.asarray(w) for w in weights] if weights is not None else None
        layer = _as_layer(layer, who, "layer")
        if backward_layer is not None:
            backward_layer = _as_layer(backward_layer, who, "backward_layer")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"{who} expected merge_mode to be one of {_MERGE_MODES}, got {merge_mode!r}")
        for attribute in ("go_backwards", "return_sequences", "return_state", "stateful"):
            if not hasattr(layer, attribute):
                raise ValueError(
                    f"{who} wraps recurrent layers (with `{attribute}`), got {type(layer).__name__} '{layer.name}'"
                )
        self.forward_layer = _renamed_copy(layer, "forward_")
        if backward_layer is None:
            self.backward_layer = _renamed_copy(layer, "backward_", go_backwards=not layer.go_backwards)
        else:
            self.backward_layer = backward_layer
        self._check_pair(who)
        for sub in (self.forward_layer, self.backward_layer):
            if hasattr(sub, "zero_output_for_mask"):
                # Masked steps must give zeros, or the flipped backward sequence would repeat values.
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = self.forward_layer.return_sequences
        self.return_state = self.forward_layer.return_state
        self.stateful = self.forward_layer.stateful
        self.supports_masking = True

    def _check_pair(self, who: str) -> None:
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == getattr(backward, "go_backwards", forward.go_backwards):
            raise ValueError(
                f"{who}: the forward and backward layers need different go_backwards values, "
                f"both have go_backwards={forward.go_backwards}"
            )
        for attribute in ("stateful", "return_sequences", "return_state"):
            if getattr(forward, attribute) != getattr(backward, attribute):
                raise ValueError(
                    f"{who}: the forward and backward layers need the same {attribute}, got "
                    f"{getattr(forward, attribute)} (forward) and {getattr(backward, attribute)} (backward)"
                )

    @property
    def states(self) -> list[tf.Variable] | None:
        forward, backward = self.forward_layer.states, self.backward_layer.states
        return forward + backward if forward and backward else None

    def reset_states(self) -> None:
        if not self.stateful:
            raise AttributeError(f"Bidirectional layer '{self.name}' is not stateful")
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    reset_state = reset_states

    def build(self, sequences_shape: Any) -> None:
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                sub.build(sequences_shape)
                sub.built = True
        if self._initial_weights is not None:
            initial, self._initial_weights = self._initial_weights, None
            expected = len(self.forward_layer.weights) + len(self.backward_layer.weights)
            if len(initial) != expected:
                raise ValueError(
                    f"Bidirectional layer '{self.name}': weights= holds {len(initial)} arrays, the "
                    f"forward and backward layers have {expected} weights"
                )
            half = len(self.forward_layer.weights)
            self.forward_layer.set_weights(initial[:half])
            self.backward_layer.set_weights(initial[half:])

    @tf.autograph.experimental.do_not_convert
    def call(self, sequences: tf.Tensor, initial_state: Any = None, mask: Any = None, training: Any = None) -> Any:
        forward_state = backward_state = None
        if initial_state is not None:
            initial_state = list(initial_state)
            if len(initial_state) % 2:
                raise ValueError(
                    f"Bidirectional layer '{self.name}' expects an even number of initial states "
                    f"(forward ones, then backward ones), got {len(initial_state)}"
                )
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        kwargs = {"training": training}
        if mask is not None:
            kwargs["mask"] = mask
        y = self.forward_layer(sequences, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(sequences, initial_state=backward_state, **kwargs)
        states: tuple = ()
        if self.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = tf.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output: Any = tf.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            return (*output, *states) if self.merge_mode is None else (output, *states)
        return output

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if self.return_sequences:
            output_mask: Any = mask if self.merge_mode else [mask, mask]
        else:
            output_mask = None if self.merge_mode else [None, None]
        if not self.return_state:
            return output_mask
        n_states = 2 * len(getattr(self.forward_layer, "state_size", [None]))
        leading = list(output_mask) if isinstance(output_mask, list) else [output_mask]
        return (*leading, *[None] * n_states)

    def compute_output_shape(self, sequences_shape: Any, initial_state_shape: Any = None) -> Any:
        shape = self.forward_layer.compute_output_shape(sequences_shape)
        states: tuple = ()
        if self.return_state:
            shape, states = shape[0], tuple(shape[1:])
        shape = tuple(shape)
        if self.merge_mode == "concat":
            output: Any = (*shape[:-1], None if shape[-1] is None else 2 * shape[-1])
        elif self.merge_mode is None:
            output = [shape, shape]
        else:
            output = shape
        if not self.return_state:
            return output
        leading = tuple(output) if self.merge_mode is None else (output,)
        return (*leading, *states, *states)

    def get_config(self) -> dict[str, Any]:
        config = base_config(self)
        config.update(
            merge_mode=self.merge_mode,
            layer=registry.to_config("layers", self.forward_layer),
            backward_layer=registry.to_config("layers", self.backward_layer),
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Bidirectional":
        config = dict(config)
        config["layer"] = registry.resolve("layers", config["layer"])
        if config.get("backward_layer") is not None:
            config["backward_layer"] = registry.resolve("layers", config["backward_layer"])
        return super().from_config(config)


# ---------------------------------------------------------- TimeDistributed


@registry.builtin("layers")
class TimeDistributed(Wrapper):
    """This wrapper allows to apply a layer to every temporal slice of an input.

    Every input should be at least 3D, and the dimension of index one of the
    first input will be considered to be the temporal dimension. Time is
    folded into the batch (`(batch * time, ...)`), so the wrapped layer runs
    once, with one set of weights shared by all timesteps. A mask
    `(batch, time)` is folded the same way for layers that take masks.

    Args:
        layer: A `Layer` instance (or its config dict) to apply to every
            timestep.
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        inputs: Input tensor of shape `(batch, time, ...)`.
        training: Python boolean indicating whether the layer should behave
            in training mode or in inference mode, passed to the wrapped
            layer.
        mask: Binary tensor of shape `(batch, time)` indicating whether a
            given timestep should be masked, passed (folded) to a wrapped
            layer that takes a mask.

    Input shape:
        `(batch_size, time, ...)`, where `...` is the wrapped layer's input
        shape without its batch axis.

    Output shape:
        `(batch_size, time, ...)`, where `...` is the wrapped layer's output
        shape without its batch axis.

    Raises:
        ValueError: If `layer` is not a `Layer`, or the inputs have rank
            below 3.

    Example:
        >>> layer = tfkit.layers.TimeDistributed(tfkit.layers.Dense(3))
        >>> layer(np.ones((4, 10, 8))).shape
        TensorShape([4, 10, 3])
        >>> layer.layer.kernel.shape
        TensorShape([8, 3])
        >>> frames = tfkit.layers.TimeDistributed(tfkit.layers.Conv2D(2, 3))
        >>> frames(np.ones((1, 5, 8, 8, 3))).shape
        TensorShape([1, 5, 6, 6, 2])
    """

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        if not isinstance(input_shape, tuple) or len(input_shape) < 3:
            raise ValueError(
                f"TimeDistributed layer '{self.name}' expects inputs of rank >= 3 (batch, time, ...), "
                f"got shape {input_shape}"
            )

    @staticmethod
    def _fold(x: tf.Tensor) -> tf.Tensor:
        shape = tf.shape(x)
        folded = tf.reshape(x, tf.concat([[-1], shape[2:]], axis=0))
        batch, time = x.shape[0], x.shape[1]
        folded.set_shape([batch * time if batch is not None and time is not None else None, *x.shape[2:]])
        return folded

    @staticmethod
    def _unfold(y: tf.Tensor, like: tf.Tensor) -> tf.Tensor:
        lead = tf.shape(like)[:2]
        unfolded = tf.reshape(y, tf.concat([lead, tf.shape(y)[1:]], axis=0))
        unfolded.set_shape([like.shape[0], like.shape[1], *y.shape[1:]])
        return unfolded

    @tf.autograph.experimental.do_not_convert
    def call(self, inputs: tf.Tensor, training: Any = None, mask: Any = None) -> Any:
        kwargs: dict[str, Any] = {}
        if training is not None:
            kwargs["training"] = training
        if mask is not None and _call_accepts(self.layer, "mask"):
            kwargs["mask"] = self._fold(tf.convert_to_tensor(mask))
        outputs = self.layer(self._fold(inputs), **kwargs)
        return tf.nest.map_structure(lambda y: self._unfold(y, inputs), outputs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        inputs = tf.convert_to_tensor(inputs)
        folded_mask = self._fold(tf.convert_to_tensor(mask)) if mask is not None else None
        inner = self.layer.compute_mask(self._fold(inputs), folded_mask)
        if inner is None:
            return mask
        if isinstance(inner, (list, tuple)):
            return type(inner)(None if m is None else self._unfold(m, inputs) for m in inner)
        return self._unfold(inner, inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shape = tuple(input_shape)
        batch, time = input_shape[0], input_shape[1]
        folded = batch * time if batch is not None and time is not None else None
        inner = self.layer.compute_output_shape((folded, *input_shape[2:]))
        return (batch, time, *tuple(inner)[1:])
