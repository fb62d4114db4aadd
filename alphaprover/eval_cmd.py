"""`alphaprover eval`: methods side by side on a benchmark, resumable, with a table and a plot.

Results are appended to a JSONL file one (method, problem) at a time; a rerun with the same file
and budget skips what is already there, so a killed evaluation loses at most the problems in
flight. The summary (Markdown table + PNG of proved fraction against time) is rebuilt from the
whole file at the end of every run. `--workers N > 1` or `ray_address=…` runs the jobs on Ray
(`alphaprover.eval_cluster`: local, or attached to a cluster, surviving a worker node's death).

Method labels: `portfolio`, `bfs`, `mcts`, a search with an action set (`mcts-mixed`, `bfs-fixed`),
then options each after a `+`: MCTS's expansion (`mcts-fixed+eager`, `mcts-mixed+glance`: `mcts.expansion`
for that method only, docs/ARCHITECTURE.md §Cost-aware expansion) and a mixed search's lemma candidates
(`mcts-mixed+lemmas8`), and any of them with its own checkpoint (`mcts-mixed+cost@runs/x/best`). Hydra
overrides (`mcts.cost_c=0.5`, `budget.max_seconds=60`) apply to every method; a label's option wins over
the config. An unknown option is a one-line error, exit 2.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any, Iterator

from omegaconf import DictConfig
from tqdm import tqdm

from alphaprover.config import UsageError, new_run_dir, save_config, to_plain
from alphaprover.eval_records import ProblemRecord, RecordWriter, read_records
from alphaprover.eval_report import differences_table, markdown_table, plot_pass_rate, search_depth_table, summarise
from alphaprover.eval_runner import ProblemRunner, parse_method_label, split_checkpoint
from alphaprover.runtime import build_settings, policy_decoding, resolve_repo_path, sampling_temperatures
from lean_interface.problems.benchmarks import Problem, load_benchmark


def _select(problems: list[Problem], names: str | None, limit: int | None, every: int | None) -> list[Problem]:
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
        known = {p.name: p for p in problems}
        missing = [n for n in wanted if n not in known]
        if missing:
            raise UsageError(f"unknown problem(s): {', '.join(missing[:5])}")
        problems = [known[n] for n in wanted]
    if every is not None:
        if every < 1:
            raise UsageError("--every must be at least 1")
        problems = problems[::every]
    if limit is not None:
        if limit < 1:
            raise UsageError("--limit must be at least 1")
        problems = problems[:limit]
    return problems


def default_results_path(benchmark: str, cfg: dict[str, Any]) -> Path:
    """results/<benchmark>-<seconds>s-<simulations>sims[-<sampling>].jsonl. Results are resumed by
    (problem, method), so the name carries every setting that changes what a method does and is
    not in its label: the budget, and the policy's sampling when it is not the default (a
    `decoding=beam` run must not skip problems because a sampling run already did them)."""
    stem = re.sub(r"[^\w.-]+", "_", Path(benchmark).name or benchmark)
    budget = cfg["budget"]
    temperature, step = sampling_temperatures(cfg)
    sampling = "".join((f"-T{temperature:g}" if temperature != 1.0 else "",
                        f"-step{step:g}" if step else "",
                        f"-{policy_decoding(cfg)}" if policy_decoding(cfg) != "sample" else ""))
    return Path("results") / f"{stem}-{budget['max_seconds']:g}s-{budget['max_simulations']}sims{sampling}.jsonl"


def _run_local(cfg: dict, jobs: list[tuple[Problem, str]]) -> Iterator[ProblemRecord]:
    runner = ProblemRunner(cfg)
    try:
        for problem, method in jobs:
            yield runner.run(problem.name, problem.theorem, problem.error, method)
    finally:
        runner.close()


def _is_checkpoint(spec: str) -> bool:
    """Whether a label's `@CHECKPOINT` names one: our checkpoint DIR, `hf:DIR` or a DIR holding a
    transformers checkpoint (`networks.hf_dir`); read from the files, nothing loaded."""
    from networks.checkpoint import is_checkpoint
    from networks.hf_dir import is_hf_checkpoint, split_hf

    explicit, path = split_hf(spec)
    directory = resolve_repo_path(path)
    return is_hf_checkpoint(directory) or (not explicit and is_checkpoint(directory))


def pending_jobs(problems: list, methods: list[str], done: set, seconds: float, simulations: int) -> list[tuple]:
    """The (problem, method) pairs still to run at this budget, problem-major: each problem's methods run
    one after another, so a change of machine load during the run (a timeout-prone stretch) falls on
    every method alike instead of on whichever method's turn it was."""
    return [(p, m) for p in problems for m in methods if (m, p.name, seconds, simulations) not in done]


def resolve_eval_arguments(args: argparse.Namespace, plain: dict[str, Any]) -> None:
    """Fill the eval's benchmark, methods, workers and output from the config's `eval` block (a named
    experiment sets it) where the command line left them out; the command line wins."""
    settings = plain.get("eval") or {}
    for key in ("benchmark", "methods", "workers", "out"):
        if getattr(args, key, None) is None:
            setattr(args, key, settings.get(key))
    if not args.benchmark:
        raise UsageError("eval needs a benchmark: a name (minif2f-rocq-dev), a path, or +experiment=NAME")
    args.methods = args.methods or "portfolio,bfs,mcts"
    args.workers = 1 if args.workers is None else int(args.workers)


def run_eval_command(args: argparse.Namespace, cfg: DictConfig) -> int:
    plain = to_plain(cfg)
    resolve_eval_arguments(args, plain)
    build_settings(plain)  # validate the search and sampling config before any work
    sampling_temperatures(plain)
    policy_decoding(plain)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for label in methods:
        base, checkpoint = split_checkpoint(label)
        parse_method_label(base)  # ValueError (exit 2) on an unknown method, expansion or option
        if checkpoint is not None and not _is_checkpoint(checkpoint):
            raise UsageError(f"method {label}: no checkpoint at {checkpoint}")
    if not methods:
        raise UsageError("--methods is empty")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    problems = _select(load_benchmark(args.benchmark), args.problems, args.limit, args.every)
    out = Path(args.out) if args.out else default_results_path(args.benchmark, plain)
    done = {r.key() for r in read_records(out)}
    budget = plain["budget"]
    jobs = pending_jobs(problems, methods, done, float(budget["max_seconds"]), int(budget["max_simulations"]))
    run_dir = new_run_dir(plain["runs_dir"], "eval")
    save_config(cfg, run_dir)
    print(f"eval {args.benchmark}: {len(problems)} problems × {len(methods)} methods; "
          f"{len(jobs)} to run, {len(problems) * len(methods) - len(jobs)} already in {out}")
    if jobs:
        address = str(plain.get("ray_address") or "")
        if args.workers == 1 and not address:
            stream = _run_local(plain, jobs)
        else:
            from alphaprover.eval_cluster import run_on_ray

            stream = run_on_ray(plain, jobs, args.workers, address)
        with RecordWriter(out) as writer:
            bar = tqdm(stream, total=len(jobs), desc="eval", unit="problem")
            proved = 0
            for record in bar:
                writer.write(record)
                proved += record.status.value == "proved"
                bar.set_postfix(proved=proved, last=f"{record.method}:{record.problem}:{record.status.value}")
    names = {p.name for p in problems}
    records = [r for r in read_records(out) if r.problem in names and r.method in methods
               and r.budget_seconds == float(budget["max_seconds"])
               and r.budget_simulations == int(budget["max_simulations"])]
    table = markdown_table(summarise(records))
    depth = search_depth_table(records)
    if depth:
        table += "\n\nSearch depth and speed:\n\n" + depth
    differences = differences_table(records)
    if differences:
        table += "\n\nProblems the methods disagree on:\n\n" + differences
    title = f"{args.benchmark}: {len(problems)} problems, budget {budget['max_seconds']:g}s / {budget['max_simulations']} sims"
    plot_path = out.with_suffix(".png")
    plot_pass_rate(records, plot_path, title)
    out.with_suffix(".md").write_text(f"## {title}\n\n{table}\n", encoding="utf-8")
    print(table)
    print(f"results {out} · table {out.with_suffix('.md')} · plot {plot_path}")
    return 0
