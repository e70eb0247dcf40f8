"""``actloop lab check``: what a new experiment must pass before it joins the suite, one line per check.

- **spec**: the specification keeps its table-6 row (number, title, platform, discipline, dimension, tier,
  decisions, objective, quantities with their tolerances, evidence, refit);
- **card**: the card is generated and holds no hidden value in any spelling (:mod:`.leaks`);
- **idle**: submitting y* itself at once, having done nothing, scores process score 0 and no success;
- **served**: a short scripted episode through the real server and the workspace's own client (calibration,
  state, observe, ik, move_joints, gripper, wait, a refused call, every logger's export, submit): no
  response and no workspace file holds a hidden value (images are not read);
- **citations**: a citation of an observation that never was, and one of a value never shown, are refused;
- **reference**: the reference solves the instance within half its tolerance (slow: a full episode);
- **audit**: the difficulty audit's guess and naive-shortcut rates stay low and the standard design
  solves, over :data:`AUDIT_INSTANCES` instances (the designs over :data:`QUICK_AUDIT_INSTANCES` with
  ``--quick``);
- **speed**: the bench runs at least 20 times real time over a short idle stretch (a timing: a loaded
  machine can fail it).

``--no-reference``, ``--no-audit`` and ``--no-speed`` skip one; ``--quick`` skips the reference and the speed
and audits fewer instances.

Hidden values are the instance's hidden parameters and, for a measure objective, y*.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from actloop.suites.lab.catalog import CATALOG
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.leaks import NUMBER, find_leaks
from actloop.suites.lab.rig import HOME_Q

MAX_GUESS_RATE = 0.2
"""The card alone (the midpoint or the best constant) may solve fewer than this share of instances."""
MAX_NAIVE_RATE = 0.5
"""The naive shortcut must fail most instances."""
MIN_STANDARD_RATE = 0.95
"""The tier's standard design must solve nearly every instance."""
AUDIT_INSTANCES = 200
MIN_SPEED = 20.0
"""Simulated seconds per wall second (the seed's goal: 20 times real time per core)."""
SPEED_STRETCH_S = 5.0
NEVER_SHOWN = 987654.321
"""A value no instrument of a built bench shows (the fabricated citation's)."""
SPEC_FIELDS = ("number", "title", "platform", "discipline", "dimension", "tier", "decisions", "objective",
               "quantities", "evidence", "refit")  # fmt: skip
SERVED = ("served", "citations")
"""The checks of the scripted episode."""
OPTIONAL = ("reference", "audit", "speed")
"""The checks that can be skipped."""
QUICK_SKIPS = ("reference", "speed")
"""What ``--quick`` (and the tests) skip: the slow check and the timing."""
QUICK_AUDIT_INSTANCES = 50
"""Over how many instances ``--quick`` (and the tests) simulate the audit's naive shortcut and standard
design (the guesses still over :data:`AUDIT_INSTANCES`; the manifest keeps the full audit)."""


@dataclass(frozen=True)
class Outcome:
    """One check's verdict and the fact it measured."""

    name: str
    passed: bool
    fact: str

    def line(self) -> str:
        return f"{'ok' if self.passed else 'FAIL':<4} {self.name:<10} {self.fact}"


def hidden_values(env: LabEnv) -> dict[str, float]:
    """What no text the agent reads may hold: the hidden parameters and (measure objectives) numeric y*."""
    from actloop.suites.lab.evaluation import ContinuationEvaluator

    values = dict(env.instance.hidden)
    if not isinstance(env.evaluator, ContinuationEvaluator):
        for name, target in env.evaluator.targets().items():
            if isinstance(target, float | int) and target not in values.values():
                values[f"y*({name})"] = float(target)
    return values


def plausible_result(env: LabEnv) -> dict[str, Any]:
    """y* itself for every submitted quantity (measured in a continuation run for predict objectives)."""
    from actloop.suites.lab.evaluation import ContinuationEvaluator

    evaluator = env.evaluator
    if isinstance(evaluator, ContinuationEvaluator):
        targets = evaluator.continue_run(env.model, env.data)
    else:
        targets = dict(evaluator.targets())
    return {q.name: targets[q.name] for q in env.spec.answered}


def _leak_text(
    where: str, text: str, hidden: Mapping[str, float], constants: frozenset[str] = frozenset()
) -> str:
    """Why ``text`` fails (the first leak and how many more), or "" when it holds no hidden value (numbers
    written as one of ``constants`` passed over)."""
    leaks = find_leaks(text, hidden, constants=constants)
    if not leaks:
        return ""
    more = f" (and {len(leaks) - 1} more)" if len(leaks) > 1 else ""
    return f"{where} leaks {leaks[0]}{more}"


# --- the checks -------------------------------------------------------------------------------------------
def check_spec(key: str, seed: int) -> Outcome:
    from actloop.suites.lab.experiments import experiment

    spec = experiment(key).spec
    row = next((row for row in CATALOG if row.key == key), None)
    if row is None:
        return Outcome("spec", False, f"table 6 (catalog.py) has no row {key!r}")
    differ = [name for name in SPEC_FIELDS if getattr(spec, name) != getattr(row, name)]
    if differ:
        shown = "; ".join(f"{n}: spec {getattr(spec, n)!r}, table {getattr(row, n)!r}" for n in differ)
        return Outcome("spec", False, f"differs from table 6 in {shown}")
    scored = ", ".join(
        f"{q.name} {'' if q.categorical else 'within '}{q.tolerance_text}" for q in spec.quantities
    )
    return Outcome(
        "spec", True, f"#{spec.number} {spec.tier}, {spec.dimension}, {spec.objective}: {scored} (table 6)"
    )


def check_card(key: str, seed: int) -> Outcome:
    from actloop.suites.lab.episode import agent_card

    env = LabEnv(key, seed, render=False)
    card, hidden = agent_card(env), hidden_values(env)
    missing = [q.name for q in env.spec.answered if f"`{q.name}`" not in card]
    if missing:
        return Outcome("card", False, f"the card names no {', '.join(missing)}")
    if leak := _leak_text("the card", card, hidden):
        return Outcome("card", False, leak)
    return Outcome("card", True, f"{len(card.splitlines())} lines, none of {len(hidden)} hidden values")


def check_idle(key: str, seed: int) -> Outcome:
    env = LabEnv(key, seed, render=False)
    result = plausible_result(env)
    env.submit(result, [])
    score, _ = env.score()
    passed = score.process_score == 0 and not score.success
    return Outcome(
        "idle",
        passed,
        f"y* submitted at once: process score {score.process_score}, "
        f"{'a success' if score.success else 'no success'} (stops at {score.stop_stage})",
    )


@dataclass
class Served:
    """What the scripted episode left: every answer the agent's client received, the workspace, and the
    verdicts on its fabricated citations."""

    answers: dict[str, str]
    workspace_files: dict[str, str]
    verdicts: list[tuple[bool, str]]
    hidden: dict[str, float]
    constants: frozenset[str] = frozenset()
    """Numbers the calibration answer of another instance writes too: the bench's fixed dimensions (a
    camera 1.25 m high), which a hidden value may round to by chance."""


def _script(lab: Any, client: ModuleType, env: LabEnv, result: dict[str, Any]) -> dict[str, Any]:
    """Drive the bench through every T0 call, submitting ``result`` with fabricated citations; returns each
    answer by call."""
    answers: dict[str, Any] = {"calibration": lab.calibration(), "state": lab.state()}
    seen = lab.observe()
    answers["observe"] = {k: v for k, v in seen.items() if k != "images"}
    robot = seen["robot"]
    answers["ik"] = lab.ik(robot["hand_position"], robot["hand_quaternion"])
    there = [[HOME_Q[0] + 0.02 * (i + 1) / 60, *HOME_Q[1:]] for i in range(60)]
    answers["move_joints"] = lab.move_joints(there + there[-2::-1] + [list(HOME_Q)])
    answers["gripper"] = lab.gripper(0.04)
    answers["wait"] = lab.wait(1.0)
    try:
        lab.gripper(1.0)
    except client.LabError as refused:
        answers["refused"] = {"error": str(refused)}
    for logger in env.platform.loggers():
        answers[f"export {logger.name}"] = lab.export(logger.name, f"check_{logger.name}.csv")
    instrument = env.platform.instruments()[0].name
    fabricated = [
        {"observation_id": "no-such-observation", "instrument": instrument, "value": 1.0},
        {"observation_id": seen["observation_id"], "instrument": instrument, "value": NEVER_SHOWN},
    ]
    answers["submit"] = lab.submit(result, fabricated)
    return answers


def calibration_constants(key: str, seed: int) -> frozenset[str]:
    """The numbers written in the calibration answer of another instance of ``key`` (``seed`` + 1)."""
    other = LabEnv(key, seed + 1, render=False)
    try:
        text = json.dumps(other.calibration(), allow_nan=False)
    finally:
        other.close()
    return frozenset(match.group(0) for match in NUMBER.finditer(text))


def serve_script(key: str, seed: int) -> Served:
    """Serve instance ``seed`` of ``key`` into a fresh workspace and run :func:`_script` through the client
    the workspace holds, as the agent would."""
    from actloop.suites.lab.episode import served_episode
    from actloop.suites.lab.workspace_files import load_client

    with tempfile.TemporaryDirectory(prefix="actloop-check-") as directory:
        workspace = Path(directory) / "workspace"
        with served_episode(key, seed, workspace, None) as episode:
            env, bench = episode.env, episode.server.bench_thread  # the bench's own thread evaluates it
            result = bench.submit(plausible_result, env).result()
            client = load_client(workspace)
            lab = client.Lab()
            try:
                answers = _script(lab, client, env, result)
            finally:
                lab.close()
            _, verdicts = bench.submit(env.score).result()
            hidden = bench.submit(hidden_values, env).result()
        files = {
            path.name: path.read_text()
            for path in sorted(workspace.iterdir())
            if path.is_file() and path.suffix != ".png"
        }
    return Served(
        {call: json.dumps(answer, allow_nan=False) for call, answer in answers.items()},
        files,
        [(v.valid, v.reason) for v in verdicts],
        hidden,
        calibration_constants(key, seed),
    )


def check_served(served: Served) -> Outcome:
    texts = {**{f"the {c} answer": t for c, t in served.answers.items()},
             **{f"workspace file {n}": t for n, t in served.workspace_files.items()}}  # fmt: skip
    for where, text in texts.items():
        constants = served.constants if where == "the calibration answer" else frozenset()
        if leak := _leak_text(where, text, served.hidden, constants):
            return Outcome("served", False, leak)
    return Outcome(
        "served",
        True,
        f"{len(served.answers)} answers ({', '.join(served.answers)}) and {len(served.workspace_files)} "
        f"workspace files, none of {len(served.hidden)} hidden values",
    )


def check_citations(served: Served) -> Outcome:
    accepted = [reason for valid, reason in served.verdicts if valid]
    if len(served.verdicts) != 2 or accepted:
        return Outcome("citations", False, f"fabricated citations accepted: {accepted or served.verdicts}")
    reasons = "; ".join(reason[:90] for _, reason in served.verdicts)
    return Outcome("citations", True, f"an unknown observation and a never-shown value refused: {reasons}")


def check_reference(key: str, seed: int) -> Outcome:
    from actloop.suites.lab.manifests import MAX_REFERENCE_E, passes, verify_instance

    run = verify_instance(key, seed)
    passed = passes(run) and "failure" not in run
    fact = (
        f"{'solved' if run['success'] else 'not solved'}: e = {run['reference_e']:.3f} of the tolerance "
        f"(at most {MAX_REFERENCE_E}), {run['sim_time_s']:.0f} s simulated, stops at {run['stop_stage']}"
    )
    return Outcome("reference", passed, fact + (f"; {run['failure']}" if "failure" in run else ""))


def check_audit(key: str, seed: int, designs: int = AUDIT_INSTANCES) -> Outcome:
    from actloop.suites.lab.audit import audit

    result = audit(key, AUDIT_INSTANCES, designs)
    guess = max(result["guess_midpoint"], result["guess_best_constant"])
    passed = (
        guess < MAX_GUESS_RATE
        and result["naive_rate"] < MAX_NAIVE_RATE
        and result["standard_rate"] >= MIN_STANDARD_RATE
    )
    return Outcome(
        "audit",
        passed,
        f"guess {100 * guess:.1f} % (< {100 * MAX_GUESS_RATE:g}), naive shortcut "
        f"({result['naive_shortcut']['name']}) {100 * result['naive_rate']:.1f} % "
        f"(< {100 * MAX_NAIVE_RATE:g}), "
        f"standard design {100 * result['standard_rate']:.1f} % (≥ {100 * MIN_STANDARD_RATE:g}) over "
        f"{AUDIT_INSTANCES} instances"
        + (f" (the designs over {designs})" if designs < AUDIT_INSTANCES else ""),
    )


def check_speed(key: str, seed: int) -> Outcome:
    from actloop.suites.lab.bench import simulated_speed

    speed = simulated_speed(key, SPEED_STRETCH_S)
    return Outcome(
        "speed",
        speed >= MIN_SPEED,
        f"{speed:.0f}× real time over {SPEED_STRETCH_S:g} s idle, without rendering (≥ {MIN_SPEED:g})",
    )


def _raised(name: str, err: Exception) -> Outcome:
    return Outcome(name, False, f"raised {type(err).__name__}: {err}")


def _guarded(name: str, run: Callable[[], Outcome]) -> Outcome:
    """The check's outcome, or a failure saying what it raised."""
    try:
        return run()
    except Exception as err:  # a check that cannot run fails, saying why
        return _raised(name, err)


def check(
    key: str, seed: int = 1, skip: tuple[str, ...] = (), audit_designs: int = AUDIT_INSTANCES
) -> list[Outcome]:
    """Every check of experiment ``key`` on instance ``seed`` but the optional ones named in ``skip`` (the
    audit's designs simulated over ``audit_designs`` instances); only the spec's failure when the
    experiment cannot be loaded."""
    from actloop.suites.lab.experiments import experiment

    try:
        experiment(key)
    except Exception as err:  # not built, or its module or spec fails: nothing else can be checked
        return [_raised("spec", err)]
    outcomes = [
        _guarded(name, partial(run, key, seed))
        for name, run in (("spec", check_spec), ("card", check_card), ("idle", check_idle))
    ]
    try:
        served = serve_script(key, seed)
    except Exception as err:  # the episode could not be served or scripted: both of its checks fail
        outcomes += [_raised(name, err) for name in SERVED]
    else:
        outcomes += [check_served(served), check_citations(served)]
    optional: dict[str, Callable[[str, int], Outcome]] = {
        "reference": check_reference,
        "audit": partial(check_audit, designs=audit_designs),
        "speed": check_speed,
    }
    return outcomes + [
        _guarded(name, partial(run, key, seed)) for name, run in optional.items() if name not in skip
    ]


def add_check_command(sub: Any) -> None:
    """``actloop lab check EXPERIMENT...``."""
    parser = sub.add_parser(
        "check",
        help="check an experiment before it joins the suite: spec, card, served answers, gates, reference",
        description="One line per check: ok or FAIL, its name and what it measured; exits 1 on any failure.",
    )
    parser.add_argument("experiments", nargs="+", metavar="EXPERIMENT", help="experiment keys")
    parser.add_argument("--seed", type=int, default=1, help="the instance checked (default 1)")
    for name in OPTIONAL:
        parser.add_argument(f"--no-{name}", action="store_true", help=f"skip the {name} check")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"skip the {' and the '.join(QUICK_SKIPS)} checks; audit {QUICK_AUDIT_INSTANCES} instances",
    )
    parser.set_defaults(handler=check_command)


def check_command(args: Any) -> int:
    skip = tuple(
        name for name in OPTIONAL if getattr(args, f"no_{name}") or (args.quick and name in QUICK_SKIPS)
    )
    failed = False
    for key in args.experiments:
        print(f"{key} (seed {args.seed})", flush=True)
        instances = QUICK_AUDIT_INSTANCES if args.quick else AUDIT_INSTANCES
        for outcome in check(key, args.seed, skip, instances):
            print(f"  {outcome.line()}", flush=True)
            failed |= not outcome.passed
    return 1 if failed else 0
