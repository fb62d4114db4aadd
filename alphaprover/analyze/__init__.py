"""`alphaprover analyze RUN_DIR <analysis> [options]`: read an expert-iteration run directory.

Each analysis answers one question about a run that `alphaprover train` wrote (`curve.tsv`,
`rounds/rNNN/heldout.jsonl`, `weights/vNNNNNN/`, …; `run_files` reads them) and lives in its own
module with `add_arguments(parser)` and `run(run_dir, args) -> exit code`:

| analysis | module | what it prints |
|---|---|---|
| `heldout-by-family` | `by_family` | the held-out curve per factory family; items lost/gained per round |
| `curve-repeats` | `repeats` | every version searched N times on the slice: mean, range, flips |
| `curve-budgets` | `budgets` | every version searched at several simulation budgets |
| `script-logprob-curve` | `script_logprob` | every version's log-prob of the slice's proof scripts |
| `value-fixed-goals` | `value_goals` | every version's value AUC on fixed rounds' held-out goals |
| `export-heldout-slice` | `heldout_slice` | the slice as `.v` files for `alphaprover eval` |
| `export-proof-records` | `proof_records` | the proofs the actors found, as a supervised JSONL dataset |
| `proofs-beyond` | `proofs_beyond` | the problems the loop proved that a baseline eval run did not, with scripts |
| `export-train-proofs` | `train_proofs` | the competition problems the loop proved, merged into a ledger that outlives the run |

Bad input (no such run, a missing round or version) raises `UsageError`: one line, exit 2. The
analyses read the run and never change a file it wrote; those that search (`curve-repeats`,
`curve-budgets`) add their own results files beside it and resume from them.
"""

from __future__ import annotations

import argparse
from importlib import import_module
from pathlib import Path

from alphaprover.config import UsageError

#: analysis name → (module under alphaprover.analyze, one-line help)
ANALYSES: dict[str, tuple[str, str]] = {
    "heldout-by-family": ("by_family", "the held-out curve by factory family, round by round"),
    "curve-repeats": ("repeats", "every published version searched N times on the slice: the curve's noise"),
    "curve-budgets": ("budgets", "every published version searched on the slice at several budgets"),
    "script-logprob-curve": ("script_logprob", "every version's log-prob of the slice's proof-script steps"),
    "value-fixed-goals": ("value_goals", "every version's value AUC on fixed rounds' held-out goals"),
    "export-heldout-slice": ("heldout_slice", "write the held-out slice as .v files for `alphaprover eval`"),
    "export-proof-records": ("proof_records", "write the proofs the actors found as a supervised JSONL dataset"),
    "proofs-beyond": ("proofs_beyond", "the benchmark problems the loop proved that a baseline eval run did not"),
    "export-train-proofs": ("train_proofs", "merge the train problems the loop proved, shortest scripts, into a ledger"),
}


def add_arguments(parser: argparse.ArgumentParser, parser_class: type[argparse.ArgumentParser]) -> None:
    """RUN_DIR, then one subcommand per analysis with its own options."""
    parser.add_argument("run_dir", type=Path, help="an expert-iteration run directory (alphaprover train run_dir=…)")
    analyses = parser.add_subparsers(dest="analysis", required=True, parser_class=parser_class,
                                     metavar="{" + ",".join(ANALYSES) + "}")
    for name, (module, help_text) in ANALYSES.items():
        sub = analyses.add_parser(name, help=help_text, description=help_text)
        import_module(f"alphaprover.analyze.{module}").add_arguments(sub)


def run_analysis(args: argparse.Namespace) -> int:
    """Run the analysis `args.analysis` on `args.run_dir`; UsageError when that is no directory."""
    if not args.run_dir.is_dir():
        raise UsageError(f"no run directory {args.run_dir}")
    module, _ = ANALYSES[args.analysis]
    return import_module(f"alphaprover.analyze.{module}").run(args.run_dir, args)
