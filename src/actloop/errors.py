"""The error hierarchy: what a user can fix is an :class:`ActloopError`; anything else is a bug.

The command line prints an ``ActloopError`` as one line and exits 2; any other exception keeps its
traceback, so a user mistake and an internal failure never look alike. A model provider's failure during
an episode is :class:`actloop.agent.failures.ModelFailure`, an ``ActloopError`` recorded in the row.
"""

from __future__ import annotations


class ActloopError(Exception):
    """A problem the user can act on; the message says what went wrong and what to do."""


class ConfigError(ActloopError):
    """The run is configured in a way that cannot work (a missing key, a conflicting output directory)."""


class OutputBusy(ConfigError):
    """Another run is writing to the same output directory."""


class UnknownSuite(ConfigError):
    """No registered suite has this name."""


class UnknownTask(ConfigError):
    """The suite has no task (or seed) of this name."""


class EnvError(ActloopError):
    """An environment could not be built or refused its inputs (for example an unreachable target)."""


class RecordError(ActloopError):
    """A record or result file cannot be read as what it claims to be."""
