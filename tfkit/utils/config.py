"""``tfkit.utils.Config``: Keras's dict with attribute access, JSON export and freezing.

config = Config(learning_rate=0.1)
config.seed = 123; config.freeze()
config.to_json()                      # '{"learning_rate": 0.1, "seed": 123}'
"""

from __future__ import annotations

import copy
import difflib
import json
from typing import Any, Iterator

_OWN = frozenset({"_config", "_frozen"})


class Config:
    """A dict-like container of named values, read and set as attributes or items.

    Keras's `keras.utils.Config`, for experiment settings: `config.lr` and
    `config["lr"]` are the same value; `freeze` makes the config read-only
    (setting or deleting then raises `ValueError`), and `to_json` exports
    it. A misspelled attribute raises `AttributeError` suggesting the
    closest name. Iterating yields the keys in sorted order.

    Args:
        **kwargs: The initial values, by name.

    Example:
        >>> config = tfkit.utils.Config(learning_rate=0.1)
        >>> config.seed = 123
        >>> config.to_json()
        '{"learning_rate": 0.1, "seed": 123}'
        >>> config.freeze()
        >>> config.seed = 1
        Traceback (most recent call last):
        ...
        ValueError: Cannot mutate attribute(s) because the config is frozen.
    """

    def __init__(self, **kwargs: Any) -> None:
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self) -> bool:
        """Whether the config is read-only."""
        return self._frozen

    def freeze(self) -> None:
        """Makes the config read-only."""
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self) -> None:
        """Makes the config writable again."""
        object.__setattr__(self, "_frozen", False)

    def _check_mutable(self) -> None:
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def as_dict(self) -> dict[str, Any]:
        """Returns a shallow copy of the values as a plain dict."""
        return copy.copy(self._config)

    def to_json(self) -> str:
        """Returns the values as a JSON string."""
        return json.dumps(self._config)

    def keys(self) -> Any:
        return self._config.keys()

    def values(self) -> Any:
        return self._config.values()

    def items(self) -> Any:
        return self._config.items()

    def get(self, keyname: str, value: Any = None) -> Any:
        return self._config.get(keyname, value)

    def pop(self, *args: Any) -> Any:
        self._check_mutable()
        return self._config.pop(*args)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._check_mutable()
        self._config.update(*args, **kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _OWN or hasattr(type(self), name):
            raise AttributeError(
                f"Config: {name!r} is a Config attribute and cannot hold a value; use config[{name!r}]"
            )
        self._check_mutable()
        self._config[name] = value

    def __getattr__(self, name: str) -> Any:
        config = self.__dict__.get("_config", {})
        if name in config:
            return config[name]
        message = f"Unknown attribute: '{name}'."
        close = difflib.get_close_matches(name, config.keys(), n=1, cutoff=0.7)
        if close:
            message += f" Did you mean '{close[0]}'?"
        raise AttributeError(message)

    def __setitem__(self, key: str, value: Any) -> None:
        self._check_mutable()
        self._config[key] = value

    def __getitem__(self, key: str) -> Any:
        return self._config[key]

    def __delitem__(self, key: str) -> None:
        self._check_mutable()
        del self._config[key]

    def __contains__(self, key: object) -> bool:
        return key in self._config

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._config))

    def __len__(self) -> int:
        return len(self._config)

    def __repr__(self) -> str:
        return f"<Config {self._config}>"
