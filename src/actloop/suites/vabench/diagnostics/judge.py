"""An LLM judge over a run: every episode judged on the rubric, ``votes`` independent times.

For each episode of the run the judge model gets the rubric and the episode's evidence
(:mod:`.judge_evidence`) and answers the gates and the nine criteria (:mod:`.judge_prompt`). Each vote is
its own request; its answer becomes one :class:`~.records.Judgment` per item (``kind="judge"``, vote
``0..votes-1``) in the rater's file beside the human annotators' (a criterion its gate made NA is written
as null, withdrawing any earlier answer of that vote).

Bounded, like the evaluation harness: a reply that does not parse or contradicts its gates gets up to
``max_repairs`` repair turns saying what was wrong; a provider failure is retried up to ``max_retries``
times with exponential backoff (Inspect's own retries are switched off so these bounds hold); a
configuration failure (wrong key or model) stops the whole run at once. An episode with a vote that still
failed is recorded as failed with its reason in the judge log, ``RUN_DIR/diagnostics/judge-logs/
<rater>.jsonl``, one line per episode attempted (with the model string and token usage). Re-running
resumes: a vote whose current answers are complete is not asked again.
"""

from __future__ import annotations

import asyncio
import fnmatch
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
)

from actloop.agent.failures import ModelFailure
from actloop.agent.usage import TokenCount
from actloop.errors import ConfigError, RecordError
from actloop.records.jsonl import append_line
from actloop.suites.vabench.diagnostics.evidence import RunEpisode, run_episodes
from actloop.suites.vabench.diagnostics.judge_evidence import EpisodeContent, episode_content
from actloop.suites.vabench.diagnostics.judge_options import JudgeOptions
from actloop.suites.vabench.diagnostics.judge_prompt import (
    JudgeAnswer,
    is_complete,
    parse_answer,
    repair_prompt,
    system_prompt,
)
from actloop.suites.vabench.diagnostics.records import (
    DIAGNOSTICS_DIR,
    ITEMS,
    Judgment,
    append_judgment,
    check_rater_name,
    read_judgments,
    record_path,
)
from actloop.suites.vabench.diagnostics.rubric import RUBRIC_VERSION, rubric_digest

LOGS_DIR = "judge-logs"


@dataclass
class VoteLog:
    """How one vote went: ``ok`` once its answer is recorded, else ``reason``."""

    vote: int
    ok: bool = False
    reason: str | None = None
    model_calls: int = 0
    repairs: int = 0
    retries: int = 0
    tokens: TokenCount = field(default_factory=TokenCount)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["tokens"] = self.tokens.summary(None)
        return data


@dataclass
class JudgeSummary:
    """What a judge run did: episodes judged now, skipped as already complete, and failed (with reasons)."""

    rater: str
    model: str
    records: Path
    log: Path
    judged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    tokens: TokenCount = field(default_factory=TokenCount)
    notes: list[str] = field(default_factory=list)


def rater_name(model: str) -> str:
    """A rater name derived from a model string: runs of other characters become ``-``."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", model).strip("-_.")[:64].rstrip("-_.")
    if not name:
        raise ConfigError(f"cannot derive a judge name from the model {model!r}; give --name")
    return check_rater_name(name)


def log_path(run_dir: Path, rater: str) -> Path:
    """The judge log of ``rater``: one line per episode attempted."""
    return run_dir / DIAGNOSTICS_DIR / LOGS_DIR / f"{check_rater_name(rater)}.jsonl"


def select_episodes(run_dir: Path, pattern: str | None = None) -> list[RunEpisode]:
    """The run's episodes with a record, those whose name matches the glob ``pattern`` if given."""
    if not run_dir.is_dir():
        raise RecordError(f"{run_dir} is not a run directory")
    episodes = run_episodes(run_dir)
    if not episodes:
        raise RecordError(f"{run_dir} has no episode with a readable record (is it an actloop run?)")
    if pattern is not None:
        episodes = [e for e in episodes if fnmatch.fnmatchcase(e.name, pattern)]
        if not episodes:
            raise ConfigError(f"no episode of {run_dir} matches {pattern!r}")
    return episodes


async def judge_run(
    run_dir: Path,
    model: Model,
    rater: str,
    episodes: list[RunEpisode],
    options: JudgeOptions,
    progress: Callable[[str], None] = lambda line: None,
) -> JudgeSummary:
    """Judge ``episodes`` of ``run_dir`` with ``model`` as ``rater``, resuming earlier votes; ``progress``
    gets a line per episode finished."""
    check_rater_name(rater)
    judge = _Judge(run_dir, model, rater, options)
    summary = JudgeSummary(rater, str(model), record_path(run_dir, "judge", rater), judge.log)
    found = read_judgments(run_dir)
    summary.notes = [p for p in found.problems if p.startswith(str(summary.records))]
    current = found.current()
    limit = asyncio.Semaphore(options.max_connections)

    async def one(episode: RunEpisode) -> None:
        missing = [
            v
            for v in range(options.votes)
            if not is_complete(current.get(("judge", rater, v), {}).get(episode.name, {}))
        ]
        if not missing:
            summary.skipped.append(episode.name)
            return
        async with limit:
            votes = await judge.episode(episode, missing)
        failed = [v for v in votes if not v.ok]
        for v in votes:
            summary.tokens.add(v.tokens.input_tokens, v.tokens.output_tokens)
        if failed:
            summary.failed[episode.name] = f"vote {failed[0].vote}: {failed[0].reason}"
            progress(f"failed {episode.name}: {summary.failed[episode.name]}")
        else:
            summary.judged.append(episode.name)
            progress(f"judged {episode.name}: vote(s) {', '.join(str(v.vote) for v in votes)}")

    await asyncio.gather(*(one(e) for e in episodes))
    return summary


class _Judge:
    """Asks ``model`` for one episode's votes and writes the answers and the log line."""

    def __init__(self, run_dir: Path, model: Model, rater: str, options: JudgeOptions) -> None:
        self.run_dir, self.model, self.rater, self.options = run_dir, model, rater, options
        self.config = GenerateConfig(max_retries=0)  # retried here, with the bounds of ``options``
        self.log = log_path(run_dir, rater)
        self.stopped: str | None = None
        """The configuration failure that stopped the run, once one happened."""

    async def episode(self, episode: RunEpisode, votes: list[int]) -> list[VoteLog]:
        """Ask every vote in ``votes`` in turn; a provider failure leaves the later ones unasked."""
        started = time.monotonic()
        logs = [VoteLog(v) for v in votes]
        try:
            content = episode_content(episode.record_dir, self.options.max_frames)
        except (RecordError, OSError) as err:
            for log in logs:
                log.reason = f"the episode record cannot be read: {err}"
            self._log(episode, None, logs, time.monotonic() - started)
            return logs
        for index, log in enumerate(logs):
            if self.stopped is not None:
                log.reason = f"not run: {self.stopped}"
                continue
            try:
                answer = await self._vote(content, log)
            except ModelFailure as failure:
                log.reason = f"provider failure: {failure}"
                for later in logs[index + 1 :]:
                    later.reason = f"not run after vote {log.vote}'s provider failure"
                break
            if answer is not None:
                self._record(episode.name, log.vote, answer)
                log.ok = True
        self._log(episode, content, logs, time.monotonic() - started)
        return logs

    async def _vote(self, content: EpisodeContent, log: VoteLog) -> JudgeAnswer | None:
        """One vote's conversation: the request, then repairs until an answer parses or the limit."""
        messages: list[ChatMessage] = [
            ChatMessageSystem(content=system_prompt()),
            ChatMessageUser(content=content.content),
        ]
        limit = self.options.max_repairs
        while True:
            output = await self._generate(messages, log)
            parsed = parse_answer(output.completion)
            if isinstance(parsed, JudgeAnswer):
                return parsed
            if log.repairs >= limit:
                log.reason = f"no valid answer after {limit} repair(s): {'; '.join(parsed)}"
                return None
            log.repairs += 1
            messages += [output.message, ChatMessageUser(content=repair_prompt(parsed, log.repairs, limit))]

    async def _generate(self, messages: list[ChatMessage], log: VoteLog) -> ModelOutput:
        """One model call, retried after a provider failure with exponential backoff."""
        attempt = 0
        while True:
            if self.stopped is not None:
                raise ModelFailure(f"not run: {self.stopped}", configuration=True)
            log.model_calls += 1
            try:
                output = await self.model.generate(messages, config=self.config)
            except Exception as exc:
                failure = ModelFailure.from_exception(exc)
                if failure.configuration:
                    self.stopped = self.stopped or str(failure)
                if failure.configuration or attempt >= self.options.max_retries:
                    raise failure from exc
                await asyncio.sleep(self.options.backoff(attempt))
                attempt += 1
                log.retries += 1
                continue
            if output.usage:
                log.tokens.add(output.usage.input_tokens, output.usage.output_tokens)
            return output

    def _record(self, episode: str, vote: int, answer: JudgeAnswer) -> None:
        """One judgment line per item; a criterion its gate made NA is written as withdrawn (null)."""
        for item in ITEMS:
            judgment = Judgment(
                rater=self.rater,
                kind="judge",
                episode=episode,
                item=item,
                value=answer.values[item],
                vote=vote,
                justification=answer.justifications[item],
            )
            append_judgment(self.run_dir, judgment)

    def _log(
        self, episode: RunEpisode, content: EpisodeContent | None, votes: list[VoteLog], seconds: float
    ) -> None:
        tokens = TokenCount()
        for v in votes:
            tokens.add(v.tokens.input_tokens, v.tokens.output_tokens)
        failed = next((v for v in votes if not v.ok), None)
        line = {
            "episode": episode.name,
            "task": episode.task,
            "seed": episode.seed,
            "rater": self.rater,
            "model": str(self.model),
            "ok": failed is None,
            "reason": None if failed is None else f"vote {failed.vote}: {failed.reason}",
            "votes": [v.to_json() for v in votes],
            "tokens": tokens.summary(None),
            "frames_total": None if content is None else content.frames_total,
            "frames_omitted": None if content is None else content.omitted,
            "rubric_version": RUBRIC_VERSION,
            "rubric_digest": rubric_digest(),
            "duration_s": round(seconds, 3),
            "created_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
        }
        self.log.parent.mkdir(parents=True, exist_ok=True)
        append_line(self.log, line)
