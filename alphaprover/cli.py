"""The `alphaprover` command line: solve, play, eval, eval-proofs, eval-runs, extract, factory, pretrain, train,
ttrl, analyze, probe, demo.

Flags name the common choices; anything else is a Hydra override (`key=value`) of the config tree
in `configs/`. Exit codes: 0 success (solve: proved), 1 not proved, 2 bad input — always a single
`alphaprover: error: …` line, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from alphaprover.analyze import add_arguments as add_analyze_arguments
from alphaprover.config import UsageError, load_config, load_run_config, save_config, to_plain
from alphaprover.eval_proofs import add_arguments as add_eval_proofs_arguments
from alphaprover.eval_runs import add_arguments as add_eval_runs_arguments
from alphaprover.probe import add_arguments as add_probe_arguments
from lean_interface.api import EnvError

#: bundled problems outside the dev subset; mathd_algebra_119's and mathd_algebra_37's headers load
#: only Reals, so their `lra`/`nra` come from the tactic prelude
DEMO_PROBLEMS = ("mathd_numbertheory_35", "mathd_algebra_119", "mathd_algebra_37", "mathd_numbertheory_188")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        raise UsageError(message)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", help="coq | lean_repl | leandojo (config group `backend`)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. budget.max_seconds=30")


def _search_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", help="mcts | bfs | portfolio")
    parser.add_argument("--checkpoint", help="checkpoint directory (default: the shipped model)")
    parser.add_argument("--actions", help="network | fixed | mixed (default mixed: network samples + automation)")
    parser.add_argument("--no-network", action="store_true", help="the fixed tactic list (= --actions fixed)")
    parser.add_argument("--seconds", type=float, help="wall-clock budget per problem")
    parser.add_argument("--simulations", type=int, help="simulation budget per problem")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="alphaprover", description=" ".join(__doc__.split("\n\n")[0].split()))
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    solve = sub.add_parser("solve", help="search for a proof and print it verified (default: MCTS, mixed actions with the shipped "
                                          "checkpoint, Coq, 400 simulations or 60 s)")
    solve.add_argument("target", help="a statement, a .v/.lean file, or a bundled problem name")
    solve.add_argument("--header", help="imports/definitions for a bare statement")
    solve.add_argument("--name", default="user_theorem", help="theorem name for a bare statement")
    solve.add_argument("--tree-html", help="write the search tree as an HTML page here")
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    _search_flags(solve)
    _common(solve)

    play = sub.add_parser("play", help="interactive tactic session on Coq (reads tactics from stdin; `qed` verifies)")
    play.add_argument("target", help="a statement, a .v/.lean file, or a bundled problem name")
    play.add_argument("--header", help="imports/definitions for a bare statement")
    play.add_argument("--name", default="user_theorem")
    _common(play)

    evaluate = sub.add_parser("eval", help="run methods side by side on a benchmark (default: portfolio,bfs,mcts, "
                                           "60 s each, no simulation cap); resumable; table + plot; "
                                           "+experiment=NAME runs a named experiment (configs/experiment/)")
    evaluate.add_argument("benchmark", nargs="?", help="bundled name (minif2f-rocq-dev, minif2f-rocq-test, …) or a "
                                                       ".v dir / .jsonl file (default: the experiment's)")
    evaluate.add_argument("--methods", default=None,
                          help="comma-separated: portfolio, bfs, mcts, each search with an optional action "
                               "set suffix -network / -fixed / -mixed (e.g. mcts-mixed,bfs-fixed); mcts may add "
                               "+eager / +cost / +measured / +glance (its expansion), -mixed +lemmas[N] (N library-lemma candidates, "
                               "default 8), -mixed/-network +sample / +beam / +both (decoding), mcts-mixed +priced / "
                               "+uniform / +residual (a glanced goal's list after the policy's round), any method @CHECKPOINT (e.g. mcts-fixed+eager,mcts-mixed+cost+lemmas)")
    evaluate.add_argument("--workers", type=int, default=None, help="parallel workers (Ray when > 1; default 1)")
    evaluate.add_argument("--limit", type=int, help="only the first N problems (sorted by name)")
    evaluate.add_argument("--problems", help="comma-separated problem names")
    evaluate.add_argument("--every", type=int, help="a spread-out subset: every K-th problem by name")
    evaluate.add_argument("--out", help="results JSONL (default: results/<benchmark>-<budget>.jsonl)")
    evaluate.add_argument("--checkpoint")
    evaluate.add_argument("--actions", help="action set of unsuffixed methods: network | fixed | mixed")
    evaluate.add_argument("--no-network", action="store_true", help="= --actions fixed")
    evaluate.add_argument("--seconds", type=float)
    evaluate.add_argument("--simulations", type=int)
    _common(evaluate)

    eval_proofs = sub.add_parser("eval-proofs", help="replay an eval run's proofs of train problems into a "
                                                     "supervised dataset (never dev or test)")
    add_eval_proofs_arguments(eval_proofs)

    eval_runs = sub.add_parser("eval-runs", help="the same arms over several eval runs: counts per run, "
                                                 "sums, and the problems that come and go")
    add_eval_runs_arguments(eval_runs)

    extract = sub.add_parser("extract", help="replay Coq libraries (default: stdlib, Coquelicot, Flocq, Coqprime, Bignums) "
                                              "into a tactic dataset under data/extracted/")
    extract.add_argument("--out", default="data/extracted")
    extract.add_argument("--roots", nargs="*", help="source directories (default: Coq stdlib + Coquelicot)")
    extract.add_argument("--workers", type=int, default=2)
    extract.add_argument("--limit", type=int, help="only the first N files")

    factory = sub.add_parser("factory", help="generate, elaborate and deduplicate the problem factory into JSONL "
                                             "(configs/factory.yaml)")
    factory.add_argument("overrides", nargs="*")

    pretrain = sub.add_parser("pretrain", help="supervised training of the policy/value network (default: configs/pretrain.yaml's "
                                                 "stdlib records + factory scripts; rerun to resume)")
    pretrain.add_argument("overrides", nargs="*")

    train = sub.add_parser("train", help="reinforcement learning (default: expert iteration rounds on the factory, the train split "
                                           "and its variants; loop=selfplay for the continuous loop; configs/train.yaml)")
    train.add_argument("overrides", nargs="*")

    ttrl = sub.add_parser("ttrl", help="test-time RL on a target's variants, one budget for many targets "
                                       "(configs/ttrl.yaml)")
    ttrl.add_argument("target", help="a statement, a .v file, a bundled problem name, a directory of .v files, "
                                     "or a competition file (.jsonl, or .txt: one target per line)")
    ttrl.add_argument("--header", help="imports/definitions for a bare statement")
    ttrl.add_argument("--name", default="user_theorem", help="theorem name for a bare statement")
    ttrl.add_argument("overrides", nargs="*")

    analyze = sub.add_parser("analyze", help="read an expert-iteration run directory: the curve by family, "
                                             "repeated and re-budgeted reads, script log-probs, value AUC")
    add_analyze_arguments(analyze, _Parser)

    probe = sub.add_parser("probe", help="score known proof scripts of train problems step by step under "
                                         "checkpoints: log-prob, beam rank, value")
    add_probe_arguments(probe)

    demo = sub.add_parser("demo", help="solve four bundled miniF2F train problems with the shipped model and "
                                        "write the search tree as HTML")
    demo.add_argument("--tree-html", default="runs/demo/tree.html")
    demo.add_argument("overrides", nargs="*")
    return parser


def _overrides(args: argparse.Namespace) -> list[str]:
    out = list(getattr(args, "overrides", []) or [])
    if getattr(args, "backend", None):
        out.append(f"backend={args.backend}")
    if getattr(args, "method", None):
        out.append(f"method={args.method}")
    if getattr(args, "checkpoint", None):
        out.append(f"checkpoint={args.checkpoint}")
    if getattr(args, "actions", None):
        out.append(f"actions={args.actions}")
    if getattr(args, "no_network", False):
        out.append("actions=fixed")
    if getattr(args, "seconds", None) is not None:
        out.append(f"budget.max_seconds={args.seconds}")
    if getattr(args, "simulations", None) is not None:
        out.append(f"budget.max_simulations={args.simulations}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args, extra = build_parser().parse_known_args(argv)
        bad = [x for x in extra if x.startswith("-") or "=" not in x]
        if bad:
            raise UsageError(f"unrecognized arguments: {' '.join(bad)}")
        if extra and not hasattr(args, "overrides"):
            raise UsageError(f"{args.command} takes no config overrides: {' '.join(extra)}")
        if extra:
            args.overrides = [*args.overrides, *extra]
        if args.command == "solve":
            from alphaprover.solve_cmd import run_solve

            return run_solve(args, load_config("config", _overrides(args)))
        if args.command == "play":
            from alphaprover.solve_cmd import run_play_command

            return run_play_command(args, load_config("config", _overrides(args)))
        if args.command == "demo":
            from alphaprover.solve_cmd import run_demo

            return run_demo(args, load_config("config", _overrides(args)), DEMO_PROBLEMS)
        if args.command == "eval":
            from alphaprover.eval_cmd import run_eval_command

            if args.benchmark and "=" in args.benchmark:  # `eval +experiment=NAME`: an override, no benchmark
                args.overrides, args.benchmark = [args.benchmark, *args.overrides], None

            return run_eval_command(args, load_config("eval", _overrides(args)))
        if args.command == "eval-proofs":
            from alphaprover.eval_proofs import run as run_eval_proofs

            return run_eval_proofs(args)
        if args.command == "eval-runs":
            from alphaprover.eval_runs import run as run_eval_runs

            return run_eval_runs(args)
        if args.command == "extract":
            return _extract(args)
        if args.command == "factory":
            from alphaprover.factory_cmd import run_factory

            return run_factory(load_config("factory", list(args.overrides)))
        if args.command == "pretrain":
            return _pretrain(load_config("pretrain", list(args.overrides)))
        if args.command == "train":
            from alphaprover.train_cmd import run_train

            return run_train(load_run_config("train", list(args.overrides)))
        if args.command == "analyze":
            from alphaprover.analyze import run_analysis

            return run_analysis(args)
        if args.command == "probe":
            from alphaprover.probe import run as run_probe

            return run_probe(args)
        if args.command == "ttrl":
            from alphaprover.ttrl_cmd import run_ttrl

            return run_ttrl(args, load_config("ttrl", list(args.overrides)))
    except (UsageError, EnvError, ValueError, FileNotFoundError) as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"alphaprover: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("alphaprover: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        if not _stdout_reader_gone():
            raise  # a pipe to a prover or a worker, not the reader's: not ours to hide
        return _silence_stdout()
    return 2


def _stdout_reader_gone() -> bool:
    """Whether stdout is a pipe whose reader has closed it (`alphaprover analyze … | head -1`):
    poll reports POLLERR on such a pipe's write end, and nothing on a live pipe, a file or a tty."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # stdout is no file (replaced, closed)
        return False


def _silence_stdout() -> int:
    """Stop quietly, as a Unix filter does when its reader leaves, with the shell's SIGPIPE status;
    stdout is pointed at /dev/null so the interpreter's flush at exit does not raise again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141


def _extract(args: argparse.Namespace) -> int:
    from alphaprover.extract import extract
    from lean_interface.problems.libraries import DEFAULT_ROOTS

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    summary = extract(args.roots or DEFAULT_ROOTS, Path(args.out), workers=args.workers, limit=args.limit)
    print(f"files {summary.files} (failed {summary.files_failed}), lemmas replayed {summary.lemmas_ok} "
          f"(dropped {summary.lemmas_dropped}), records train {summary.records_train} valid {summary.records_valid}")
    print(f"written to {args.out}/train.jsonl, valid.jsonl, summary.json")
    return 0


def _pretrain(cfg) -> int:
    from networks.train import PretrainConfig, pretrain

    plain = to_plain(cfg)
    plain.pop("experiment", None)  # a named experiment's description (configs/experiment/), not a setting
    settings = PretrainConfig.from_dict(plain)
    keep_lemma = None
    if settings.hold_out:  # a benchmark held out of training (docs/ARCHITECTURE.md §Data, "Tune slice")
        from selfplay.hold_out import HoldOut

        held = HoldOut.of(settings.hold_out)
        left_out: set[str] = set()

        def keep_lemma(lemma: str) -> bool:
            kept = held.keeps_lemma(lemma)
            if not kept:
                left_out.add(lemma)
            return kept
    from alphaprover.train_inputs import ensure_inputs

    ensure_inputs(settings.train_file, "")  # default-path files it names are built when missing, as `train` does
    Path(settings.out_dir).mkdir(parents=True, exist_ok=True)
    save_config(cfg, Path(settings.out_dir))
    metrics = pretrain(settings, keep_lemma)
    if settings.hold_out:
        print(f"hold_out {', '.join(settings.hold_out)}: the records of {len(left_out)} problems left out")
    print(json.dumps(metrics))
    return 0


if __name__ == "__main__":
    sys.exit(main())
