"""Provider retries as they happen, so a run's progress lines can show them.

Without this a provider that is down looks like a run making no progress: retries are quiet, with
exponential backoff until the model call's timeout. Two layers retry: Inspect (logging ``-> <model> retry
<n> (retrying in <s> seconds) <error>``) and the provider SDKs underneath (logging ``Retrying request to
<path> in <s> seconds`` at INFO, which is switched on while a run is watched).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

RETRY_LOGGERS = ("inspect_ai.model._model", "openai._base_client", "anthropic._base_client")
SDK_LOGGERS = RETRY_LOGGERS[1:]
"""Loggers whose retry lines are INFO records: their level is lowered to INFO while watched."""


class RetryWatch(logging.Handler):
    """Counts the retries Inspect logs and keeps the latest message."""

    def __init__(self) -> None:
        super().__init__(level=logging.NOTSET)
        self._guard = threading.Lock()
        self.count = 0
        self.latest: str | None = None
        self._reported = 0

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if " retry " not in message and not message.startswith("Retrying request"):
            return
        with self._guard:
            self.count += 1
            self.latest = message.split("-> ", 1)[-1].strip()  # without Inspect's sample prefix

    def news(self) -> str | None:
        """A line about retries since the last call, or None when there were none."""
        with self._guard:
            new, self._reported = self.count - self._reported, self.count
            latest = self.latest
        if not new:
            return None
        return f"provider retries: {new} since the last report ({self.count} in all); latest: {latest}"


@contextmanager
def watch_retries() -> Iterator[RetryWatch]:
    """Watch the retry logs while the block runs."""
    watch = RetryWatch()
    levels = {name: logging.getLogger(name).level for name in SDK_LOGGERS}
    for name in RETRY_LOGGERS:
        logger = logging.getLogger(name)
        logger.addHandler(watch)
        if name in levels and not logger.isEnabledFor(logging.INFO):
            logger.setLevel(logging.INFO)
    try:
        yield watch
    finally:
        for name in RETRY_LOGGERS:
            logging.getLogger(name).removeHandler(watch)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
