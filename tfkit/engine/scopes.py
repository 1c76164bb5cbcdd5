"""Keras 3's top-level scopes on TensorFlow: ``name_scope``, ``device`` and ``remat``.

with tfkit.name_scope("block"): y = layer(x)      # tf.name_scope("block")
with tfkit.device("gpu:0"): y = model(x)          # tf.device("GPU:0")
f = tfkit.remat(f)                                 # tf.recompute_grad: activations recomputed in backprop
"""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf

from tfkit.engine import layer_paths


class name_scope:  # Keras's lower-case class name
    """Creates a sub-namespace for variable paths and op names: a `tf.name_scope(name)` context.

    Ops and variables created inside get names prefixed with `name/`; as in
    Keras 3, layers first built or called inside, and `tfkit.Variable`s made
    there, take `name` into their `path` (`"block/dense/kernel"`).

    Args:
        name: Non-empty string, the name of the scope.
        **kwargs: Keras's extra keyword arguments: `override_parent` (a path
            that replaces the enclosing scopes' in variable paths), and
            `caller` and `deduplicate`, which are accepted and ignored; any
            other raises a `TypeError`.

    Raises:
        ValueError: If `name` is not a non-empty string.
        TypeError: For another keyword argument.

    Example:
        >>> with tfkit.name_scope("block") as scope:
        ...     print(scope)
        ...     layer = tfkit.layers.Dense(2, name="proj")
        ...     layer.build((None, 3))
        block/
        >>> layer.kernel.path
        'block/proj/kernel'
    """

    def __init__(self, name: str, **kwargs: Any) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"name_scope: name must be a non-empty string, got {name!r}")
        unknown = set(kwargs) - {"caller", "deduplicate", "override_parent"}
        if unknown:
            raise TypeError(f"name_scope got unexpected keyword argument(s) {sorted(unknown)}")
        self.name = name
        self._override_parent = kwargs.get("override_parent")
        self._scope: Any = None
        self._path: Any = None

    def __enter__(self) -> str:
        parent = layer_paths.current() if self._override_parent is None else self._override_parent.strip("/")
        self._path = layer_paths.Scope(None, f"{parent}/{self.name}" if parent else self.name, None)
        self._path.__enter__()
        self._scope = tf.name_scope(self.name)
        return self._scope.__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        self._scope.__exit__(*exc_info)
        self._path.__exit__(*exc_info)
        self._scope = self._path = None


def device(device_name: str) -> Any:
    """Returns a context that places the tensors and ops created inside on a device.

    A `tf.device` context: Keras's spellings (`"cpu"`, `"gpu:1"`) are
    upper-cased for TensorFlow; any TensorFlow device string (with a `/`)
    is passed as it is.

    Args:
        device_name: The device, such as `"cpu:0"`, `"gpu:1"` or
            `"/job:localhost/device:GPU:0"`.

    Returns:
        A context manager.

    Raises:
        ValueError: If `device_name` is not a non-empty string.

    Example:
        >>> with tfkit.device("cpu:0"):
        ...     x = tf.ones((2,))
        >>> x.device
        '/job:localhost/replica:0/task:0/device:CPU:0'
    """
    if not isinstance(device_name, str) or not device_name:
        raise ValueError(f"device: expected a device name such as 'cpu:0' or 'gpu:0', got {device_name!r}")
    if "/" not in device_name:
        device_name = device_name.upper()
    return tf.device(device_name)


def remat(f: Callable[..., Any]) -> Callable[..., Any]:
    """Applies rematerialization to a function, to save memory in the backward pass.

    The returned function (`tf.recompute_grad(f)`) does not keep its
    intermediate activations for the backward pass but recomputes them,
    trading compute for memory. It gives the same values and gradients as
    `f`.

    Args:
        f: A callable taking and returning tensors.

    Returns:
        The rematerialized callable.

    Raises:
        TypeError: If `f` is not callable.

    Example:
        >>> square = tfkit.remat(lambda x: tf.square(x))
        >>> x = tf.constant(3.0)
        >>> with tf.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = square(x)
        >>> float(y), float(tape.gradient(y, x))
        (9.0, 6.0)
    """
    if not callable(f):
        raise TypeError(f"remat expects a callable, got {type(f).__name__}")
    return tf.recompute_grad(f)
