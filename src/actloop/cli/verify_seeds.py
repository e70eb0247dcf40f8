"""``actloop verify-seeds``: screen candidate seeds and write manifests, or check that they reproduce."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from rich.table import Table

from actloop.cli.common import add_suite_argument, console, positive_int, say
from actloop.core.suite import SeedScreen, get_suite
from actloop.records.compare import SCENE_POSITION_TOLERANCE_M, SCENE_ROTATION_TOLERANCE_RAD


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "verify-seeds",
        aliases=["verify-instances"],
        help="screen candidate seeds (lab: instances) and write manifests; --check confirms they reproduce",
    )
    add_suite_argument(p)
    p.add_argument(
        "--task",
        action="append",
        help="task or track to verify (repeatable; default: every task of every track)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="only confirm that the manifests reproduce (lab: each instance's id, and its reference re-run)",
    )
    p.add_argument(
        "--ids-only",
        action="store_true",
        help="with --check, lab: only redraw the instance ids, without re-running the references",
    )
    p.add_argument("--out", type=Path, help="manifest directory (default: the package's manifests)")
    p.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="processes at once: lab verifies this many instances of a task at once (also under --check), "
        "tasks one after another; vabench screens this many tasks at once",
    )
    p.add_argument(
        "--instance-key-file",
        type=Path,
        help="lab: screen or check the private set of the instance key in this file (as "
        "$ACTLOOP_LAB_INSTANCE_KEY_FILE does); its manifests go to a directory named by the key's "
        "fingerprint, never into the package",
    )
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    suite = get_suite(args.suite)
    if args.instance_key_file is not None:
        say(f"the private set of instance key {suite.use_instance_key(args.instance_key_file)}")
    tasks = suite.resolve_tasks(args.task or "everything")
    if args.check:
        failed = _check(args.suite, tasks, args.out)
        if not args.ids_only:
            failed |= _check_expert_runs(args.suite, tasks, args.out, args.workers)
        return failed
    table = Table(title="seed verification yield")
    for col in ("task", "probed", "accepted (eval + demo)", "yield %", "demo seed", "seconds"):
        table.add_column(col)
    started = time.perf_counter()
    screened = _screen_all(args.suite, tasks, args.out, args.workers)
    for task, (screen, elapsed) in sorted(screened.items()):
        say(f"wrote {screen.manifest}")
        rate = 100 * screen.accepted / max(1, screen.probed)
        table.add_row(
            task,
            str(screen.probed),
            str(screen.accepted),
            f"{rate:.1f}",
            str(screen.demo_seed),
            f"{elapsed:.1f}",
        )
    if len(tasks) > 1:
        probed = sum(s.probed for s, _ in screened.values())
        accepted = sum(s.accepted for s, _ in screened.values())
        total = sum(e for _, e in screened.values())
        table.add_row(
            f"all {len(tasks)} tasks",
            str(probed),
            str(accepted),
            f"{100 * accepted / max(1, probed):.1f}",
            "",
            f"{total:.1f} ({time.perf_counter() - started:.1f} wall)",
        )
    console.print(table)
    return 0


def _check(suite_name: str, tasks: list[str], directory: Path | None) -> int:
    """Rebuild every manifest scene; say how it matched and what differs."""
    suite = get_suite(suite_name)
    table = Table(title="manifest scenes on this machine")
    for col in ("task", "scenes", "compared", "max position deviation", "max rotation deviation", "problems"):
        table.add_column(col)
    problems: list[str] = []
    for task in tasks:
        check = suite.check_seeds(task, directory)
        problems += check.problems
        table.add_row(
            task,
            str(check.scenes),
            check.mode,
            f"{check.deviation.position_m:.2e} m",
            f"{check.deviation.rotation_rad:.2e} rad",
            str(len(check.problems)),
        )
    console.print(table)
    for problem in problems:
        console.print(f"[red]{problem}[/red]")
    if problems:
        console.print(f"{len(problems)} problem(s)")
        return 1
    console.print(
        "every manifest scene reproduces: identities equal; settled states bit-identical where the platform "
        "fingerprint matches the manifest's, else within "
        f"{SCENE_POSITION_TOLERANCE_M:g} m / {SCENE_ROTATION_TOLERANCE_RAD:g} rad"
    )
    return 0


def _check_expert_runs(suite_name: str, tasks: list[str], directory: Path | None, workers: int) -> int:
    """Re-run the expert on every released seed, ``workers`` at once; one line per seed, then a summary
    (nothing for a suite without expert runs to repeat)."""
    suite = get_suite(suite_name)
    started = time.perf_counter()
    checks = [suite.check_expert_runs(task, directory, workers, say) for task in tasks]
    if all(check is None for check in checks):
        return 0
    problems = [problem for check in checks for problem in check or []]
    elapsed = time.perf_counter() - started
    for problem in problems:
        console.print(f"[red]{problem}[/red]")
    if problems:
        console.print(
            f"{len(problems)} problem(s) in the expert runs of {len(tasks)} task(s) ({elapsed:.0f} s)"
        )
        return 1
    console.print(f"every expert run of {len(tasks)} task(s) matches its manifest ({elapsed:.0f} s)")
    return 0


def _screen(suite_name: str, task: str, directory: Path | None, workers: int = 1) -> tuple[SeedScreen, float]:
    """Screen one task's candidates (``workers`` at once where the suite can) and write its manifest;
    returns (screen, seconds)."""
    start = time.perf_counter()
    screen = get_suite(suite_name).screen_seeds(task, directory, log=say, workers=workers)
    return screen, time.perf_counter() - start


def _screen_all(
    suite_name: str, tasks: list[str], directory: Path | None, workers: int
) -> dict[str, tuple[SeedScreen, float]]:
    """Screen tasks: one after another with ``workers`` candidates at once where the suite screens
    candidates at once, else ``workers`` tasks at a time in spawned processes (candidates in order)."""
    if get_suite(suite_name).screens_candidates_at_once:
        return {task: _screen(suite_name, task, directory, workers) for task in tasks}
    if workers <= 1:
        return {task: _screen(suite_name, task, directory) for task in tasks}
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {task: pool.submit(_screen, suite_name, task, directory) for task in tasks}
        return {task: future.result() for task, future in futures.items()}
