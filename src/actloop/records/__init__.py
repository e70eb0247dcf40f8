"""Per-episode records (events, clean frames, result) and the shared ``results.jsonl``."""

from actloop.records.jsonl import RESULTS_FILE
from actloop.records.recorder import EVENTS_FILE, RESULT_FILE, EpisodeRecorder, EventType, fresh_dir
from actloop.records.results import read_results, write_result

__all__ = [
    "EVENTS_FILE",
    "RESULTS_FILE",
    "RESULT_FILE",
    "EpisodeRecorder",
    "EventType",
    "fresh_dir",
    "read_results",
    "write_result",
]
