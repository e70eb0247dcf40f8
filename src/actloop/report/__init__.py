"""Paper-style reports built only from run records (``results.jsonl`` and episode records).

:func:`build_report` loads one or more output directories, computes the tables (macro-averaged success
with mean ± sample SD across runs, the task matrix, subtask progress, active vs passive with a sign test,
held-out deltas) and writes ``report.md``, one CSV per table, ``report.html`` and per-episode viewers.
"""

from actloop.core.result import Condition
from actloop.core.suite import TaskInfo
from actloop.report.build import Report, build_report
from actloop.report.records import Episode, Records, load_records
from actloop.report.stats import MeanSD, sample_sd, sign_test
from actloop.report.tasks import registry_lookup

__all__ = [
    "Condition",
    "Episode",
    "MeanSD",
    "Records",
    "Report",
    "TaskInfo",
    "build_report",
    "load_records",
    "registry_lookup",
    "sample_sd",
    "sign_test",
]
