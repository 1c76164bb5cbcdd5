"""``DeclaredConfig``: a hub layer's config is its constructor's arguments, declared once in its signature.

    class Block(DeclaredConfig, Layer):
        def __init__(self, units: int, dropout: float = 0.0, **kwargs):
            super().__init__(**kwargs)
            self.units, self.dropout = units, dropout
    Block(4).get_config()     # {'name': ..., 'trainable': True, 'dtype': ..., 'units': 4, 'dropout': 0.0}

KerasHub's layers write each argument three times (the signature, an attribute,
``get_config``); here the signature is the declaration and ``get_config`` reads each
argument back from the attribute of the same name (defaults included, objects such as
initializers serialized), so a subclass that adds an argument adds it to its
signature and keeps it as an attribute, nothing more.
"""

from __future__ import annotations

from typing import Any

from tfkit.engine import config_capture
from tfkit.engine.layer import Layer
from tfkit.utils.serialization import serialize_keras_object


class DeclaredConfig:
    """Mixin giving a layer the `get_config` of its constructor's arguments, each read from its attribute.

    A constructor that passes `**kwargs` to its base's declares the base's
    arguments too (they are read the same way). An argument the layer does
    not keep as an attribute is written as it was given (or its default). Plain values are written as they are; tfkit
    objects (initializers, activations) in their serialized form.

    Example:
        >>> from tfkit.hub.layers.declared_config import DeclaredConfig
        >>> class Scale(DeclaredConfig, tfkit.layers.Layer):
        ...     def __init__(self, factor: float = 2.0, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.factor = factor
        >>> Scale(name="scale").get_config()["factor"]
        2.0
    """

    def get_config(self) -> dict[str, Any]:
        """The base layer config plus every constructor argument, by its attribute.

        Returns:
            A dict of plain, JSON-able values.
        """
        config = super().get_config()  # type: ignore[misc]  # the layer base's keys (name, trainable, dtype)
        for name, given in config_capture.declared_arguments(type(self), self._st.init_args, stop_at=Layer).items():  # type: ignore[attr-defined]
            value = getattr(self, name, given)
            plain = config_capture.to_plain(value)
            config[name] = plain if config_capture.is_plain(plain) else serialize_keras_object(value)
        return config


class DeclaredLayer(DeclaredConfig, Layer):
    """A layer whose constructor arguments, declared once in its subclass's signature, become attributes and config keys.

    `computed_config` names attributes derived from the arguments that the
    config lists too (KerasHub's `key_dim`, `num_patches`): the constructor
    accepts and ignores them.

    Args:
        **kwargs: Base layer keyword arguments, such as `name` and `dtype`.

    Example:
        >>> from tfkit.hub.layers.declared_config import DeclaredLayer
        >>> class Scale(DeclaredLayer):
        ...     def __init__(self, factor: float = 2.0, **kwargs):
        ...         super().__init__(**kwargs)
        >>> layer = Scale(3.0)
        >>> layer.factor, layer.get_config()["factor"]
        (3.0, 3.0)
    """

    computed_config: tuple[str, ...] = ()

    def __init__(self, **kwargs: Any) -> None:
        for name in self.computed_config:
            kwargs.pop(name, None)
        super().__init__(**kwargs)
        arguments = config_capture.declared_arguments(type(self), self._st.init_args, stop_at=DeclaredLayer)
        for name, value in arguments.items():
            setattr(self, name, value)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        for name in self.computed_config:
            config[name] = getattr(self, name)
        return config
