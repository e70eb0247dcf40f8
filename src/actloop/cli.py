"""The ``actloop`` command line: tasks, verify-seeds, demos, learn, run, demo, bench, report, replay,
view."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

# Wide enough for the results table when output goes to a file or CI log.
console = Console(width=None if sys.stdout.isatty() else 140)
SUITES = ("vabench",)
DEMO_TASK = "grasp_single_cube"
DEFAULT_DEMOS = Path("runs/demos")
DEFAULT_SUMMARIES = Path("runs/summaries")


def main(argv: list[str] | None = None) -> int:
    from actloop.errors import ActloopError

    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except (ActloopError, KeyError, FileNotFoundError, ValueError) as err:
        message = str(err.args[0] if err.args else err)
        console.print(Text.assemble(("error: ", "red"), message), highlight=False)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="actloop", description=__doc__)
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    p = sub.add_parser("tasks", help="list task families with arm count, budget and manifest seeds")
    p.add_argument("--suite", choices=SUITES, default="vabench")
    p.set_defaults(handler=cmd_tasks)

    p = sub.add_parser("verify-seeds", help="screen candidate seeds and write manifests (appendix C.4)")
    p.add_argument("--suite", choices=SUITES, default="vabench")
    p.add_argument("--task", action="append", help="task to verify (repeatable; default: all)")
    p.add_argument("--check", action="store_true", help="only confirm that manifest scene hashes reproduce")
    p.add_argument("--out", type=Path, help="manifest directory (default: the package's manifests)")
    p.add_argument(
        "--workers", type=_positive_int, default=1, help="tasks screened at once, each in its own process"
    )
    p.set_defaults(handler=cmd_verify_seeds)

    p = sub.add_parser("demos", help="film each task's expert on its demonstration seed (MP4 + frames)")
    p.add_argument("--suite", choices=SUITES, default="vabench")
    p.add_argument("--tasks", default="all", help="comma-separated task names, or 'all'")
    p.add_argument("--out", type=Path, default=DEFAULT_DEMOS, help="demonstrations directory")
    p.set_defaults(handler=cmd_demos)

    p = sub.add_parser("learn", help="let a model study each task's demonstration and store its summary")
    p.add_argument("--suite", choices=SUITES, default="vabench")
    p.add_argument("--tasks", required=True, help="comma-separated task names, or 'all'")
    _add_model_arguments(p)
    p.add_argument("--demos", type=Path, default=DEFAULT_DEMOS, help="demonstrations (filmed if missing)")
    p.add_argument("--summaries", type=Path, default=DEFAULT_SUMMARIES, help="summary store")
    p.set_defaults(handler=cmd_learn)

    p = sub.add_parser("run", help="evaluate a model on manifest seeds")
    _add_run_arguments(p)
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser("demo", help="run the built-in baseline on grasp_single_cube and print a table")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--workers", type=_positive_int, default=2)
    p.add_argument("--out", type=Path, default=Path("runs/demo"))
    p.set_defaults(handler=cmd_demo)

    p = sub.add_parser("bench", help="print timing benchmarks as JSON")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--episodes", type=int, default=4, help="baseline episodes for the throughput figure")
    p.set_defaults(handler=cmd_bench)

    p = sub.add_parser(
        "report", help="write a paper-style report (Markdown, CSV, HTML) from output directories"
    )
    p.add_argument("dirs", type=Path, nargs="+", metavar="DIR", help="output directories of actloop run")
    p.add_argument("--out", type=Path, help="report directory (default: the first DIR/report)")
    p.add_argument("--no-viewers", action="store_true", help="do not write viewer.html into episode records")
    p.set_defaults(handler=cmd_report)

    p = sub.add_parser("replay", help="re-execute recorded episodes and confirm they reproduce exactly")
    p.add_argument("record_dirs", type=Path, nargs="+", metavar="RECORD_DIR", help="episode record dirs")
    p.set_defaults(handler=cmd_replay)

    p = sub.add_parser("view", help="write the trajectory viewer (viewer.html) of one episode record")
    p.add_argument("record_dir", type=Path, metavar="RECORD_DIR", help="an episode's record directory")
    p.add_argument("--mp4", action="store_true", help="also write episode.mp4 of the clean frames")
    p.set_defaults(handler=cmd_view)
    return parser


def _positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", choices=SUITES, default="vabench")
    p.add_argument("--tasks", required=True, help="comma-separated task names, or 'all'")
    p.add_argument("--seeds", type=int, default=20, help="use the first N manifest seeds of each task")
    p.add_argument("--seed-list", help="comma-separated explicit seeds (must be manifest seeds)")
    p.add_argument("--runs", type=int, default=1, help="independent runs over the same seeds")
    _add_model_arguments(p, "Inspect model(s), comma-separated, e.g. actloop/baseline,openai/gpt-4o")
    p.add_argument("--protocol", default="active", help="active, passive, or both: active,passive")
    p.add_argument(
        "--summary",
        default="none",
        metavar="own|shared:MODEL|none",
        help="demonstration summary in the prompt (comma-separated for several conditions)",
    )
    p.add_argument(
        "--retry-errors", action="store_true", help="on resume, also rerun episodes that ended in an error"
    )
    p.add_argument("--summaries", type=Path, default=DEFAULT_SUMMARIES, help="summary store (see learn)")
    p.add_argument("--context-limit", type=int, help="the model's context size in tokens (compaction)")
    p.add_argument("--price-in", type=float, help="USD per million input tokens, for the recorded cost")
    p.add_argument("--price-out", type=float, help="USD per million output tokens")
    p.add_argument(
        "--workers", type=_positive_int, default=1, help="episodes run at once, each in its own process"
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run environments as actors on the Ray cluster at ADDRESS ('local' starts one on this machine)",
    )
    p.add_argument("--out", type=Path, required=True, help="output directory")


def _add_model_arguments(
    p: argparse.ArgumentParser, model_help: str = "Inspect model, e.g. actloop/baseline, openai/gpt-4o"
) -> None:
    p.add_argument("--model", required=True, help=model_help)
    p.add_argument(
        "-M",
        "--model-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="model argument (e.g. decisions=path.json for actloop/replay)",
    )
    p.add_argument("--model-base-url", help="provider endpoint (e.g. a local vLLM or Ollama server)")
    p.add_argument("--temperature", type=float)
    p.add_argument("--max-tokens", type=int)
    p.add_argument(
        "--max-retries", type=int, help="provider retries on rate limits and 5xx (default: Inspect's)"
    )
    p.add_argument(
        "--timeout", type=int, help="seconds one model call may take, retries included (default 600)"
    )


def cmd_tasks(args: argparse.Namespace) -> int:
    from actloop.vabench.seeds import load_manifest
    from actloop.vabench.task import get_task, task_names

    table = Table(title=f"{args.suite} task families")
    for col in ("task", "arms", "budget", "manifest seeds", "instruction"):
        table.add_column(col)
    for name in task_names():
        cls = get_task(name)
        try:
            seeds = str(len(load_manifest(name).seeds))
        except FileNotFoundError:
            seeds = "none"
        table.add_row(name, str(len(cls.arms)), str(cls.budget), seeds, cls.instruction)
    console.print(table)
    return 0


def _check_manifests(tasks: list[str], directory: Path) -> int:
    """``verify-seeds --check``: rebuild every manifest scene; say how it matched and what differs."""
    from actloop.vabench import seeds as seeding

    table = Table(title="manifest scenes on this machine")
    for col in ("task", "scenes", "compared", "max position deviation", "max rotation deviation", "problems"):
        table.add_column(col)
    problems: list[str] = []
    for task in tasks:
        check = seeding.check_manifest(seeding.load_manifest(task, directory))
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
        f"{seeding.SCENE_POSITION_TOLERANCE_M:g} m / {seeding.SCENE_ROTATION_TOLERANCE_RAD:g} rad"
    )
    return 0


def cmd_verify_seeds(args: argparse.Namespace) -> int:
    from actloop.vabench import seeds as seeding
    from actloop.vabench.task import task_names

    directory = args.out or seeding.MANIFEST_DIR
    tasks = args.task or task_names()
    if args.check:
        return _check_manifests(tasks, directory)
    table = Table(title="seed verification yield")
    for col in ("task", "probed", "accepted (20 eval + demo)", "yield %", "demo seed", "seconds"):
        table.add_column(col)
    started = time.perf_counter()
    screened = _screen_tasks(tasks, directory, args.workers)
    for task, (manifest, elapsed) in sorted(screened.items()):
        accepted = manifest.retained + (manifest.demo_seed is not None)
        table.add_row(
            task,
            str(manifest.probed),
            str(accepted),
            f"{100 * accepted / manifest.probed:.1f}",
            str(manifest.demo_seed),
            f"{elapsed:.1f}",
        )
    if len(tasks) > 1:
        probed = sum(m.probed for m, _ in screened.values())
        accepted = sum(m.retained + (m.demo_seed is not None) for m, _ in screened.values())
        table.add_row(
            f"all {len(tasks)} tasks",
            str(probed),
            str(accepted),
            f"{100 * accepted / max(1, probed):.1f}",
            "",
            f"{sum(e for _, e in screened.values()):.1f} ({time.perf_counter() - started:.1f} wall)",
        )
    console.print(table)
    return 0


def _screen_task(task: str, directory: Path) -> tuple[Any, float]:
    """Screen one task's candidates, write its manifest; returns (manifest, seconds). Runs in a worker."""
    from actloop.vabench import seeds as seeding

    start = time.perf_counter()

    def report(probe: seeding.Probe) -> None:
        mark = "[green]ok[/green]" if probe.accepted else f"[yellow]rejected[/yellow]: {probe.reason}"
        console.print(f"{task} seed {probe.seed}: {mark}")

    manifest = seeding.screen(task, on_probe=report)
    console.print(f"wrote {manifest.save(directory)}")
    return manifest, time.perf_counter() - start


def _screen_tasks(tasks: list[str], directory: Path, workers: int) -> dict[str, tuple[Any, float]]:
    """Screen tasks, ``workers`` at a time in spawned processes (candidates within a task stay in order)."""
    if workers <= 1:
        return {task: _screen_task(task, directory) for task in tasks}
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {task: pool.submit(_screen_task, task, directory) for task in tasks}
        return {task: future.result() for task, future in futures.items()}


def _select_episodes(
    tasks_arg: str, n_seeds: int, seed_list: str | None, runs: int
) -> list[tuple[str, int, int]]:
    from actloop.vabench.seeds import load_manifest

    episodes = []
    for task in _task_list(tasks_arg):
        manifest_seeds = load_manifest(task).seed_list()
        if seed_list:
            seeds = [int(s) for s in seed_list.split(",")]
            unknown = sorted(set(seeds) - set(manifest_seeds))
            if unknown:
                raise ValueError(f"seeds {unknown} are not verified seeds of {task}; see its manifest")
        else:
            if not 1 <= n_seeds <= len(manifest_seeds):
                raise ValueError(f"--seeds must be between 1 and {len(manifest_seeds)} for {task}")
            seeds = manifest_seeds[:n_seeds]
        episodes += [(task, seed, run) for run in range(1, runs + 1) for seed in seeds]
    return episodes


def _model_args(pairs: list[str]) -> dict[str, Any]:
    """``-M KEY=VALUE`` pairs with values read as YAML scalars, as Inspect's own CLI reads them
    (``true``/``false``, numbers and ``null`` become those types; anything else stays a string)."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"model argument {pair!r} must be KEY=VALUE")
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            parsed = value
        out[key] = parsed if isinstance(parsed, str | int | float | bool) or parsed is None else value
    return out


def _task_list(tasks_arg: str) -> list[str]:
    from actloop.vabench.task import get_task, task_names

    tasks = task_names() if tasks_arg == "all" else [t.strip() for t in tasks_arg.split(",") if t.strip()]
    for task in tasks:
        get_task(task)  # unknown names fail here, listing the known ones
    return tasks


def _generate_args(args: argparse.Namespace) -> dict[str, Any]:
    """Generation settings given on the command line (the rest stay at the provider's defaults)."""
    values = {
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "max_retries": args.max_retries,
        "timeout": args.timeout,
    }
    return {k: v for k, v in values.items() if v is not None}


def _harness(args: argparse.Namespace, condition: Any, tasks: list[str]) -> Any:
    from actloop.agent.options import DEFAULT_CONTEXT_LIMIT, HarnessOptions
    from actloop.agent.summaries import resolve_summaries
    from actloop.vabench.task import get_task

    summary_tasks = {t: getattr(get_task(t), "base_task", None) or t for t in tasks}
    return HarnessOptions(
        context_limit=args.context_limit or DEFAULT_CONTEXT_LIMIT,
        price_in=args.price_in,
        price_out=args.price_out,
        summary=condition.summary,
        summaries=resolve_summaries(condition.summary, condition.model, summary_tasks, args.summaries),
    )


def _csv(value: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise ValueError(f"expected a comma-separated list, got {value!r}")
    return items


def _run(
    episodes: list[tuple[str, int, int]],
    model: str,
    model_args: dict[str, Any],
    out: Path,
    workers: int,
    protocol: str,
    **options: Any,
) -> list[dict[str, Any]]:
    from actloop.agent.run import evaluate

    out.mkdir(parents=True, exist_ok=True)
    console.print(f"running {len(episodes)} episode(s) of {model} with {workers} worker(s) -> {out}")
    return evaluate(episodes, model, model_args, out, workers=workers, protocol=protocol, **options)


def cmd_run(args: argparse.Namespace) -> int:
    from actloop.agent.matrix import (
        claim,
        condition_dir,
        conditions,
        describe,
        discard_cut_off_records,
        episode_rows,
        output_lock,
        pending,
        progress,
    )
    from actloop.agent.run import check_model
    from actloop.records.table import EPISODES_TABLE, write_episode_table

    episodes = _select_episodes(args.tasks, args.seeds, args.seed_list, args.runs)
    protocols = _csv(args.protocol)
    unknown = sorted(set(protocols) - {"active", "passive"})
    if unknown:
        raise ValueError(f"unknown protocol(s) {unknown}; choose active and/or passive")
    matrix = conditions(_csv(args.model), protocols, _csv(args.summary))
    tasks = sorted({task for task, _, _ in episodes})
    harnesses = [_harness(args, c, tasks) for c in matrix]  # fails early on a missing summary
    settings = {
        "model_args": _model_args(args.model_arg),
        "model_base_url": args.model_base_url,
        "generation": _generate_args(args),
    }
    for model in dict.fromkeys(c.model for c in matrix):  # a missing key fails before any episode
        check_model(model, settings["model_args"], args.model_base_url)
    dirs = [condition_dir(args.out, c, matrix) for c in matrix]
    isolation = "process"
    if args.ray:
        from actloop.runtime.ray_actor import connect

        connect(args.ray)
        isolation = "ray"
    console.print(f"{len(matrix)} condition(s) x {len(episodes)} episode(s) -> {args.out}")
    with output_lock(args.out):
        for condition, out_dir in zip(matrix, dirs, strict=True):
            out_dir.mkdir(parents=True, exist_ok=True)
            claim(out_dir, describe(condition, settings))
        with progress(console, dirs, set(episodes)):
            for condition, harness, out_dir in zip(matrix, harnesses, dirs, strict=True):
                todo = pending(episodes, out_dir, args.retry_errors)
                if len(todo) < len(episodes):
                    console.print(
                        f"{condition.slug}: {len(episodes) - len(todo)} episode(s) already recorded"
                    )
                if todo:
                    discard_cut_off_records(out_dir, todo)
                    ran = _run(
                        todo,
                        condition.model,
                        settings["model_args"],
                        out_dir,
                        args.workers,
                        condition.protocol,
                        isolation=isolation,
                        harness=harness,
                        model_base_url=args.model_base_url,
                        **settings["generation"],
                    )
                    stopped = next((r for r in ran if r.get("error_kind") == "configuration"), None)
                    if stopped is not None:
                        console.print(
                            Text.assemble(("error: ", "red"), f"{condition.model}: {stopped['error']}"),
                            highlight=False,
                        )
                        console.print("fix the configuration and rerun: these episodes will run again")
                        return 1
    rows = [row for out_dir in dirs for row in episode_rows(out_dir, set(episodes))]
    print_results(rows)
    table = args.out / EPISODES_TABLE
    console.print(f"episode table ({write_episode_table(dirs, table)} rows): {table}")
    return 0


def cmd_demos(args: argparse.Namespace) -> int:
    from actloop.vabench.demonstration import record_demonstration

    for task in _task_list(args.tasks):
        demo = record_demonstration(task, args.out)
        console.print(f"{task}: seed {demo.seed}, {demo.video_frames} video frames -> {args.out / task}")
    return 0


def cmd_learn(args: argparse.Namespace) -> int:
    from actloop.agent.learn_run import learn
    from actloop.vabench.demonstration import load_demonstration, record_demonstration

    tasks = _task_list(args.tasks)
    for task in tasks:
        try:
            load_demonstration(args.demos, task)
        except FileNotFoundError:
            console.print(f"{task}: filming the demonstration")
            record_demonstration(task, args.demos)
    rows = learn(
        tasks,
        args.model,
        _model_args(args.model_arg),
        args.demos,
        args.summaries,
        model_base_url=args.model_base_url,
        **_generate_args(args),
    )
    table = Table(title=f"learning phase of {args.model}")
    for col in ("task", "accepted", "frames inspected", "model calls", "stop", "summary"):
        table.add_column(col)
    for row in rows:
        table.add_row(
            str(row["task"]),
            "yes" if row.get("accepted") else "no",
            str(row.get("frames_seen", [])),
            str(row.get("model_calls", "")),
            str(row.get("stop_reason", row.get("error", ""))),
            str(row.get("summary_path", "")),
        )
    console.print(table)
    return 0 if all(row.get("accepted") for row in rows) else 1


def cmd_replay(args: argparse.Namespace) -> int:
    from actloop.records.reexecute import reexecute

    failures = 0
    for record_dir in args.record_dirs:
        check = reexecute(record_dir)
        summary = (
            f"{check.steps} steps compared {check.mode}, success {check.replayed_success}, "
            f"max pose deviation {check.max_deviation.text()}"
        )
        if check.reproduced:
            console.print(f"[green]reproduced[/green] {record_dir}: {summary}")
            continue
        failures += 1
        console.print(f"[red]differs[/red] {record_dir}: {summary}")
        for line in check.differences:
            console.print(f"  {line}")
        if check.recorded_success != check.replayed_success:
            console.print(
                f"  final success: recorded {check.recorded_success}, replayed {check.replayed_success}"
            )
    return 1 if failures else 0


def cmd_demo(args: argparse.Namespace) -> int:
    episodes = _select_episodes(DEMO_TASK, args.seeds, None, 1)
    rows = _run(episodes, "actloop/baseline", {}, args.out, args.workers, "active")
    print_results(rows)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from actloop.bench import run_benchmarks

    print(json.dumps(run_benchmarks(repeats=args.repeats, episodes=args.episodes), indent=2))
    return 0


def _result_dirs(dirs: list[Path]) -> list[Path]:
    """Output directories, with a run matrix's parent directory expanded into its condition directories."""
    from actloop.records.jsonl import RESULTS_FILE

    expanded = []
    for directory in dirs:
        nested = sorted(p.parent for p in directory.glob(f"*/{RESULTS_FILE}"))
        expanded += nested if not (directory / RESULTS_FILE).exists() and nested else [directory]
    return expanded


def cmd_report(args: argparse.Namespace) -> int:
    from actloop.records.table import EPISODES_TABLE, write_episode_table
    from actloop.report import build_report

    dirs = _result_dirs(args.dirs)
    report = build_report(dirs, args.out, viewers=not args.no_viewers)
    write_episode_table(dirs, report.out_dir / EPISODES_TABLE)
    console.print(report.summary_markdown, markup=False, highlight=False, soft_wrap=True)
    for note in report.analysis.notes:
        console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"wrote {len(report.files)} report files and {len(report.viewers)} viewer(s) to {report.out_dir}"
    )
    console.print(f"{report.out_dir / 'report.html'}", markup=False, highlight=False, soft_wrap=True)
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    from actloop.viewer import write_viewer

    if not (args.record_dir / "events.jsonl").is_file():
        raise FileNotFoundError(f"{args.record_dir} holds no events.jsonl: not an episode record")
    console.print(str(write_viewer(args.record_dir)), markup=False, highlight=False, soft_wrap=True)
    if args.mp4:
        from actloop.viewer.video import write_episode_video

        video = write_episode_video(args.record_dir)
        console.print(str(video), markup=False, highlight=False, soft_wrap=True)
    return 0


def print_results(rows: list[dict[str, Any]]) -> None:
    """A per-episode table and a success summary."""
    table = Table(title="episode results")
    for col in ("task", "seed", "run", "model", "success", "steps", "stop reason", "record"):
        table.add_column(col)
    for row in rows:
        ok = "[green]yes[/green]" if row.get("success") else "[red]no[/red]"
        table.add_row(
            str(row["task"]),
            str(row["seed"]),
            str(row["run"]),
            str(row["model"]),
            ok,
            str(row.get("steps")),
            str(row.get("stop_reason")),
            str(row.get("record_dir") or "-"),
        )
    console.print(table)
    wins = sum(1 for r in rows if r.get("success"))
    infra = sum(1 for r in rows if r.get("stop_reason") == "infra_error")
    console.print(f"success: {wins}/{len(rows)}" + (f" ({infra} infrastructure error(s))" if infra else ""))


if __name__ == "__main__":
    sys.exit(main())
