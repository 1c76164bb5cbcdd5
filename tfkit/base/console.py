"""Where tfkit's progress lines go: stdout, or Python logging when interactive logging is off.

console.write("Epoch 1/3\\n")                    # stdout (the default)
settings.set_interactive_logging(False)         # tfkit.config.disable_interactive_logging()
console.write("Epoch 1/3\\n")                    # logging.getLogger("tfkit").info("Epoch 1/3")
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from tfkit.base import settings

logger = logging.getLogger("tfkit")


def write(text: str, stream: TextIO | None = None) -> None:
    """Write ``text`` to ``stream`` when given, else to stdout or, with interactive logging off, to the log."""
    if stream is None and not settings.is_interactive_logging_enabled():
        line = text.replace("\r", "").strip("\n")
        if line.strip():
            logger.info(line)
        return
    out = stream if stream is not None else sys.stdout
    out.write(text)
    out.flush()
