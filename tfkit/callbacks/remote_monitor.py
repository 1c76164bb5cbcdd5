"""``RemoteMonitor``: POST each epoch's logs to an HTTP server (Keras 3's callback, on the standard library).

    monitor = tfkit.callbacks.RemoteMonitor(root="http://localhost:9000", send_as_json=True)
    model.fit(x, y, epochs=5, callbacks=[monitor])
    # POST http://localhost:9000/publish/epoch/end/  {"epoch": 0, "loss": 0.31, ...}

With ``send_as_json=False`` (the default) the logs travel as a form field:
``data=<the JSON text>``, ``application/x-www-form-urlencoded``. A server that
cannot be reached (or answers with an HTTP error) gives a warning and training
goes on; each request waits at most ``RemoteMonitor.timeout`` seconds.
"""

from __future__ import annotations

import json
import numbers
import urllib.error
import urllib.parse
import urllib.request
import warnings
from typing import Any, Mapping

import numpy as np

from tfkit.base import registry
from tfkit.callbacks.callback import Callback


def _plain(value: Any) -> Any:
    """A JSON-able value: numpy scalars and arrays become Python numbers and lists."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if hasattr(value, "numpy"):
        return _plain(np.asarray(value.numpy()))
    if isinstance(value, numbers.Number) or isinstance(value, (str, bool)) or value is None:
        return value
    return str(value)


@registry.builtin("callbacks")
class RemoteMonitor(Callback):
    """Callback used to stream events to a server.

    At the end of every epoch, `{"epoch": epoch, **logs}` is sent as JSON in an HTTP
    POST request to `root + path`. By default (`send_as_json=False`) the logs travel as
    a form field: `field=<the JSON text>`, as `application/x-www-form-urlencoded`; with
    `send_as_json=True`, the JSON text is the body, as `application/json`. It uses only
    the Python standard library. A server that cannot be reached (or answers with an
    HTTP error) gives a warning and training goes on; each request waits at most
    `RemoteMonitor.timeout` seconds (10).

    Args:
        root: String, the root URL of the target server, `http://` or `https://`.
            Defaults to `"http://localhost:9000"`.
        path: String, the path relative to `root` to which the events will be sent.
            Defaults to `"/publish/epoch/end/"`.
        field: String, the form field under which the data will be stored (used when
            `send_as_json=False`). Defaults to `"data"`.
        headers: Optional `dict` of custom HTTP headers. Defaults to `None`.
        send_as_json: `bool`, whether the request should be sent as
            `"application/json"`. Defaults to `False`.

    Raises:
        ValueError: If `root` is not an `http://` or `https://` URL, `path` is not a
            string, or `headers` is not a mapping.

    Example:
        >>> monitor = tfkit.callbacks.RemoteMonitor(root="http://localhost:9000", send_as_json=True)
        >>> monitor.root + monitor.path
        'http://localhost:9000/publish/epoch/end/'
    """

    timeout: float = 10.0  # seconds a request may take before it is given up (with a warning)

    def __init__(
        self,
        root: str = "http://localhost:9000",
        path: str = "/publish/epoch/end/",
        field: str = "data",
        headers: Mapping[str, str] | None = None,
        send_as_json: bool = False,
    ) -> None:
        super().__init__()
        try:
            scheme = urllib.parse.urlsplit(root).scheme if isinstance(root, str) else None
        except ValueError:
            scheme = None
        if scheme not in ("http", "https"):
            raise ValueError(f"RemoteMonitor: root must be an http:// or https:// URL, got root={root!r}")
        if not isinstance(path, str):
            raise ValueError(f"RemoteMonitor: path must be a string, got path={path!r}")
        if headers is not None and not isinstance(headers, Mapping):
            raise ValueError(f"RemoteMonitor: headers must be a dict of strings, got headers={headers!r}")
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = bool(send_as_json)

    def _request(self, send: dict[str, Any]) -> urllib.request.Request:
        text = json.dumps(send)
        if self.send_as_json:
            body, content_type = text.encode("utf-8"), "application/json"
        else:
            body = urllib.parse.urlencode({self.field: text}).encode("ascii")
            content_type = "application/x-www-form-urlencoded"
        headers = {"Content-Type": content_type, **dict(self.headers or {})}
        return urllib.request.Request(self.root + self.path, data=body, headers=headers, method="POST")

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = _plain(value)
        request = self._request(send)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                response.read()
        except urllib.error.HTTPError as error:
            warnings.warn(
                f"RemoteMonitor: the server at {self.root} answered {request.full_url} with HTTP "
                f"{error.code} {error.reason}",
                stacklevel=2,
            )
        except (urllib.error.URLError, OSError, ValueError) as error:  # ValueError: a malformed URL
            reason = getattr(error, "reason", error)
            warnings.warn(f"Could not reach RemoteMonitor root server at {self.root} ({reason})", stacklevel=2)
