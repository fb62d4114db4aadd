"""The network: tokenizer, overfitting a tiny dataset, sampling, values, checkpoints, evaluator cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from networks.checkpoint import load_checkpoint, save_checkpoint
from networks.dataset import Example, batches, encode_examples, is_ssreflect_tactic, read_example_files, reweight
from networks.evaluator import NetworkEvaluator
from networks.model import ProverModel, ProverModelConfig
from networks.sampling import evaluate_goals, score_tactics, score_token_ids
from networks.tokenizer import ProofTokenizer, hypothesis_names
from networks.train import PretrainConfig, pretrain, steps_that_fit
from search.evaluator import EvalRequest

EXAMPLES = [
    Example("n : nat\n⊢ n + 0 = n", "lia.", 1),
    Example("⊢ forall n : nat, n + 0 = n", "intros n.", 2),
    Example("P, Q : Prop\nHP : P\nHQ : Q\n⊢ P /\\ Q", "split.", 2),
    Example("P : Prop\nHP : P\n⊢ P", "exact HP.", 1),
    Example("l : list nat\n⊢ rev (rev l) = l", "induction l as [|x xs IH].", 3),
    Example("x : R\n⊢ x + 1 > x", "lra.", 1),
    Example("b : bool\n⊢ negb (negb b) = b", "destruct b; reflexivity.", 1),
    Example("n, m : nat\nIHn : n + m = m + n\n⊢ S n + m = m + S n", "simpl; rewrite IHn; lia.", 1),
]
TINY = ProverModelConfig(d_model=64, d_ff=128, num_heads=2, encoder_layers=1, decoder_layers=1, dropout=0.0,
                         max_goal_tokens=64, max_tactic_tokens=32)


def _tokenizer() -> ProofTokenizer:
    return ProofTokenizer.train([t for e in EXAMPLES for t in (e.goal, e.tactic)] * 4, vocab_size=300)


def _trained(steps: int = 150) -> tuple[ProverModel, ProofTokenizer, list[float]]:
    torch.manual_seed(0)
    tokenizer = _tokenizer()
    model = ProverModel(ProverModelConfig.from_dict({**TINY.to_dict(), "vocab_size": tokenizer.vocab_size}))
    encoded = encode_examples(EXAMPLES, tokenizer, TINY.max_goal_tokens, TINY.max_tactic_tokens)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    model.train()
    for step in range(steps):
        for batch in batches(encoded, 8, tokenizer.pad_id, seed=step):
            out = model(batch["input_ids"], batch["attention_mask"], batch["labels"], batch["steps"], 0.1)
            optimizer.zero_grad()
            out["loss"].backward()
            optimizer.step()
            losses.append(out["loss"].item())
    return model.eval(), tokenizer, losses


@pytest.fixture(scope="module")
def trained():
    return _trained()


def test_tokenizer_round_trips_and_keeps_the_target() -> None:
    tokenizer = _tokenizer()
    text = "simpl; rewrite IHn; lia."
    assert tokenizer.decode(tokenizer.encode_tactic(text, 64)) == text
    long_goal = "\n".join(f"H{i} : P{i} -> Q{i} /\\ R{i}" for i in range(60)) + "\n⊢ final_target x"
    ids = tokenizer.encode_goal(long_goal, 40)
    decoded = tokenizer.decode(ids[:-1])
    assert len(ids) <= 40 and decoded.endswith("⊢ final_target x") and "H59" in decoded and "H0 :" not in decoded
    kept = tokenizer.decode(tokenizer.encode_goal(long_goal, 80, keep={"H3", "apply"})[:-1])
    assert "H3 : P3" in kept and "H59" in kept and kept.endswith("⊢ final_target x")  # the named one, then the nearest
    assert kept.index("H3 :") < kept.index("H59 :")  # lines stay in the goal's order
    assert hypothesis_names("a, b : R") == {"a", "b"} and hypothesis_names("⊢ x = y") == set()


LEMMA_TEXTS = ["apply Rplus_le_compat_l.", "rewrite Nat.add_comm.", "apply Rmult_le_compat_r; lra.",
               "H : 0 <= x\n⊢ Rplus_le_compat_l (x * x) 0 = Nat.add_comm n' 0"] * 20


@pytest.mark.parametrize("whole", [True, False])
def test_tokenizer_keeps_identifiers_whole_and_still_round_trips(whole: bool, tmp_path: Path) -> None:
    tokenizer = ProofTokenizer.train(LEMMA_TEXTS, vocab_size=400, whole_identifiers=whole)
    pieces = tokenizer.pieces("apply Rplus_le_compat_l.")
    if whole:  # the lemma, with its leading space, is learned as ONE token; the tactic's dot stays apart
        assert pieces == ["apply", "ĠRplus_le_compat_l", "."]
        assert tokenizer.pieces("rewrite Nat.add_comm.")[1:] == ["ĠNat.add_comm", "."]
    else:  # GPT-2's split cuts at every underscore, however often the name occurs
        assert "_" in pieces and len(pieces) >= 8
    for text in [*LEMMA_TEXTS[:4], "unseen_name'' .. ⊢ ∀ x, x ≠ 0", "  two  spaces\tand tab"]:
        assert tokenizer.decode(tokenizer.encode_tactic(text, 999)) == text.strip()
    # the CTranslate2 conversion wraps tokenizer.json in a HF fast tokenizer: it must load and agree
    from transformers import PreTrainedTokenizerFast
    tokenizer.save(tmp_path)
    wrapped = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))
    text = LEMMA_TEXTS[3]
    assert wrapped(text, add_special_tokens=False)["input_ids"] == tokenizer.encode_tactic(text, 999)[:-1]
    assert ProofTokenizer.load(tmp_path).pieces(text) == tokenizer.pieces(text)


NUMBER_TEXTS = ["f : R -> R\nh1 : f 6 = 20\n⊢ f 14 = 5", "pose proof (h0 6) as h2.", "exists (-863).",
                "replace ((6 + 4) + 4) with 14 in h3 by ring.", "⊢ -9493 = -863 * 11", "rewrite Rplus_0_r."] * 30


def test_split_digits_makes_a_number_the_same_tokens_in_every_context() -> None:
    merged = ProofTokenizer.train(NUMBER_TEXTS, vocab_size=400)
    digits = ProofTokenizer.train(NUMBER_TEXTS, vocab_size=400, split_digits=True)
    # without the split, BPE learns frequent numbers as tokens, so `20` in `= 20` is not `2`, `0`
    assert "Ġ20" in merged.pieces("h1 : f 6 = 20") or "20" in merged.pieces("h1 : f 6 = 20")
    for text, number in [("h1 : f 6 = 20", "20"), ("exists (-863).", "863"), ("⊢ -9493 = -863 * 11", "863"),
                         ("(6 + 4) + 4) with 14", "14")]:
        pieces = digits.pieces(text)
        digit_pieces = [p for p in pieces if p.isdigit()]
        assert all(len(p) == 1 for p in digit_pieces) and number in "".join(digit_pieces), pieces
        assert not any(p.startswith("Ġ") and p[1:].isdigit() for p in pieces), pieces  # no space glued to a digit
    # the digits of 863 are the same ids in the goal and in the tactic that copies it
    goal_ids = digits.encode_tactic("⊢ -9493 = -863 * 11", 99)
    tactic_ids = digits.encode_tactic("exists (-863).", 99)
    eight_six_three = [digits.encode_tactic(d, 9)[0] for d in "863"]
    assert any(goal_ids[i:i + 3] == eight_six_three for i in range(len(goal_ids)))
    assert any(tactic_ids[i:i + 3] == eight_six_three for i in range(len(tactic_ids)))
    assert digits.pieces("rewrite Rplus_0_r.")[1] == "ĠRplus_0_r"  # digits inside identifiers stay there
    for text in NUMBER_TEXTS[:6]:
        assert digits.decode(digits.encode_tactic(text, 999)) == text
    with pytest.raises(ValueError, match="whole_identifiers"):
        ProofTokenizer.train(NUMBER_TEXTS, vocab_size=400, whole_identifiers=False, split_digits=True)


def test_tiny_model_overfits_tiny_data(trained) -> None:
    _, _, losses = trained
    assert losses[-1] < losses[0] / 5


def test_samples_are_distinct_with_logprobs_and_values_in_range(trained) -> None:
    model, tokenizer, _ = trained
    out = evaluate_goals(model, tokenizer, [e.goal for e in EXAMPLES], num_samples=6, temperature=1.0, seed=1)
    for example, tactics, value in zip(EXAMPLES, out.tactics, out.values):
        names = [t for t, _ in tactics]
        assert len(names) == len(set(names)) and names
        assert all(lp <= 0 and lp == lp for _, lp in tactics)
        assert [lp for _, lp in tactics] == sorted((lp for _, lp in tactics), reverse=True)
        assert -64 <= value <= -1
    top = {e.tactic: out.tactics[i][0][0] for i, e in enumerate(EXAMPLES)}
    assert sum(top[t] == t for t in top) >= 7  # memorised


def test_save_load_gives_identical_samples(trained, tmp_path: Path) -> None:
    model, tokenizer, _ = trained
    save_checkpoint(tmp_path / "ckpt", model, tokenizer, {"note": "test"})
    loaded, loaded_tok, meta = load_checkpoint(tmp_path / "ckpt")
    goals = [e.goal for e in EXAMPLES[:4]]
    a = evaluate_goals(model, tokenizer, goals, 5, seed=7)
    b = evaluate_goals(loaded, loaded_tok, goals, 5, seed=7)
    assert a.tactics == b.tactics and a.values == pytest.approx(b.values)
    assert meta == {"note": "test"}
    assert json.loads((tmp_path / "ckpt" / "config.json").read_text())["model"]["d_model"] == 64
    with pytest.raises(ValueError, match="not a checkpoint"):
        load_checkpoint(tmp_path / "missing")


def test_evaluator_caches_and_rounds_differ(trained) -> None:
    model, tokenizer, _ = trained
    evaluator = NetworkEvaluator(model, tokenizer, temperature=1.5)  # hotter, the tiny model's samples are bytes noise
    request = EvalRequest(EXAMPLES[0].goal, 8, 0)
    first = evaluator.evaluate([request, EvalRequest(EXAMPLES[1].goal, 8, 0)])
    assert evaluator.network_calls == 1
    again = evaluator.evaluate([request])
    assert again[0] == first[0] and evaluator.network_calls == 1 and evaluator.cache_hits == 1
    later = evaluator.evaluate([EvalRequest(EXAMPLES[0].goal, 8, 1)])
    assert evaluator.network_calls == 2
    assert later[0].tactics and first[0].tactics
    assert set(t for t, _ in later[0].tactics) != set(t for t, _ in first[0].tactics)


def test_later_rounds_sample_hotter_with_a_temperature_step_and_keep_untempered_logprobs(trained) -> None:
    model, tokenizer, _ = trained
    goals = [e.goal for e in EXAMPLES]
    flat = NetworkEvaluator(model, tokenizer, temperature=1.0)
    rising = NetworkEvaluator(model, tokenizer, temperature=1.0, temperature_step=1.0)
    assert [rising.round_temperature(r) for r in range(3)] == [1.0, 2.0, 3.0]
    assert flat.round_temperature(5) == 1.0
    requests = [EvalRequest(goal, 16, 3) for goal in goals]
    hot = NetworkEvaluator(model, tokenizer, temperature=4.0)  # what round 3 of `rising` should sample at
    assert rising.evaluate(requests) == hot.evaluate(requests)
    assert rising.evaluate(requests) != flat.evaluate(requests)
    first = rising.evaluate([EvalRequest(goal, 16, 0) for goal in goals])
    for early, late in zip(first, rising.evaluate(requests)):
        shared = set(dict(early.tactics)) & set(dict(late.tactics))
        for tactic in shared:  # a log-prob is the model's, whatever temperature sampled it
            assert dict(early.tactics)[tactic] == pytest.approx(dict(late.tactics)[tactic], abs=1e-4)
    with pytest.raises(ValueError):
        NetworkEvaluator(model, tokenizer, temperature_step=-0.5)


def test_score_tactics_is_the_sampled_logprob_and_penalises_overlong(trained) -> None:
    model, tokenizer, _ = trained
    goals = [e.goal for e in EXAMPLES]
    out = evaluate_goals(model, tokenizer, goals, num_samples=6, seed=2)
    scored = score_tactics(model, tokenizer, goals, [[e.tactic] for e in EXAMPLES])
    matched = 0
    for example, tactics, (teacher_forced,) in zip(EXAMPLES, out.tactics, scored):
        sampled = dict(tactics).get(example.tactic)
        if sampled is not None:  # memorised tactics are sampled along their own (trained) tokenization
            matched += 1
            assert sampled == pytest.approx(teacher_forced, abs=1e-4)
    assert matched >= 7
    long_tactic = "simpl; " * 40 + "lia."
    length = len(tokenizer.encode_tactic(long_tactic, 10_000))
    assert length > model.config.max_tactic_tokens
    assert score_tactics(model, tokenizer, goals[:1], [[long_tactic]]) == [[-1e3 - length]]
    ids = [tokenizer.encode_tactic("lia.", 99)]
    assert score_token_ids(model, tokenizer, goals[:1], [ids])[0][0] == pytest.approx(
        score_tactics(model, tokenizer, goals[:1], [["lia."]])[0][0], abs=1e-5)


def test_shared_encoder_scorer_matches_the_reference(trained) -> None:
    model, tokenizer, _ = trained
    goals = [e.goal for e in EXAMPLES]
    candidates = [[e.tactic for e in EXAMPLES[i:] + EXAMPLES[:i]][: 1 + i] for i in range(len(goals))]
    reference = score_tactics(model, tokenizer, goals, candidates)
    out = evaluate_goals(model, tokenizer, goals, num_samples=0, candidates=candidates)
    for tactics, wanted, expected in zip(out.tactics, candidates, reference):
        assert sorted(t for t, _ in tactics) == sorted(wanted)
        got = dict(tactics)
        assert all(abs(got[t] - lp) < 1e-4 for t, lp in zip(wanted, expected))


def test_torch_evaluator_returns_candidates_and_keys_the_cache_on_them(trained) -> None:
    model, tokenizer, _ = trained
    evaluator = NetworkEvaluator(model, tokenizer)
    assert evaluator.engine == "torch"
    candidates = ("lia.", "split.", "ring.")
    only = evaluator.evaluate([EvalRequest(EXAMPLES[0].goal, 0, 0, candidates)])[0]
    assert sorted(t for t, _ in only.tactics) == sorted(candidates)
    both = evaluator.evaluate([EvalRequest(EXAMPLES[0].goal, 6, 0, candidates)])[0]
    names = [t for t, _ in both.tactics]
    assert len(names) == len(set(names)) and set(candidates) <= set(names)
    assert names[0] == "lia."  # memorised: sampled and listed, once, first
    assert [lp for _, lp in both.tactics] == sorted((lp for _, lp in both.tactics), reverse=True)
    assert evaluator.network_calls == 2
    evaluator.evaluate([EvalRequest(EXAMPLES[0].goal, 6, 0, ("ring.", "split.", "lia."))])
    assert evaluator.network_calls == 2 and evaluator.cache_hits == 1
    evaluator.evaluate([EvalRequest(EXAMPLES[0].goal, 6, 0, ("ring.",))])
    assert evaluator.network_calls == 3


def test_pretrain_config_rejects_unknown_keys() -> None:
    with pytest.raises(ValueError, match="unknown pretrain config keys: lr_typo"):
        PretrainConfig.from_dict({"train_file": "a", "valid_file": "b", "out_dir": "c", "lr_typo": 1})
    with pytest.raises(ValueError, match="unknown model config keys: layers"):
        PretrainConfig.from_dict({"train_file": "a", "valid_file": "b", "out_dir": "c", "model": {"layers": 2}})


def test_pretrain_runs_logs_and_resumes(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"goal": e.goal, "tactic": e.tactic, "steps": e.steps, "source": "t",
                                        "lemma": "l"}) + "\n" for e in EXAMPLES * 4), encoding="utf-8")
    base = {"train_file": str(data), "valid_file": str(data), "out_dir": str(tmp_path / "run"),
            "model": {**TINY.to_dict()}, "vocab_size": 300, "batch_size": 8, "warmup_steps": 2,
            "max_steps": 6, "eval_every": 3, "eval_examples": 4, "eval_beams": 2}
    first = pretrain(PretrainConfig.from_dict(base))
    assert first["step"] == 6 and 0 <= first["top1"] <= first["topk"] <= 1
    assert first["policy_loss"] > 0 and first["value_mae_constant"] >= 0
    assert list((tmp_path / "run" / "tb").glob("events.out.tfevents.*"))
    resumed = pretrain(PretrainConfig.from_dict({**base, "max_steps": 9}))
    assert resumed["step"] == 9  # continued from step 6, not from 0
    meta = json.loads((tmp_path / "run" / "last" / "config.json").read_text())["metadata"]
    assert meta["step"] == 9


def test_pretrain_reads_several_train_files_and_can_split_digits(tmp_path: Path) -> None:
    files = []
    for name, examples in (("stdlib", EXAMPLES * 2), ("scripts", [Example("h1 : f 6 = 20\n⊢ f 14 = 5",
                                                                        "pose proof (h0 6) as h2.", 2, "s")] * 3)):
        files.append(tmp_path / f"{name}.jsonl")
        files[-1].write_text("".join(json.dumps({"goal": e.goal, "tactic": e.tactic, "steps": e.steps,
                                                 "source": e.source}) + "\n" for e in examples), encoding="utf-8")
    assert [e.tactic for e in read_example_files(f"{files[0]}, {files[1]}")] == \
        [e.tactic for e in EXAMPLES * 2] + ["pose proof (h0 6) as h2."] * 3
    with pytest.raises(ValueError, match="not found"):
        read_example_files(f"{files[0]},{tmp_path / 'absent.jsonl'}")
    with pytest.raises(ValueError, match="no dataset file"):
        read_example_files(" , ")
    pretrain(PretrainConfig.from_dict({
        "train_file": f"{files[0]},{files[1]}", "valid_file": str(files[0]), "out_dir": str(tmp_path / "run"),
        "model": {**TINY.to_dict()}, "vocab_size": 300, "batch_size": 8, "warmup_steps": 1, "max_steps": 2,
        "eval_examples": 2, "eval_beams": 2, "source_weights": {}, "split_digits": True}))
    meta = json.loads((tmp_path / "run" / "last" / "config.json").read_text())["metadata"]
    assert meta["train_examples"] == 2 * len(EXAMPLES) + 3
    pieces = ProofTokenizer.load(tmp_path / "run" / "last").pieces("h1 : f 6 = 20")
    assert pieces[-3:] == ["Ġ", "2", "0"], pieces


def test_resumed_pretraining_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    """Stopping mid-epoch and resuming sees the same batches with the same learning rates: the
    weights equal those of one uninterrupted run (dropout 0, CPU, same seed)."""
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"goal": e.goal, "tactic": e.tactic, "steps": e.steps, "source": "t"}) + "\n"
                            for e in EXAMPLES * 5), encoding="utf-8")
    base = {"train_file": str(data), "valid_file": str(data), "model": {**TINY.to_dict()}, "vocab_size": 300,
            "batch_size": 8, "warmup_steps": 2, "max_steps": 11, "eval_every": 100, "save_every": 100,
            "eval_examples": 2, "eval_beams": 2, "source_weights": {}}
    pretrain(PretrainConfig.from_dict({**base, "out_dir": str(tmp_path / "once")}))
    split = {**base, "out_dir": str(tmp_path / "split")}
    pretrain(PretrainConfig.from_dict({**split, "session_steps": 7}))  # stops mid-epoch (5 batches/epoch)
    state = torch.load(tmp_path / "split" / "last" / "training_state.pt", weights_only=False)
    assert (state["step"], state["epoch"], state["batch_in_epoch"]) == (7, 1, 2)
    pretrain(PretrainConfig.from_dict(split))
    once, _, _ = load_checkpoint(tmp_path / "once" / "last")
    resumed, _, _ = load_checkpoint(tmp_path / "split" / "last")
    for (name, a), (_, b) in zip(once.state_dict().items(), resumed.state_dict().items()):
        assert torch.allclose(a, b, atol=1e-6), name


def test_ssreflect_filter_and_source_weights() -> None:
    ssreflect = ["move=> x y.", "case: H => [a b].", "rewrite /f addnC //.", "by apply: H.", "done.",
                 "have -> : x = y.", "elim: n => [|n IH] //=.", "rewrite -H."]
    plain = ["intros x y.", "destruct H as [a b].", "rewrite <- H.", "apply (fun x => x).", "lia.",
             "move H after H0.", "match goal with H : _ |- _ => idtac end.", "rewrite !Rmult_1_l.",
             "assert (H : x = y) by lia."]
    assert all(is_ssreflect_tactic(t) for t in ssreflect), [t for t in ssreflect if not is_ssreflect_tactic(t)]
    assert not any(is_ssreflect_tactic(t) for t in plain), [t for t in plain if is_ssreflect_tactic(t)]
    examples = [Example("g", "t", 1, "theories/Reals/Rbase.v"), Example("g", "t", 1, "theories/Lists/List.v"),
                Example("g", "t", 1, "Coquelicot/Hierarchy.v")]
    weighted = reweight(examples, {"theories/Reals/": 3.0, "Coquelicot": 0.0}, seed=0)
    assert [e.source for e in weighted] == ["theories/Reals/Rbase.v"] * 3 + ["theories/Lists/List.v"]


def test_steps_that_fit_keeps_a_reserve() -> None:
    assert steps_that_fit(50, 0.1, 100.0, reserve=0.0) == 1050
    assert steps_that_fit(50, 0.1, 100.0) == 50 + 920
    assert steps_that_fit(50, 10.0, 1.0) == 51  # at least one more step


def test_pretrain_sized_by_time_calibrates_and_keeps_its_schedule(tmp_path: Path) -> None:
    """max_steps=0 with max_minutes: the schedule is laid out after `calibration_steps` timed steps
    and again at the warm-up's end, saved with the run and kept by a resumed session; bad settings
    are one-line errors."""
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"goal": e.goal, "tactic": e.tactic, "steps": e.steps, "source": "t"}) + "\n"
                            for e in EXAMPLES * 4), encoding="utf-8")
    base = {"train_file": str(data), "valid_file": str(data), "out_dir": str(tmp_path / "run"),
            "model": {**TINY.to_dict()}, "vocab_size": 300, "batch_size": 8, "warmup_steps": 4,
            "calibration_steps": 3, "max_steps": 0, "max_minutes": 0.5, "eval_every": 10**6,
            "eval_examples": 2, "eval_beams": 2, "source_weights": {}}
    pretrain(PretrainConfig.from_dict({**base, "session_steps": 5}))
    state = torch.load(tmp_path / "run" / "last" / "training_state.pt", weights_only=False)
    assert state["step"] == 5 and state["max_steps"] > 5  # laid out at step 3 over the 30 s budget
    assert state["schedule_laid_out_at"] == 4  # and again at the warm-up's end, over steps 1-4
    laid_out = state["max_steps"]
    resumed = pretrain(PretrainConfig.from_dict({**base, "session_steps": 2}))
    again = torch.load(tmp_path / "run" / "last" / "training_state.pt", weights_only=False)
    assert resumed["step"] == 7 and again["max_steps"] == laid_out and again["schedule_laid_out_at"] == 4
    with pytest.raises(ValueError, match="give max_minutes"):
        PretrainConfig.from_dict({**base, "max_minutes": 0})
    with pytest.raises(ValueError, match="below warmup_steps"):
        PretrainConfig.from_dict({**base, "calibration_steps": 4})
    with pytest.raises(ValueError, match="precision must be fp32 or bf16"):
        PretrainConfig.from_dict({**base, "precision": "fp16"})


def test_pretrain_source_weights_null_means_no_reweighting() -> None:
    """`source_weights=null` empties the map (a Hydra `source_weights={}` override merges into the
    default map and cannot); an absent key keeps the defaults."""
    base = {"train_file": "a", "valid_file": "b", "out_dir": "c"}
    assert PretrainConfig.from_dict({**base, "source_weights": None}).source_weights == {}
    assert PretrainConfig.from_dict(base).source_weights == PretrainConfig(**base).source_weights
    from alphaprover.config import load_config, to_plain

    plain = to_plain(load_config("pretrain", ["source_weights=null"]))
    assert PretrainConfig.from_dict(plain).source_weights == {}
