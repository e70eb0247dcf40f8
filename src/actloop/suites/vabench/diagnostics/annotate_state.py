"""One annotator's place in a run: their answers, the gates, which criteria they still have to judge.

Gates come first. A gated criterion is activated for the annotator when their own gate answer is yes, or
when the majority gate over every human annotator of the run (equation 9, this annotator included) is
already active although they said no: then it is shown marked as activated by the majority. Of the other
annotators' records only the gates are used, never their criterion answers.

An episode is fully labelled when both gates and every activated criterion have an answer.

The run's judgments are read once; this annotator's answers then change only through :meth:`record`,
and the other annotators' files are re-read in the background when they change.
"""

from __future__ import annotations

import fcntl
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from actloop.core.text import readable
from actloop.errors import ConfigError, RecordError
from actloop.suites.vabench.diagnostics.aggregate import CRITERION_GATES, decide
from actloop.suites.vabench.diagnostics.records import (
    DIAGNOSTICS_DIR,
    GATE_ITEMS,
    Judgment,
    Judgments,
    RaterKind,
    append_judgment,
    brief,
    check_rater_name,
    read_judgments,
)

MAX_JUSTIFICATION = 500
"""Characters of a justification: a short note, not an essay."""
ANSWER_FIELDS = {"episode", "item", "value", "justification"}
"""What a posted answer holds (``justification`` may be left out)."""

GateAnswers = dict[str, dict[str, dict[str, int]]]
"""rater -> episode -> gate item -> 0/1."""


@dataclass(frozen=True)
class EpisodeState:
    """What the annotation page shows of one episode for one annotator."""

    episode: str
    answers: dict[str, int]
    justifications: dict[str, str]
    gates: dict[str, int | None]
    """Gate item -> the majority over every human annotator (None: nobody answered)."""
    activated: dict[str, str | None]
    """Criterion -> why it is shown: ``always``, ``own`` (this annotator's gate), ``majority``; or None."""

    @property
    def required(self) -> list[str]:
        return [*GATE_ITEMS, *(code for code, why in self.activated.items() if why is not None)]

    @property
    def complete(self) -> bool:
        return all(item in self.answers for item in self.required)

    def to_json(self) -> dict[str, Any]:
        return {
            "episode": self.episode,
            "answers": self.answers,
            "justifications": self.justifications,
            "gates": self.gates,
            "activated": self.activated,
            "required": self.required,
            "complete": self.complete,
        }


class AnnotationBook:
    """The annotator's answers and the other annotators' gates for the episodes of ``run_dir``.

    Holding the book locks the annotator's name in this run: a second server for the same annotator
    would miss the first one's answers, so it is refused. :meth:`close` releases the lock.
    """

    def __init__(self, run_dir: Path, annotator: str, episodes: list[str]) -> None:
        self.run_dir = run_dir
        self.annotator = check_rater_name(annotator)
        self.episodes = list(episodes)
        self._known = set(self.episodes)
        self._lock = threading.Lock()
        self._exclusive = _lock_annotator(run_dir, annotator)
        found = read_judgments(run_dir)
        self.problems = list(found.problems)
        self._answers, self._notes = _own(found, annotator)
        self._others, self._signature = _other_gates(found, annotator), self._other_files()
        self._refreshing = False

    def close(self) -> None:
        os.close(self._exclusive)

    def state(self, episode: str) -> EpisodeState:
        self._refresh_others()
        return self._state(episode)

    def states(self) -> list[EpisodeState]:
        self._refresh_others()
        return [self._state(name) for name in self.episodes]

    def _state(self, episode: str) -> EpisodeState:
        with self._lock:
            answers = dict(self._answers.get(episode, {}))
            notes = dict(self._notes.get(episode, {}))
            given = [answers] + [rater.get(episode, {}) for rater in self._others.values()]
        gates = {}
        for item in GATE_ITEMS:
            values = [a[item] for a in given if item in a]
            gates[item] = decide(sum(values), len(values))
        activated: dict[str, str | None] = {}
        for code, gate in CRITERION_GATES.items():
            if gate is None:
                activated[code] = "always"
            elif answers.get(gate) == 1:
                activated[code] = "own"
            else:
                activated[code] = "majority" if gates[gate] == 1 else None
        return EpisodeState(episode, answers, notes, gates, activated)

    def progress(self, states: list[EpisodeState] | None = None) -> dict[str, int]:
        """Episodes fully labelled by this annotator, of all."""
        states = self.states() if states is None else states
        return {"complete": sum(s.complete for s in states), "total": len(self.episodes)}

    def record(self, body: Any) -> Judgment:
        """Validate a posted answer (``{episode, item, value, justification}``), append it to the
        annotator's file and take it into the book; a RecordError says what is wrong, nothing written."""
        judgment = self.judgment(body)
        with self._lock:
            append_judgment(self.run_dir, judgment)
            answers = self._answers.setdefault(judgment.episode, {})
            if judgment.value is None:
                answers.pop(judgment.item, None)
            else:
                answers[judgment.item] = judgment.value
            if judgment.justification:
                self._notes.setdefault(judgment.episode, {})[judgment.item] = judgment.justification
        return judgment

    def judgment(self, body: Any) -> Judgment:
        """A posted answer (``{episode, item, value, justification}``) as this annotator's judgment; a
        RecordError says what is wrong with it."""
        if not isinstance(body, dict):
            raise RecordError("an answer is a JSON object with episode, item, value and justification")
        unknown, missing = set(body) - ANSWER_FIELDS, {"episode", "item", "value"} - set(body)
        if unknown or missing:
            wrong = [f"unknown field(s) {', '.join(sorted(unknown))}"] if unknown else []
            wrong += [f"missing field(s) {', '.join(sorted(missing))}"] if missing else []
            raise RecordError("; ".join(wrong))
        episode = body["episode"]
        if not isinstance(episode, str):
            raise RecordError(f"episode is text (an episode record's name), not {brief(episode)}")
        if episode not in self._known:
            raise RecordError(f"no episode {brief(episode)} in this run")
        text = body.get("justification")
        if text is not None and not isinstance(text, str):
            raise RecordError(f"a justification is text or null, not {brief(text)}")
        note = (text or "").strip() or None
        if note is not None and len(note) > MAX_JUSTIFICATION:
            raise RecordError(f"a justification is at most {MAX_JUSTIFICATION} characters, not {len(note)}")
        if note is not None and readable(note) != note:
            raise RecordError("a justification must be valid Unicode text: it holds a lone surrogate")
        return Judgment(self.annotator, "human", episode, body["item"], body["value"], justification=note)

    def _other_files(self) -> tuple[tuple[str, int, int], ...]:
        own = f"{self.annotator}.jsonl"
        found = []
        for path in sorted((self.run_dir / DIAGNOSTICS_DIR / "human").glob("*.jsonl")):
            if path.name != own:
                stat = path.stat()
                found.append((path.name, stat.st_mtime_ns, stat.st_size))
        return tuple(found)

    def _refresh_others(self) -> None:
        """Re-read the other annotators' gates in the background when their files changed (until then
        the previous answers are used: another annotator's gate only marks criteria as activated)."""
        signature = self._other_files()
        with self._lock:
            if signature == self._signature or self._refreshing:
                return
            self._refreshing = True

        def reread() -> None:
            try:
                others = _other_gates(read_judgments(self.run_dir), self.annotator)
                with self._lock:
                    self._others, self._signature = others, signature
            finally:
                with self._lock:
                    self._refreshing = False

        threading.Thread(target=reread, name="annotate-refresh", daemon=True).start()


def _own(found: Judgments, annotator: str) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, str]]]:
    key: tuple[RaterKind, str, int] = ("human", annotator, 0)
    return found.current().get(key, {}), found.justifications().get(key, {})


def _other_gates(found: Judgments, annotator: str) -> GateAnswers:
    return {
        rater: {
            episode: {item: value for item, value in items.items() if item in GATE_ITEMS}
            for episode, items in episodes.items()
        }
        for (kind, rater, _), episodes in found.current().items()
        if kind == "human" and rater != annotator
    }


def _lock_annotator(run_dir: Path, annotator: str) -> int:
    """An exclusive lock on ``diagnostics/human/.<annotator>.lock`` held while the book is open."""
    directory = run_dir / DIAGNOSTICS_DIR / "human"
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / f".{annotator}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ConfigError(
            f"another actloop annotate is already serving {annotator} for {run_dir}: use that page"
        ) from None
    return fd
