"""``PreprocessingLayer``: the base of KerasHub's packers, mask generators and tokenizers on tfkit.

    class Packer(PreprocessingLayer):
        def call(self, inputs):                  # tensors in (a tf.RaggedTensor for ragged rows)
            return inputs.to_tensor()
    Packer()([[1, 2], [3]])                      # Python lists in, a tf.Tensor (or Python lists) out

Such a layer has no weights and runs TensorFlow ops only, so the same call
works eagerly, inside ``tf.data.Dataset.map`` and inside an exported
SavedModel. Raw Python data is converted to tensors first; the outermost
eager call gives its ragged or string outputs back as Python lists, as KerasHub
does, while a call inside another layer's call, a ``tf.function`` or
``tf.data`` returns tensors.
"""

from __future__ import annotations

import inspect
from typing import Any

import tensorflow as tf

from tfkit.engine import call_context
from tfkit.engine.layer import Layer
from tfkit.hub.layers.preprocessing_tensors import convert_preprocessing_inputs, convert_preprocessing_outputs


class PreprocessingLayer(Layer):
    """Base class of KerasHub's preprocessing layers: TensorFlow ops, raw Python data in and out.

    Subclasses write `call` on tensors (ragged ones for ragged batches). A
    `call(x, y=None, sample_weight=None)` also accepts one `(x, y)` or
    `(x, y, sample_weight)` tuple, as `tf.data` elements come.

    Args:
        **kwargs: Base layer keyword arguments, such as `name`. KerasHub's
            `_allow_python_workflow` is accepted and ignored: tfkit always runs
            the TensorFlow path, which KerasHub runs inside `tf.data`.

    Example:
        >>> from tfkit.hub.layers.preprocessing_layer import PreprocessingLayer
        >>> class Dense(PreprocessingLayer):
        ...     def call(self, inputs):
        ...         return inputs.to_tensor()
        >>> Dense()([[1, 2], [3]]).numpy()
        array([[1, 2],
               [3, 0]], dtype=int32)
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("_allow_python_workflow", None)
        super().__init__(**kwargs)
        parameters = inspect.signature(type(self).call).parameters
        self._call_accepts_labels = all(name in parameters for name in ("x", "y", "sample_weight"))
        self.built = True  # no weights

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if (
            len(args) == 1
            and type(args[0]) is tuple
            and len(args[0]) in (2, 3)
            and "y" not in kwargs
            and "sample_weight" not in kwargs
            and self._call_accepts_labels
        ):
            args = args[0]
        # Raw data becomes tensors on every call (tensors pass unchanged); only the outermost eager call gives
        # Python lists back, so a layer calling this one inside its own call gets tensors.
        outermost_eager = tf.executing_eagerly() and call_context.current() is None
        args = tuple(convert_preprocessing_inputs(arg) for arg in args)
        kwargs = {
            key: convert_preprocessing_inputs(value) if key in ("x", "y", "sample_weight", "inputs") else value
            for key, value in kwargs.items()
        }
        with tf.device("cpu"):
            outputs = super().__call__(*args, **kwargs)
        return convert_preprocessing_outputs(outputs) if outermost_eager else outputs
