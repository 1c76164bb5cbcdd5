"""``get``, ``serialize``, ``deserialize``: samplers by name or config, as KerasHub's ``keras_hub.samplers`` has them.

    keras_hub.samplers.get("top_k")                       # TopKSampler()
    config = keras_hub.samplers.serialize(sampler)        # {"module", "class_name", "config", "registered_name"}
    keras_hub.samplers.deserialize(config)                # an equal sampler

A config names its class by registered name (``keras_hub>TopKSampler``, the
name KerasHub writes), by class name, or by the short names ``get`` takes;
classes are found in ``custom_objects``, the registry and this package's own
table, never by importing a module a config names.
"""

from __future__ import annotations

from typing import Any, Mapping

from tfkit.hub.samplers.beam_sampler import BeamSampler
from tfkit.hub.samplers.contrastive_sampler import ContrastiveSampler
from tfkit.hub.samplers.greedy_sampler import GreedySampler
from tfkit.hub.samplers.random_sampler import RandomSampler
from tfkit.hub.samplers.sampler import Sampler
from tfkit.hub.samplers.top_k_sampler import TopKSampler
from tfkit.hub.samplers.top_p_sampler import TopPSampler
from tfkit.saving import get_registered_object, serialize_keras_object

# The short names KerasHub's `get` takes, and its class names.
_BY_NAME = {
    "beam": BeamSampler,
    "contrastive": ContrastiveSampler,
    "greedy": GreedySampler,
    "random": RandomSampler,
    "top_k": TopKSampler,
    "top_p": TopPSampler,
}
_BY_NAME.update({cls.__name__: cls for cls in (Sampler, *_BY_NAME.values())})
# KerasHub names these; tfkit does not have them yet.
_NOT_YET = {"speculative": "SpeculativeSampler"}


def serialize(sampler: Sampler) -> dict[str, Any]:
    """A sampler as plain data: `{"module", "class_name", "config", "registered_name"}`, as KerasHub writes it.

    Args:
        sampler: A `tfkit.hub.samplers.Sampler`.

    Returns:
        A JSON-able dict; `registered_name` is KerasHub's (`"keras_hub>TopKSampler"`),
        so KerasHub's `deserialize` reads it too.

    Raises:
        ValueError: If `sampler` is not a `Sampler`.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> config = keras_hub.samplers.serialize(keras_hub.samplers.TopKSampler(k=3))
        >>> config["registered_name"], config["config"]
        ('keras_hub>TopKSampler', {'temperature': 1.0, 'k': 3, 'seed': None})
    """
    if not isinstance(sampler, Sampler):
        raise ValueError(f"samplers.serialize expected a Sampler, got {type(sampler).__name__}: {sampler!r}")
    return serialize_keras_object(sampler)


def deserialize(config: Any, custom_objects: Mapping[str, Any] | None = None) -> Sampler:
    """Rebuilds a sampler from its config, or makes one from a name.

    Args:
        config: A dict `{"class_name", "config", ...}` as `serialize` (or
            KerasHub) writes it, or a name: `"greedy"`, `"top_k"`, `"top_p"`,
            `"random"`, `"beam"`, a class name or a registered name.
        custom_objects: Optional dict mapping names to sampler classes of
            your own. Defaults to `None`.

    Returns:
        A new `Sampler` (a name gives one with default arguments).

    Raises:
        ValueError: If the name is unknown or does not name a `Sampler`
            class, or the config is malformed.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> sampler = keras_hub.samplers.deserialize({"class_name": "keras_hub>TopPSampler", "config": {"p": 0.5}})
        >>> type(sampler).__name__, sampler.p
        ('TopPSampler', 0.5)
    """
    if isinstance(config, str):
        return _sampler_class([config], custom_objects, config)()
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise ValueError(
            "samplers.deserialize expected a name or a dict with 'class_name' and 'config', "
            f"got {type(config).__name__}: {str(config)[:200]}"
        )
    arguments = config.get("config") or {}
    if not isinstance(arguments, dict):
        raise ValueError(f"The config of sampler {config['class_name']!r} must be a dict, got {arguments!r}")
    names = [name for name in (config.get("registered_name"), config["class_name"]) if isinstance(name, str)]
    return _sampler_class(names, custom_objects, config["class_name"]).from_config(arguments)


def get(identifier: Any) -> Sampler | None:
    """Returns a sampler for `identifier`: a name, a config, a class or a sampler.

    `compile(sampler=...)` of the causal language models calls it.

    Args:
        identifier: A lowercase name (`"greedy"`, `"top_k"`, `"top_p"`,
            `"random"`, `"beam"`), a config dict (see `deserialize`), a
            `Sampler` class (a default instance is made, as KerasHub's
            docstring says; KerasHub 0.32 returns the class itself), a
            sampler (returned as it is), or `None`.

    Returns:
        A `Sampler`, or `None` for `None`.

    Raises:
        KeyError: If a name is not lowercase (as KerasHub).
        ValueError: If a name or config names no sampler (KerasHub returns
            an unknown name unchanged), or `identifier` is of another kind.

    Example:
        >>> import tfkit.hub as keras_hub
        >>> type(keras_hub.samplers.get("greedy")).__name__
        'GreedySampler'
        >>> keras_hub.samplers.get({"class_name": "keras_hub>BeamSampler", "config": {"num_beams": 2}}).num_beams
        2
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if not identifier.islower():
            raise KeyError(
                f"`keras_hub.samplers.get()` must take a lowercase string identifier, but received: {identifier}."
            )
        return deserialize(identifier)
    if isinstance(identifier, type) and issubclass(identifier, Sampler):
        return identifier()
    if callable(identifier):  # a sampler, or an object following the sampler protocol
        return identifier
    raise ValueError(f"Could not interpret sampler identifier: {identifier!r}")


def _sampler_class(names: list[str], custom_objects: Mapping[str, Any] | None, shown: str) -> type:
    """The `Sampler` class the first of `names` that resolves stands for, else a `ValueError` saying what is known."""
    for name in names:
        plain = name.rsplit(">", 1)[-1]
        found = get_registered_object(name, custom_objects, _BY_NAME) or _BY_NAME.get(plain)
        if found is not None:
            if not (isinstance(found, type) and issubclass(found, Sampler)):
                raise ValueError(f"{shown!r} does not name a Sampler class; it names {found!r}")
            return found
    if shown in _NOT_YET or shown in _NOT_YET.values():
        raise ValueError(f"KerasHub's {_NOT_YET.get(shown, shown)} is not in tfkit.hub.samplers yet")
    known = ", ".join(f"'{name}'" for name in _BY_NAME if name.islower())
    raise ValueError(
        f"Unknown sampler {shown!r}: use one of {known}, a Sampler class name, or pass your own class in "
        "custom_objects (or register it with tfkit.saving.register_keras_serializable)"
    )
