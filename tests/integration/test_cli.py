"""The command line end to end on real Coq: solve, play, eval (resumable), exit codes, the HTML view."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: str | None = None, cwd: Path | None = None, timeout: float = 300):
    return subprocess.run([sys.executable, "-m", "alphaprover.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, cwd=cwd or ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_solve_prints_a_proof_that_coqc_accepts(tmp_path: Path) -> None:
    html = tmp_path / "tree.html"
    done = cli("solve", "forall n m : nat, n + m = m + n", "--no-network", "--json", "--tree-html", str(html),
               f"runs_dir={tmp_path}/runs")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["proved"] and record["proof"]
    proof_file = tmp_path / "Check.v"
    proof_file.write_text("Require Import Arith Lia.\nTheorem t : forall n m : nat, n + m = m + n.\nProof.\n"
                          f"{record['proof']}\nQed.\n")
    assert subprocess.run(["coqc", proof_file.name], cwd=tmp_path, capture_output=True).returncode == 0
    assert html.read_text().startswith("<!DOCTYPE html>")
    assert list((tmp_path / "runs").glob("solve-*/config.yaml"))


def test_solve_needs_an_and_split_and_induction(tmp_path: Path) -> None:
    done = cli("solve", "forall n : nat, n * 0 = 0 /\\ (forall b : bool, negb (negb b) = b)", "--no-network",
               "--header", "Require Import Arith Bool.", f"runs_dir={tmp_path}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PROVED" in done.stdout and "{" in done.stdout  # an AND split rendered as focus blocks


def test_not_proved_is_exit_1_and_bad_input_is_exit_2(tmp_path: Path) -> None:
    """Each bad input fails with exit 2 and one line naming *its own* fault (a case that failed for
    another reason, say an override the command does not know, would not pass)."""
    unproved = cli("solve", "forall n : nat, n = n + 1", "--no-network", "--simulations", "20", f"runs_dir={tmp_path}")
    assert unproved.returncode == 1 and "NOT PROVED" in unproved.stdout
    runs, train = f"runs_dir={tmp_path}", f"run_dir={tmp_path / 'train'}"
    cases = (
        (["solve", "forall x : nonsense_type, x = x", "--no-network", runs], "does not elaborate"),
        (["solve", "True", "--method", "dfs", runs], "unknown method 'dfs'"),
        (["solve", "True", "--bogus-flag", runs], "unrecognized arguments: --bogus-flag"),
        (["solve", "True", "mcts.no_such_constant=1", runs], "Could not override 'mcts.no_such_constant'"),
        (["solve", "missing.v", runs], "file not found: missing.v"),
        (["solve", "True", "--checkpoint", str(tmp_path / "nothing"), runs], "no checkpoint at"),
        (["eval", str(tmp_path / "no_such_dir"), runs], "is not a bundled name"),
        (["eval", "minif2f-rocq-valid", "--methods", "magic", runs], "unknown method 'magic'"),
        (["eval", "minif2f-rocq-valid", "--methods", "portfolio-fixed", runs], "portfolio uses no evaluator"),
        (["eval", "minif2f-rocq-valid", "--methods", "mcts-fixed+lazy", runs], "unknown expansion 'lazy'"),
        (["eval", "minif2f-rocq-valid", "--methods", "bfs-fixed+cost", runs], "only mcts has an expansion"),
        (["eval", "minif2f-rocq-valid", "mcts.expansion=lazy", runs], "unknown expansion 'lazy'"),
        (["eval", "minif2f-rocq-valid", "budget.max_seconds=-1", runs], "budgets must be non-negative"),
        (["eval", "minif2f-rocq-valid", "--methods", f"mcts-mixed@{tmp_path / 'nothing'}", runs], "no checkpoint at"),
        (["eval", "minif2f-rocq-valid", "--limit", "1", "decoding=greedy", runs], "decoding must be sample, beam or both"),
        (["eval", "minif2f-rocq-valid", "--limit", "1", "temperature=0", runs], "temperature must be > 0"),
        (["train", "loop=selfplay", "sources=[minif2f-rocq-dev]", train], "dev subset is for measuring only"),
        (["train", "sources=[minif2f-rocq-dev]", train], "needs a factory:<jsonl> source"),
        (["train", "actors=-1", train], "actors must be >= 0"),
        (["train", "learner.engine=magic", train], "learner engine must be one of"),
        (["train", "loop=forever", train], "loop must be one of"),
        (["train", "iteration.problems_per_round=0", train], "problems_per_round and heldout_problems >= 1"),
        (["train", "temperature=0", train], "temperature must be > 0"),
        (["train", "decoding=greedy", train], "decoding must be sample, beam or both"),
        (["train", "heldout_decoding=greedy", train], "decoding must be sample, beam or both"),
        (["train", "iteration.subgoal_sources=minif2f-rocq-train", train], "subgoal_sources must be a list"),
        (["train", "iteration.subgoals_per_attempt=0", train], "subgoals_per_attempt must be >= 1"),
        (["train", f"sources=[factory:{tmp_path / 'no_factory.jsonl'}]", train], "no_factory.jsonl not found"),
        (["solve", "True", "temperature_step=-1", runs], "temperature_step >= 0"),
        (["solve", "True", "decoding=greedy", runs], "decoding must be sample, beam or both"),
        (["play", "forall x : nonsense_type, x = x", runs], "does not elaborate"),
        (["solve", "True", "--backend", "lean_repl", runs], "repl_path"),
    )
    for args, fault in cases:
        done = cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("alphaprover: error:"), (args, done.stderr)
        assert fault in lines[0], (args, lines[0])


def test_play_session_scripted_through_stdin(tmp_path: Path) -> None:
    script = "intros n m.\ninduction n.\nsimpl.\nundo\nlia.\nbogus_tactic.\nsimpl; rewrite IHn; lia\ngoals\nqed\n"
    done = cli("play", "--backend", "coq", "forall n m : nat, n + m = m + n", f"runs_dir={tmp_path}", stdin=script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "error:" in done.stdout  # the bogus tactic
    assert "verified: user_theorem" in done.stdout
    assert "{ lia. }\n{ simpl; rewrite IHn; lia. }" in done.stdout


def test_eval_is_resumable_and_writes_table_and_plot(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    args = ("eval", "minif2f-rocq-valid", "--methods", "portfolio,mcts-fixed",
            "--problems", "mathd_numbertheory_101,mathd_algebra_190,amc12a_2019_p21,mathd_algebra_10",
            "--seconds", "4", "--out", str(out), f"runs_dir={tmp_path}/runs")
    proc = subprocess.Popen([sys.executable, "-m", "alphaprover.cli", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 2):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)  # killed midway
    proc.wait()
    before = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    assert 2 <= len(before) < 8
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    after = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    assert after[: len(before)] == before  # nothing lost
    keys = [(r["method"], r["problem"]) for r in after]
    assert len(keys) == len(set(keys)) == 8  # nothing redone
    statuses = {(r["method"], r["problem"]): r["status"] for r in after}
    assert statuses[("portfolio", "amc12a_2019_p21")] == "bad_statement"
    assert statuses[("portfolio", "mathd_numbertheory_101")] == "proved"
    assert all(r["proof"] for r in after if r["status"] == "proved")
    searched = [r for r in after if r["method"] == "mcts-fixed" and r["status"] in ("proved", "failed")]
    assert searched and all(r["max_depth"] >= 0 and 0 < r["prover_seconds"] <= r["seconds"] for r in searched)
    assert max(r["max_depth"] for r in searched) >= 1  # a search's depth is recorded, not left at 0
    assert "| portfolio |" in out.with_suffix(".md").read_text()
    assert out.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed (make setup installs it)")
def test_tree_html_opens_in_headless_chromium(tmp_path: Path) -> None:
    html = tmp_path / "tree.html"
    done = cli("solve", "forall n : nat, n * 0 = 0 /\\ (forall b : bool, negb (negb b) = b)", "--no-network",
               "--header", "Require Import Arith Bool.", "--tree-html", str(html), f"runs_dir={tmp_path}")
    assert done.returncode == 0
    page = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0", "--dump-dom",
         html.as_uri()], capture_output=True, text=True, timeout=120)
    assert page.returncode == 0
    dom = page.stdout
    assert '<details id="n0" class="proved" open="">' in dom
    assert dom.count("<details") >= 5 and 'class="edge proof"' in dom
    console_errors = [line for line in page.stderr.splitlines() if "CONSOLE" in line and "Uncaught" in line]
    assert not console_errors


def test_eval_with_ray_workers_gives_the_same_records(tmp_path: Path) -> None:
    """`--workers 2` runs the same plain runner inside Ray actors (local Ray, loopback only)."""
    out = tmp_path / "ray.jsonl"
    done = cli("eval", "minif2f-rocq-valid", "--methods", "portfolio", "--workers", "2",
               "--problems", "mathd_numbertheory_101,mathd_algebra_190,amc12a_2019_p21", "--seconds", "5",
               "--out", str(out), f"runs_dir={tmp_path}/runs")
    assert done.returncode == 0, done.stderr
    statuses = {json.loads(line)["problem"]: json.loads(line)["status"] for line in out.read_text().splitlines()}
    assert statuses == {"mathd_numbertheory_101": "proved", "mathd_algebra_190": "proved",
                        "amc12a_2019_p21": "bad_statement"}
