"""The error hierarchy: what a user can fix is an :class:`ActloopError`; anything else is a bug.

The command line prints an ``ActloopError`` as one line and exits 2; any other exception keeps its
traceback, so a user mistake and an internal failure never look alike.
"""

from __future__ import annotations


class ActloopError(Exception):
    """A problem the user can act on; the message says what went wrong and what to do."""


class ConfigError(ActloopError):
    """The run is configured in a way that cannot work (a missing key, a conflicting output directory)."""


class OutputBusy(ConfigError):
    """Another run is writing to the same output directory."""
