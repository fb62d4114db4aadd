"""`checkpoint=hf:DIR` on real Coq: transformers checkpoints made here drive `solve` and `eval` end to end.

A random tiny model rarely proposes a good tactic; in mixed mode the automation list, priced by
the hf model's teacher-forced scores, still closes easy goals. So these tests check that the search
runs with the hf model's priors, proves an easy goal, and really called the model; and that our
exported checkpoint (`networks.export_hf`) proves the demo problems with the native path's proofs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hf_models import tiny_gpt2, tiny_t5

from alphaprover.cli import DEMO_PROBLEMS
from alphaprover.config import load_config, to_plain
from alphaprover.runtime import build_env, build_evaluator, build_settings
from lean_interface.problems.benchmarks import find_problem
from search.action_set import ActionMode, MixedEvaluator
from search.solve import solve

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
STATEMENT = "forall n : nat, n + 0 = n"


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "alphaprover.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("make, engine", [(tiny_t5, "hf-seq2seq-cpu"), (tiny_gpt2, "hf-causal-cpu")],
                         ids=["seq2seq", "causal"])
def test_solve_with_a_transformers_checkpoint(tmp_path: Path, make, engine: str) -> None:
    make(tmp_path / "model")
    done = cli("solve", STATEMENT, f"checkpoint=hf:{tmp_path / 'model'}", "--actions", "mixed", "--json",
               "hf_max_new_tokens=32", f"runs_dir={tmp_path}")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(done.stdout)
    assert record["proved"] and record["proof"] and engine in record["evaluator"]


def test_the_search_is_priced_by_the_hf_model(tmp_path: Path) -> None:
    tiny_t5(tmp_path / "model")
    cfg = to_plain(load_config("config", [f"checkpoint={tmp_path / 'model'}", "actions=mixed", "hf_max_new_tokens=32",
                                          f"runs_dir={tmp_path}"]))  # a plain DIR: found to be transformers
    method, settings, budget = build_settings(cfg)
    evaluator, _ = build_evaluator(cfg, method, ActionMode.MIXED)
    assert isinstance(evaluator, MixedEvaluator)
    from lean_interface.coq import theorem_from_proposition

    with build_env(cfg["backend"]) as env:
        outcome = solve(theorem_from_proposition(STATEMENT), env, evaluator, method, settings, budget)
    assert outcome.proved
    hf = evaluator.policy.hf  # type: ignore[attr-defined]
    assert hf.generate_calls >= 1 and hf.score_calls >= 1


def test_an_eval_label_names_a_transformers_checkpoint(tmp_path: Path) -> None:
    tiny_gpt2(tmp_path / "model")
    problems = tmp_path / "problems"
    problems.mkdir()
    (problems / "add_zero.v").write_text(f"Require Import Arith Lia.\nTheorem add_zero : {STATEMENT}.\nProof.\n"
                                         "Admitted.\n")
    out = tmp_path / "results.jsonl"
    label = f"mcts-mixed@hf:{tmp_path / 'model'}"
    done = cli("eval", str(problems), "--methods", label, "--out", str(out), f"runs_dir={tmp_path}")
    assert done.returncode == 0, done.stdout + done.stderr
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["method"] == label and record["status"] == "proved", record


def test_the_exported_checkpoint_proves_the_demo_problems_as_the_native_path(tmp_path: Path) -> None:
    from networks.export_hf import export_hf

    exported = export_hf(ROOT / "checkpoints" / "alphaprover-coq-small", tmp_path / "exported")
    scripts: dict[str, list[tuple[str | None, int]]] = {}
    for name, overrides in (("native", ["engine=torch"]), ("hf", [f"checkpoint=hf:{exported}"])):
        cfg = to_plain(load_config("config", [*overrides, f"runs_dir={tmp_path}"]))
        method, settings, budget = build_settings(cfg)
        evaluator, description = build_evaluator(cfg, method)
        assert ("hf-seq2seq" in description) == (name == "hf")
        with build_env(cfg["backend"]) as env:
            outcomes = [solve(find_problem(p).theorem, env, evaluator, method, settings, budget) for p in DEMO_PROBLEMS]
        assert all(o.proved for o in outcomes), name
        scripts[name] = [(o.script, o.stats.prover_calls) for o in outcomes]
    assert scripts["hf"] == scripts["native"]
