"""`alphaprover solve`, `play` and `demo`: one theorem at a time, printed for a person or as JSON."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Sequence

from omegaconf import DictConfig

from alphaprover.config import UsageError, new_run_dir, save_config, to_plain
from alphaprover.play import run_play
from alphaprover.runtime import backend_language, build_env, build_evaluator, build_settings, resolve_theorem
from search.solve import SolveOutcome, solve
from search.tree_html import write_tree_html


def _outcome_json(name: str, method: str, evaluator: str, outcome: SolveOutcome) -> dict:
    return {
        "theorem": name,
        "method": method,
        "evaluator": evaluator,
        "proved": outcome.proved,
        "proof": outcome.script,
        "axioms": list(outcome.verdict.axioms) if outcome.verdict else [],
        "incident": outcome.incident,
        "closed_by": [{"tactic": tactic, "family": family} for tactic, family in outcome.closed_by],
        "stats": {**outcome.stats.as_dict(), "start_seconds": round(outcome.start_seconds, 4),
                  "verify_seconds": round(outcome.verify_seconds, 4)},
    }


def _print_outcome(name: str, record: dict) -> None:
    stats = record["stats"]
    if record["proved"]:
        print(f"PROVED {name} (verified from scratch; axioms in its environment: {', '.join(record['axioms']) or 'none'})")
        print(record["proof"])
        families = dict.fromkeys(step["family"] for step in record["closed_by"])
        print(f"goals closed by: {', '.join(families) or 'nothing'} (automation families, search/automation.py)")
    else:
        print(f"NOT PROVED {name} within budget")
    if record["incident"]:
        print(record["incident"])
    print(f"method {record['method']} · evaluator {record['evaluator']}")
    print(f"simulations {stats['simulations']:.0f} · prover calls {stats['prover_calls']:.0f} "
          f"({stats['prover_errors']:.0f} failed) · evaluator calls {stats['evaluator_calls']:.0f} · "
          f"goals {stats['nodes']:.0f}")
    print(f"time {stats['total_seconds']:.2f}s search = prover {stats['prover_seconds']:.2f}s + network "
          f"{stats['evaluator_seconds']:.2f}s + search {stats['search_seconds']:.2f}s; start "
          f"{stats['start_seconds']:.2f}s, verify {stats['verify_seconds']:.2f}s")


def run_solve(args: argparse.Namespace, cfg: DictConfig) -> int:
    plain = to_plain(cfg)
    method, settings, budget = build_settings(plain)
    theorem = resolve_theorem(args.target, backend_language(plain["backend"]), args.header, args.name)
    evaluator, description = build_evaluator(plain, method)
    run_dir = new_run_dir(plain["runs_dir"], "solve")
    save_config(cfg, run_dir)
    with build_env(plain["backend"]) as env:
        outcome = solve(theorem, env, evaluator, method, settings, budget)
    record = _outcome_json(theorem.name, method.value, description, outcome)
    (run_dir / "result.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    if args.tree_html and outcome.tree is not None:
        write_tree_html(outcome.tree, args.tree_html, f"alphaprover search: {theorem.name}")
    if args.json:
        print(json.dumps(record))
    else:
        _print_outcome(theorem.name, record)
        if args.tree_html:
            print(f"search tree: {args.tree_html}")
    return 0 if outcome.proved else 1


def run_play_command(args: argparse.Namespace, cfg: DictConfig) -> int:
    plain = to_plain(cfg)
    theorem = resolve_theorem(args.target, backend_language(plain["backend"]), args.header, args.name)
    with build_env(plain["backend"]) as env:
        session = run_play(env, theorem, sys.stdin, print, prompt=sys.stdin.isatty())
    return 0 if session.verdict is not None and session.verdict.ok else 1


def _prelude_tactics_used(header: str, script: str) -> list[str]:
    """Decision procedures in `script` whose module the header does not load (for the demo's
    note only: it reads the two texts, it decides nothing)."""
    from lean_interface.coq.prelude import TACTIC_MODULES

    words = set(re.findall(r"[A-Za-z_]+", script))
    return [tactic for tactic, module in TACTIC_MODULES.items() if tactic in words and module not in header]


def run_demo(args: argparse.Namespace, cfg: DictConfig, problems: Sequence[str]) -> int:
    """Solve a few bundled miniF2F problems with the shipped checkpoint, MCTS, on Coq."""
    from lean_interface.problems.benchmarks import find_problem

    plain = to_plain(cfg)
    method, settings, budget = build_settings(plain)
    evaluator, description = build_evaluator(plain, method)
    run_dir = new_run_dir(plain["runs_dir"], "demo")
    save_config(cfg, run_dir)
    proved = 0
    with build_env(plain["backend"]) as env:
        for name in problems:
            problem = find_problem(name)
            if problem.theorem is None:
                raise UsageError(f"{name}: {problem.error}")
            print(f"\n=== {name} ===\nheader: {' '.join(problem.theorem.header.split())}\n{problem.theorem.statement}")
            outcome = solve(problem.theorem, env, evaluator, method, settings, budget)
            record = _outcome_json(name, method.value, description, outcome)
            _print_outcome(name, record)
            from_prelude = _prelude_tactics_used(problem.theorem.header, outcome.script or "")
            if outcome.proved and from_prelude:
                print(f"(uses {', '.join(from_prelude)} from the tactic prelude: the header does not load it)")
            proved += outcome.proved
            if outcome.tree is not None:
                html_path = Path(args.tree_html).with_name(f"{name}.html")
                write_tree_html(outcome.tree, html_path, f"alphaprover search: {name}")
    print(f"\ndemo: {proved}/{len(problems)} proved and verified · trees in {Path(args.tree_html).parent}/ "
          f"· config in {run_dir}/config.yaml")
    return 0
