"""Recorded decision lists for the ``actloop/replay`` model.

Three file formats are accepted:

* a JSON list, one item per model reply: an object is sent as its JSON text, a string verbatim (so a
  replay can also contain malformed replies);
* JSON Lines, one such item per line;
* an episode's ``events.jsonl``, from which the ``decision`` events are taken in order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from actloop.errors import ConfigError
from actloop.records.jsonl import read_json_lines

FINISHED = json.dumps({"stop": True, "reason": "replay finished"})


def _reply_text(item: Any) -> str:
    return item if isinstance(item, str) else json.dumps(item)


def _is_event(item: Any) -> bool:
    return isinstance(item, dict) and {"type", "data", "created_at"} <= item.keys()


def load_replies(path: Path) -> list[str]:
    """The model replies stored in ``path``, in order (see the module docstring for the formats); a
    :class:`~actloop.errors.ConfigError` names the file (and line) when it cannot be read."""
    try:
        whole = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as err:
        raise ConfigError(f"cannot read the decisions file {path}: {err.strerror or err}") from None
    except ValueError:  # not UTF-8, or not one JSON value: JSON Lines, read line by line below
        whole = None
    if isinstance(whole, list):
        return [_reply_text(item) for item in whole]
    values, unreadable = read_json_lines(path)
    if unreadable:
        raise ConfigError(f"the decisions file is neither a JSON list nor JSON Lines: {unreadable[0]}")
    items = [value for _, value in values]
    if items and all(_is_event(item) for item in items):
        return [_reply_text(e["data"]["decision"]) for e in items if e["type"] == "decision"]
    return [_reply_text(item) for item in items]


def replay_reply(replies: list[str], assistant_turns: int) -> str:
    """The reply for a conversation that already holds ``assistant_turns`` assistant messages."""
    return replies[assistant_turns] if assistant_turns < len(replies) else FINISHED
