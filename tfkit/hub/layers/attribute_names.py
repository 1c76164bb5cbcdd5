"""``StoredAs``: a sub-layer the shared code reads under one attribute name, kept under the name KerasHub gives it.

    class CachedMixtralAttention(CachedGroupedQueryAttention):
        _query_dense = StoredAs("query_dense")       # the base builds and reads _query_dense
    attention.query_dense                             # the same layer; Keras's weight files key it "query_dense"

Keras's weight files key a layer's sub-layers by attribute name, and KerasHub's families
name the same sub-layer differently (Mistral's ``_query_dense``, Mixtral's and Qwen MoE's
``query_dense``). A family whose names differ from the shared layer's declares them
with ``StoredAs``: the layer is stored only under KerasHub's name, so it is saved and
loaded there, and the shared code keeps reading its own name.
"""

from __future__ import annotations

from typing import Any


class StoredAs:
    """A class attribute whose value is stored on the instance under another attribute name.

    Args:
        name: The attribute name the value is stored under.

    Example:
        >>> from tfkit.hub.layers.attribute_names import StoredAs
        >>> class Holder:
        ...     _dense = StoredAs("dense")
        >>> holder = Holder()
        >>> holder._dense = "layer"
        >>> holder.dense, vars(holder)
        ('layer', {'dense': 'layer'})
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self if instance is None else getattr(instance, self.name)

    def __set__(self, instance: Any, value: Any) -> None:
        setattr(instance, self.name, value)
