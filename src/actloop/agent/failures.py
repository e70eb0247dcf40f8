"""What went wrong when a model provider failed: status, URL and server text, and whether it is the
user's configuration (a wrong key or model name) rather than the provider's trouble.

A configuration failure (HTTP 401, 403, 404) fails every episode of that model the same way, so the
first one stops the model's remaining episodes of the run at once (no further requests), and its rows
are rerun on the next run once the configuration is fixed.
"""

from __future__ import annotations

from typing import Any

from actloop.errors import ActloopError

CONFIGURATION_STATUSES = frozenset({401, 403, 404})
SERVER_TEXT_CHARS = 300
_configuration_failures: dict[str, str] = {}
"""Model name -> the configuration failure that stopped its episodes in this process."""


class ModelFailure(ActloopError):
    """The model provider failed after Inspect's own retries (an infrastructure error).

    ``status``, ``url`` and ``server_text`` describe the last HTTP exchange when there was one;
    ``configuration`` is True for failures the user must fix (wrong key, wrong model, no access).
    """

    def __init__(
        self,
        message: str,
        status: int | None = None,
        url: str | None = None,
        server_text: str | None = None,
        configuration: bool = False,
    ) -> None:
        super().__init__(message)
        self.status, self.url, self.server_text = status, url, server_text
        self.configuration = configuration

    @classmethod
    def from_exception(cls, cause: BaseException) -> ModelFailure:
        """Describe a provider's exception: its type and text plus status, URL and server text."""
        last = _last_attempt(cause)
        status = getattr(last, "status_code", None)
        response = getattr(last, "response", None)
        request = (
            getattr(response, "request", None) if response is not None else getattr(last, "request", None)
        )
        url = str(request.url) if request is not None and hasattr(request, "url") else None
        text = _text(response)
        facts = [f"HTTP {status}" if status else None, f"url {url}" if url else None]
        facts.append(f"server said: {text}" if text else None)
        details = "; ".join(f for f in facts if f)
        message = f"{type(last).__name__}: {last}" + (f" ({details})" if details else "")
        return cls(message, status, url, text, configuration=status in CONFIGURATION_STATUSES)

    @property
    def kind(self) -> str:
        """``configuration`` or ``provider``: what the result row's ``error_kind`` says."""
        return "configuration" if self.configuration else "provider"


def _last_attempt(exc: BaseException) -> BaseException:
    """The provider's own exception: unwraps a retry library's RetryError to its last attempt."""
    last_attempt = getattr(exc, "last_attempt", None)
    if last_attempt is not None and hasattr(last_attempt, "exception"):
        inner = last_attempt.exception()
        if isinstance(inner, BaseException):
            return inner
    return exc


def _text(response: Any) -> str | None:
    try:
        text = str(response.text) if response is not None else ""
    except Exception:  # a streamed body that was never read
        return None
    return " ".join(text.split())[:SERVER_TEXT_CHARS] or None


def note_failure(model: str, failure: ModelFailure) -> None:
    """Remember a configuration failure so the model's later episodes stop without a request."""
    if failure.configuration:
        _configuration_failures[model] = str(failure)


def configuration_failure(model: str) -> str | None:
    """The configuration failure that stopped ``model`` in this run, if any."""
    return _configuration_failures.get(model)


def forget_failures(model: str) -> None:
    """Start a run of ``model`` afresh (its configuration may have been fixed)."""
    _configuration_failures.pop(model, None)
