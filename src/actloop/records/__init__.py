"""Per-episode records (events, clean frames, result) and the shared ``results.jsonl``."""

from actloop.records.jsonl import RESULTS_FILE, append_result
from actloop.records.recorder import EVENTS_FILE, RESULT_FILE, EpisodeRecorder, EventType, fresh_dir

__all__ = [
    "EVENTS_FILE",
    "RESULTS_FILE",
    "RESULT_FILE",
    "EpisodeRecorder",
    "EventType",
    "append_result",
    "fresh_dir",
]
