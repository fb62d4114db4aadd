"""`checkpoint=hf:DIR`: transformers checkpoints made here (no download) behind the search's `Evaluator`.

A tiny random T5 with `ByT5Tokenizer` (ReProver's shape) and a tiny random GPT-2 with a locally
trained BPE tokenizer (a causal step prover's shape), each written with `save_pretrained`:
teacher-forced scores against a plain forward computed here, canonical tactic forms, the cache,
batching (a causal batch is left-padded: a goal's answer must not depend on its batch-mates),
stop sequences, the neutral value, refusals of bad directories (one line, exit 2), our exported
checkpoint against the native path (the same tactics, log-probs and values), and the Lean backend
on a recorded REPL transcript (`tests/fixture_repl.py`) searched by a fitted tiny model.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch
from fixture_repl import strict_recording
from hf_models import fit, tiny_gpt2, tiny_t5

from alphaprover.cli import main
from alphaprover.config import load_config, to_plain
from alphaprover.runtime import build_env, build_evaluator, build_settings
from lean_interface.api import Theorem
from lean_interface.lean_repl.env import proof_command
from networks.hf_dir import hf_problem, is_hf_checkpoint, split_hf
from networks.hf_evaluator import HFEvaluator
from networks.hf_policy import cut_at_stop, prompt_template, unescape
from search.action_set import ActionMode, MixedEvaluator
from search.evaluator import EvalRequest
from search.solve import Method, solve

SHIPPED = Path(__file__).resolve().parents[1] / "checkpoints" / "alphaprover-coq-small"
STAND_IN = str(Path(__file__).with_name("fixture_repl.py"))
GOAL = "n : nat\n⊢ n + 0 = n"


@pytest.fixture(scope="module")
def t5_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("t5")
    tiny_t5(directory)
    return directory


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("gpt2")
    tiny_gpt2(directory)
    return directory


def _reference_seq2seq(directory: Path, goal: str, tactic: str) -> float:
    """log P(tactic, EOS | goal) by a plain forward of the model as transformers loads it."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    model, tokenizer = AutoModelForSeq2SeqLM.from_pretrained(directory), AutoTokenizer.from_pretrained(directory)
    labels = torch.tensor([tokenizer(tactic, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]])
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([tokenizer(goal)["input_ids"]]), labels=labels).logits
    return float(logits.log_softmax(-1).gather(-1, labels.unsqueeze(-1)).sum())


def _reference_causal(directory: Path, prompt: str, tactic: str) -> float:
    """log P(tactic, EOS | prompt) by one plain forward over prompt + tactic."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model, tokenizer = AutoModelForCausalLM.from_pretrained(directory), AutoTokenizer.from_pretrained(directory)
    context = tokenizer(prompt)["input_ids"]
    target = tokenizer(tactic, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    ids = torch.tensor([context + target])
    with torch.no_grad():
        logprobs = model(input_ids=ids).logits[0, :-1].log_softmax(-1)
    return float(sum(logprobs[len(context) - 1 + i, token] for i, token in enumerate(target)))


# ---- small pieces -------------------------------------------------------------------------------
def test_prompts_stops_and_escapes() -> None:
    assert prompt_template("auto", "seq2seq") == "{goal}"
    assert prompt_template("auto", "causal") == "[GOAL]{goal}[PROOFSTEP]"
    assert prompt_template("proofstep", "seq2seq") == "[GOAL]{goal}[PROOFSTEP]"
    assert prompt_template("State:\\n{goal}\\nTactic:", "causal") == "State:\n{goal}\nTactic:"
    with pytest.raises(ValueError, match="containing"):
        prompt_template("no placeholder", "causal")
    assert unescape("a\\nb\\tc\\\\n") == "a\nb\tc\\n"
    assert cut_at_stop("simp\n[GOAL] x", ["[GOAL]", "\n"]) == ("simp", True)
    assert cut_at_stop("simp", ["\n"]) == ("simp", False)


def test_directories_are_told_apart_by_their_files(tmp_path: Path, t5_dir: Path) -> None:
    assert split_hf("hf:/m/x") == (True, "/m/x") and split_hf("/m/x") == (False, "/m/x")
    assert is_hf_checkpoint(t5_dir)
    assert "names no model_type" in str(hf_problem(SHIPPED))  # our own config.json: the native path
    assert "no such directory" in str(hf_problem(tmp_path / "missing"))
    assert "no readable config.json" in str(hf_problem(tmp_path))
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "t5"}))
    assert "no weights" in str(hf_problem(tmp_path))


# ---- seq2seq: ByT5 -------------------------------------------------------------------------------
def test_seq2seq_candidates_are_canonical_and_scored_teacher_forced(t5_dir: Path) -> None:
    evaluator = HFEvaluator.from_directory(t5_dir, max_new_tokens=24, device="cpu")
    [answer] = evaluator.evaluate([EvalRequest(GOAL, 4, candidates=("lia", "reflexivity."))])
    priors = dict(answer.tactics)
    assert {"lia.", "reflexivity."} <= set(priors) and "lia" not in priors  # Coq's canonical form
    assert priors["lia."] == pytest.approx(_reference_seq2seq(t5_dir, GOAL, "lia."), abs=1e-4)
    batch = evaluator.hf.batch([GOAL])
    assert evaluator.hf.shared_scorer  # a T5: the shared-encoder scorer; the plain forward agrees
    fast = evaluator.hf.score(batch, [["lia.", "reflexivity."]])
    evaluator.hf.shared_scorer = False
    assert evaluator.hf.score(batch, [["lia.", "reflexivity."]]) == [pytest.approx(fast[0], abs=1e-4)]
    assert all(logprob <= 0 for logprob in priors.values())
    assert [p for _, p in answer.tactics] == sorted(priors.values(), reverse=True)
    assert answer.value == -1.0 and evaluator.value_source == "neutral"  # no value head: −(goals)
    assert evaluator.engine == "hf-seq2seq-cpu"


def test_requests_are_batched_cached_and_a_glance_costs_no_model_call(t5_dir: Path) -> None:
    evaluator = HFEvaluator.from_directory(t5_dir, max_new_tokens=16, device="cpu")
    requests = [EvalRequest(GOAL, 4, candidates=("auto",)), EvalRequest("⊢ True\n⊢ False", 4, candidates=("auto",))]
    first = evaluator.evaluate(requests)
    assert evaluator.hf.generate_calls == 1 and evaluator.network_calls == 1  # two goals, one batch
    assert first[1].value == -2.0  # two goals in the node
    assert evaluator.evaluate(requests) == first and evaluator.cache_hits == 2
    assert evaluator.hf.generate_calls == 1
    mixed = MixedEvaluator(evaluator, lambda goal: ["lia", "auto"])
    [glance] = mixed.evaluate([EvalRequest("⊢ 1 = 1", 8, glance=True)])
    assert glance.glance and evaluator.hf.generate_calls == 1 and evaluator.hf.score_calls == 1


# ---- causal: GPT-2 with a tokenizer trained here ---------------------------------------------------
def test_causal_scores_match_a_plain_forward_whatever_the_batch(gpt2_dir: Path) -> None:
    evaluator = HFEvaluator.from_directory(gpt2_dir, max_new_tokens=16, device="cpu", language="lean",
                                           decoding="beam")
    long_goal = "x y z : Nat\nh : x + y + z = 0\n" + GOAL.replace("nat", "Nat")
    alone = evaluator.evaluate([EvalRequest(GOAL, 1, candidates=("simp", "omega"))])[0]
    evaluator._cache.clear()
    together = evaluator.evaluate([EvalRequest(long_goal, 1, candidates=("simp",)),
                                   EvalRequest(GOAL, 1, candidates=("simp", "omega"))])[1]
    assert dict(alone.tactics) == pytest.approx(dict(together.tactics), abs=1e-4)  # left padding is harmless
    assert dict(alone.tactics)["simp"] == pytest.approx(
        _reference_causal(gpt2_dir, f"[GOAL]{GOAL}[PROOFSTEP]", "simp"), abs=1e-4)
    assert evaluator.hf.stops == ("\n",) and evaluator.engine == "hf-causal-cpu"


def test_a_causal_tactic_is_cut_at_the_first_stop_sequence(tmp_path: Path) -> None:
    model, tokenizer = tiny_gpt2(tmp_path)
    fit(tmp_path, model, tokenizer, [(GOAL, "intros n\nsimp")])
    greedy = HFEvaluator.from_directory(tmp_path, device="cpu", language="lean", decoding="beam")
    assert [t for t, _ in greedy.evaluate([EvalRequest(GOAL, 1)])[0].tactics] == ["intros n"]
    custom = HFEvaluator.from_directory(tmp_path, device="cpu", language="lean", decoding="beam", stop=["s n"])
    assert [t for t, _ in custom.evaluate([EvalRequest(GOAL, 1)])[0].tactics] == ["intro"]


# ---- our checkpoint as transformers sees it ----------------------------------------------------------
@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from networks.export_hf import export_hf

    return export_hf(SHIPPED, tmp_path_factory.mktemp("exported"))


def test_the_export_loads_with_plain_transformers(exported: Path) -> None:
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from networks.tokenizer import ProofTokenizer

    assert type(AutoModelForSeq2SeqLM.from_pretrained(exported)).__name__ == "T5ForConditionalGeneration"
    ours = ProofTokenizer.load(SHIPPED)
    theirs = AutoTokenizer.from_pretrained(exported)
    assert theirs(GOAL)["input_ids"] == ours.encode_goal(GOAL, 160)
    assert theirs.decode(ours.encode_tactic("rewrite Nat.add_0_r.", 48), skip_special_tokens=True) \
        == "rewrite Nat.add_0_r."
    assert (exported / "value_head.safetensors").is_file()


@pytest.mark.parametrize("decoding", ["beam", "sample"])
def test_the_export_round_trips_to_the_native_answers(exported: Path, decoding: str) -> None:
    from networks.evaluator import NetworkEvaluator

    requests = [EvalRequest(GOAL, 8, candidates=("lia", "auto.")),
                EvalRequest("x : R\nh : x > 0\n⊢ x * x > 0", 8, candidates=("nra",))]
    native = NetworkEvaluator.from_checkpoint(SHIPPED, engine="torch", decoding=decoding, seed=3)
    hf = HFEvaluator.from_directory(exported, device="cpu", decoding=decoding, seed=3)
    assert hf.value_source == "value head"
    for mine, theirs in zip(hf.evaluate(requests), native.evaluate(requests)):
        assert dict(mine.tactics) == pytest.approx(dict(theirs.tactics), abs=1e-4)
        assert mine.value == pytest.approx(theirs.value, abs=1e-5)


def test_the_export_refuses_what_is_no_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from networks.export_hf import main as export_main

    assert export_main([str(tmp_path / "nothing"), str(tmp_path / "out")]) == 2
    assert "is not a checkpoint directory" in capsys.readouterr().err


# ---- bad directories: one line, exit 2 ---------------------------------------------------------------
def test_bad_directories_are_refused_in_one_line(tmp_path: Path, t5_dir: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"model_type": "t5", "architectures": ["T5Model"]}))
    (broken / "model.safetensors").write_bytes(b"not safetensors")
    runs = f"runs_dir={tmp_path}"
    cases = (
        (["solve", "True", f"checkpoint=hf:{tmp_path / 'missing'}", runs], "no transformers checkpoint at"),
        (["solve", "True", f"checkpoint=hf:{tmp_path}", runs], "no readable config.json"),
        (["solve", "True", f"--checkpoint={tmp_path}", runs], "no checkpoint at"),
        (["solve", "True", f"checkpoint=hf:{broken}", runs], "cannot load the transformers checkpoint"),
        (["solve", "True", f"checkpoint=hf:{t5_dir}", "hf_prompt=nothing", runs], "hf_prompt must be auto"),
        (["solve", "True", f"checkpoint=hf:{t5_dir}", "device=tpu", runs], "device must be auto"),
        (["eval", "minif2f-rocq-valid", "--methods", f"mcts-mixed@hf:{tmp_path / 'missing'}", runs],
         "no checkpoint at hf:"),
    )
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith("alphaprover: error: ") and message in err and "\n" not in err, (argv, err)


# ---- the Lean backend on a recorded REPL session ----------------------------------------------------
@pytest.mark.parametrize("make", [tiny_t5, tiny_gpt2], ids=["seq2seq", "causal"])
def test_a_fitted_model_searches_a_recorded_lean_session(tmp_path: Path, make) -> None:
    """`readme` records `def f (x : Unit) : Nat` proved by `apply Int.natAbs` then `exact -37`. A
    tiny model fitted on those two steps proposes them greedily (K=1, beam); MCTS through the
    Lean REPL client sends exactly the recorded requests and finds the proof. The one request the
    recording cannot answer is `verify`'s: the found proof, sent whole to a fresh REPL (the Lean
    check itself needs a Lean toolchain), which is what is asserted."""
    model, tokenizer = make(tmp_path / "model")
    steps = [("x : Unit\n⊢ Nat", "apply Int.natAbs"), ("x : Unit\n⊢ Int", "exact -37")]
    fit(tmp_path / "model", model, tokenizer, steps)
    cfg = to_plain(load_config("config", [
        f"checkpoint=hf:{tmp_path / 'model'}", "actions=network", "decoding=beam", "mcts.num_samples=1",
        "budget.max_simulations=8", "device=cpu", "backend=lean_repl", f"backend.repl_path={sys.executable}",
        f"backend.repl_args=[{STAND_IN},readme]", f"runs_dir={tmp_path}"]))
    method, settings, budget = build_settings(cfg)
    evaluator, description = build_evaluator(cfg, method, ActionMode.NETWORK)
    assert isinstance(evaluator, HFEvaluator) and "hf-" in description
    theorem = Theorem("f", "", "def f (x : Unit) : Nat", "lean")
    log = tmp_path / "violations.log"
    with pytest.raises(AssertionError):
        with strict_recording(log):
            with build_env(cfg["backend"]) as env:
                outcome = solve(theorem, env, evaluator, Method.MCTS, settings, budget)
    assert outcome.stats.prover_calls == 2 and evaluator.hf.generate_calls == 2
    [line] = log.read_text(encoding="utf-8").splitlines()
    prefix = "stand-in readme: request 0 is not in the recording: "
    assert line.startswith(prefix)
    assert json.loads(line[len(prefix):]) == {"cmd": proof_command(theorem.statement, "apply Int.natAbs\nexact -37")}
    assert not outcome.proved  # Lean's own verdict is what the recording lacks
