"""The learner on a tiny model: a step changes the weights, publishing numbers versions
atomically, and a new Learner on the same run directory resumes step, version and optimizer; a
step on a record replayed from the buffer raises that tactic's log-probability; an actor's
proposals change after a publish and only then; DeepSpeed computes the plain loss."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from fake_env import TableEnv
from networks.checkpoint import load_checkpoint, save_checkpoint
from networks.evaluator import NetworkEvaluator
from networks.model import ProverModel, ProverModelConfig
from networks.sampling import score_tactics
from networks.tokenizer import ProofTokenizer
from search.evaluator import EvalRequest
from search.outcome import Outcome
from search.solve import SearchSettings
from selfplay.actor import Actor
from selfplay.episode import Episode, TrainingRecord
from selfplay.learner import Learner, LearnerConfig, latest_weights, token_kl
from selfplay.replay_buffer import GroupedSampler, MixedSampler, ReplayBuffer

RECORDS = [TrainingRecord("n : nat\n⊢ n + 0 = n", "lia.", 1), TrainingRecord("⊢ 1 = 2", None, 40),
           TrainingRecord("P : Prop\nHP : P\n⊢ P", "exact HP.", 1), TrainingRecord("x : R\n⊢ x + 1 > x", "lra.", 1)]


@pytest.fixture()
def tiny_checkpoint(tmp_path: Path) -> Path:
    torch.manual_seed(0)
    tokenizer = ProofTokenizer.train([t for r in RECORDS for t in (r.goal, r.tactic or "")] * 4, vocab_size=300)
    config = ProverModelConfig(vocab_size=tokenizer.vocab_size, d_model=32, d_ff=64, num_heads=2, encoder_layers=1,
                               decoder_layers=1, dropout=0.0, max_goal_tokens=32, max_tactic_tokens=16)
    return save_checkpoint(tmp_path / "start", ProverModel(config), tokenizer)


def test_learner_trains_publishes_and_resumes(tmp_path: Path, tiny_checkpoint: Path) -> None:
    config = LearnerConfig(batch_size=4, lr=1e-2, publish_every=2, checkpoint_every=2, quantization="")
    learner = Learner(tmp_path / "run", tiny_checkpoint, config)
    assert latest_weights(tmp_path / "run" / "weights")[0] == 0  # the starting weights are version 0
    before = {k: v.clone() for k, v in learner.model.state_dict().items()}
    losses = [learner.train_batch(RECORDS) for _ in range(3)]
    assert losses[-1]["loss"] < losses[0]["loss"]
    assert any(not torch.equal(before[k], v) for k, v in learner.model.state_dict().items())
    version, path = learner.publish()
    assert version == 1 and latest_weights(tmp_path / "run" / "weights") == (1, path)
    assert json.loads((path / "config.json").read_text())["metadata"]["learner_step"] == 3
    resumed = Learner(tmp_path / "run", tiny_checkpoint, config)
    assert (resumed.step, resumed.version) == (3, 1)
    for key, value in learner.model.state_dict().items():
        assert torch.equal(value, resumed.model.state_dict()[key]), key
    assert resumed.optimizer.state_dict()["state"], "optimizer moments were restored"


def test_value_only_batch_trains_the_value_head_only(tmp_path: Path, tiny_checkpoint: Path) -> None:
    learner = Learner(tmp_path / "run", tiny_checkpoint, LearnerConfig(batch_size=2, quantization=""))
    out = learner.train_batch([RECORDS[1], RECORDS[1]])
    assert out["policy_loss"] == 0.0 and out["value_loss"] > 0


def test_one_deepspeed_step_on_cpu(tmp_path: Path, tiny_checkpoint: Path) -> None:
    """DeepSpeed (ZeRO stage 1, gloo, one process) runs a real step; in a subprocess so its
    process group does not outlive the test."""
    script = f"""
import json, torch
from selfplay.learner import Learner, LearnerConfig
from selfplay.episode import TrainingRecord
records = [TrainingRecord("n : nat\\n⊢ n + 0 = n", "lia.", 1), TrainingRecord("⊢ 1 = 2", None, 40)] * 2
learner = Learner({str(tmp_path / 'run')!r}, {str(tiny_checkpoint)!r},
                  LearnerConfig(engine="deepspeed", batch_size=4, lr=1e-2, quantization=""))
before = [p.detach().clone() for p in learner.model.parameters()]
first = learner.train_batch(records)
changed = any(not torch.equal(a, b) for a, b in zip(before, learner.model.parameters()))
learner.save()
print("RESULT", json.dumps({{"changed": changed, "loss": first["loss"], "step": learner.step,
                            "engine": type(learner._engine).__name__}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, done.stderr[-2000:]
    result = json.loads(lines[-1].removeprefix("RESULT "))
    # the first step's loss is the starting weights' loss on the batch: the plain engine's, to rounding
    plain = Learner(tmp_path / "plain", tiny_checkpoint, LearnerConfig(batch_size=4, lr=1e-2, quantization=""))
    records = [TrainingRecord("n : nat\n⊢ n + 0 = n", "lia.", 1), TrainingRecord("⊢ 1 = 2", None, 40)] * 2
    expected = plain.train_batch(records)["loss"]
    assert result == {"changed": True, "loss": pytest.approx(expected, rel=1e-4), "step": 1,
                      "engine": "DeepSpeedEngine"}
    assert torch.load(tmp_path / "run" / "learner" / "learner_state.pt", weights_only=False)["engine"] == "deepspeed"


def _logprob(model: ProverModel, tokenizer: ProofTokenizer, record: TrainingRecord) -> float:
    return score_tactics(model, tokenizer, [record.goal], [[record.tactic or ""]])[0][0]


def test_one_step_on_a_replayed_record_raises_its_tactics_logprob(tmp_path: Path, tiny_checkpoint: Path) -> None:
    record = TrainingRecord("x : R\n⊢ x + 1 > x", "lra.", 1, "train")
    with ReplayBuffer(tmp_path / "buffer", capacity=16) as buffer:
        buffer.add(Episode("train/p", "train", False, Outcome.PROVED, "lra.", (record,)))
    with ReplayBuffer(tmp_path / "buffer", capacity=16) as replayed:   # read back from disk
        batch = MixedSampler(replayed, [], 1.0, random.Random(0)).sample(4)
    assert batch == [record] * 4
    learner = Learner(tmp_path / "run", tiny_checkpoint, LearnerConfig(batch_size=4, lr=1e-2, quantization=""))
    others = [r for r in RECORDS if r.tactic and r.goal != record.goal]
    before, others_before = _logprob(learner.model, learner.tokenizer, record), \
        [_logprob(learner.model, learner.tokenizer, r) for r in others]
    learner.train_batch(batch)
    after = _logprob(learner.model, learner.tokenizer, record)
    assert after > before + 0.1, (before, after)
    assert [_logprob(learner.model, learner.tokenizer, r) for r in others] != others_before  # the step was real


def test_an_actors_proposals_change_after_a_publish_and_only_then(tmp_path: Path, tiny_checkpoint: Path) -> None:
    learner = Learner(tmp_path / "run", tiny_checkpoint, LearnerConfig(batch_size=4, lr=1e-2, quantization=""))
    actor = Actor("a0", {}, lambda: TableEnv({}), lambda path: NetworkEvaluator.from_checkpoint(path, engine="torch"),
                  SearchSettings(), tmp_path / "run" / "weights")
    record = RECORDS[3]
    request = EvalRequest(record.goal, 0, 0, ("lra.", "lia.", "exact HP."))
    assert actor.refresh_weights() == 0
    before = actor.evaluator.evaluate([request])[0]
    for _ in range(3):
        learner.train_batch([record] * 4)
    assert actor.refresh_weights() == 0 and actor.evaluator.evaluate([request])[0] == before  # nothing published
    learner.publish()
    assert actor.refresh_weights() == 1
    after = actor.evaluator.evaluate([request])[0]
    assert dict(after.tactics)["lra."] > dict(before.tactics)["lra."] + 0.1
    assert after.tactics[0][0] == "lra."   # the tactic it learned now ranks first


def test_a_tactic_too_long_for_the_decoder_keeps_only_its_value_target(tiny_checkpoint: Path) -> None:
    from networks.checkpoint import load_checkpoint
    from selfplay.learner import collate_records

    model, tokenizer, _ = load_checkpoint(tiny_checkpoint)
    long_tactic = "intros; " + "; ".join(f"pose proof (pow2_ge_0 (x{i} - y{i}))" for i in range(12)) + "; nra."
    batch = collate_records([TrainingRecord("x : R\n⊢ x = x", "reflexivity.", 1),
                             TrainingRecord("x : R\n⊢ x = x", long_tactic, 1)], tokenizer, model)
    assert (batch["labels"][0] != -100).any()
    assert (batch["labels"][1] == -100).all() and batch["steps"].tolist() == [1, 1]


def test_short_names_make_a_computed_proposers_long_tactic_a_short_target() -> None:
    """A field_side tactic (too long for the decoder as text) is trained as `propose field_side.`
    with `short_names`; without it, only its value target is kept, as any long tactic's."""
    from search.proposers.field_side import PROPOSERS
    from search.proposers.short_names import short_name
    from selfplay.learner import collate_records

    texts = [t for r in RECORDS for t in (r.goal, r.tactic or "")] + [short_name("field_side")]
    tokenizer = ProofTokenizer.train(texts * 4, vocab_size=300)
    model = ProverModel(ProverModelConfig(vocab_size=tokenizer.vocab_size, d_model=32, d_ff=64, num_heads=2,
                                          encoder_layers=1, decoder_layers=1, max_goal_tokens=32, max_tactic_tokens=16))
    goal = "a, b : R\nH : a <> b\nH1 : (4 * a + 3 * b) / (a - 2 * b) = 5\n⊢ (a + 11 * b) / (a - b) = 2"
    tactic = PROPOSERS[0].tactics(goal)[0]
    records = [TrainingRecord(goal, tactic, 3)]
    plain = collate_records(records, tokenizer, model)
    named = collate_records(records, tokenizer, model, short_names=True)
    assert (plain["labels"][0] == -100).all()
    expected = tokenizer.encode_tactic(short_name("field_side"), model.config.max_tactic_tokens + 1, goal)
    assert len(expected) <= model.config.max_tactic_tokens
    assert named["labels"][0, : len(expected)].tolist() == expected


def test_ema_publishes_the_moving_average_and_resumes_it(tmp_path: Path, tiny_checkpoint: Path) -> None:
    """With `ema_decay` the published weights are the average a·avg + (1 − a)·w after every step
    (starting from the starting weights), not the raw weights; the average survives a restart."""
    from networks.checkpoint import load_checkpoint

    decay = 0.6
    config = LearnerConfig(batch_size=4, lr=1e-2, quantization="", ema_decay=decay)
    learner = Learner(tmp_path / "run", tiny_checkpoint, config)
    expected = {name: p.detach().clone() for name, p in learner.model.named_parameters()}
    for _ in range(3):
        learner.train_batch(RECORDS)
        for name, p in learner.model.named_parameters():
            expected[name] = decay * expected[name] + (1 - decay) * p.detach()
    _, path = learner.publish()
    published, _, metadata = load_checkpoint(path)
    assert metadata["ema_decay"] == decay
    raw = dict(learner.model.named_parameters())
    for name, p in published.named_parameters():
        assert torch.allclose(p, expected[name], atol=1e-6), name
    assert any(not torch.allclose(p, raw[name]) for name, p in published.named_parameters())
    resumed = Learner(tmp_path / "run", tiny_checkpoint, config)
    for name, tensor in learner.average.items():
        assert torch.equal(tensor, resumed.average[name]), name
    for key, value in learner.model.state_dict().items():   # and the live model is the raw one
        assert torch.equal(value, resumed.model.state_dict()[key]), key


def test_ema_decay_outside_zero_to_one_is_refused() -> None:
    for bad in (1.0, -0.1):
        with pytest.raises(ValueError, match="ema_decay"):
            LearnerConfig(ema_decay=bad)


def test_a_decaying_learning_rate_halves_per_half_life_and_resumes(tmp_path: Path, tiny_checkpoint: Path) -> None:
    """`lr_half_life` steps halve the rate the optimizer steps with, down to `lr_min`; a resumed
    learner continues the schedule from its step count. The default stays constant."""
    config = LearnerConfig(batch_size=4, lr=1e-2, quantization="", lr_half_life=2, lr_min=2e-3)
    learner = Learner(tmp_path / "run", tiny_checkpoint, config)
    used = []
    for _ in range(3):
        learner.train_batch(RECORDS)
        used.append(learner.optimizer.param_groups[0]["lr"])
    assert used == pytest.approx([1e-2, 1e-2 * 0.5 ** 0.5, 5e-3])
    learner.save()
    resumed = Learner(tmp_path / "run", tiny_checkpoint, config)
    assert resumed.learning_rate() == pytest.approx(1e-2 * 0.5 ** 1.5)
    for _ in range(3):
        resumed.train_batch(RECORDS)
    assert resumed.optimizer.param_groups[0]["lr"] == pytest.approx(2e-3)  # the floor (2.5e-3 · 0.5^½ < 2e-3)
    constant = Learner(tmp_path / "constant", tiny_checkpoint, LearnerConfig(batch_size=4, lr=1e-2, quantization=""))
    constant.step = 10_000
    assert constant.learning_rate() == 1e-2
    with pytest.raises(ValueError, match="lr_half_life"):
        LearnerConfig(lr=1e-3, lr_min=1e-2)


def test_a_bf16_learner_step_runs_under_autocast_and_keeps_float32_weights(tmp_path: Path, tiny_checkpoint: Path
                                                                            ) -> None:
    """`precision=bf16`: the step's loss is the float32 loss to bfloat16 rounding, the weights move
    and stay float32 (so do the published ones); an unknown precision is refused."""
    plain = Learner(tmp_path / "fp32", tiny_checkpoint, LearnerConfig(batch_size=4, lr=1e-2, quantization=""))
    bf16 = Learner(tmp_path / "bf16", tiny_checkpoint, LearnerConfig(batch_size=4, lr=1e-2, quantization="",
                                                                     precision="bf16"))
    before = [p.detach().clone() for p in bf16.model.parameters()]
    expected, got = plain.train_batch(RECORDS)["loss"], bf16.train_batch(RECORDS)["loss"]
    assert got != expected and got == pytest.approx(expected, rel=0.02)  # rounded, not another computation
    assert any(not torch.equal(a, b) for a, b in zip(before, bf16.model.parameters()))
    assert all(p.dtype == torch.float32 for p in bf16.model.parameters())
    _, path = bf16.publish()
    from networks.checkpoint import load_checkpoint

    assert all(p.dtype == torch.float32 for p in load_checkpoint(path)[0].parameters())
    with pytest.raises(ValueError, match="learner precision must be one of fp32, bf16"):
        LearnerConfig(precision="fp16")


def test_token_kl_is_the_mean_kl_over_tactic_tokens_only() -> None:
    torch.manual_seed(0)
    reference, logits = torch.randn(2, 3, 5), torch.randn(2, 3, 5)
    labels = torch.tensor([[1, 2, -100], [3, -100, -100]])
    mask = labels != -100
    expected = torch.nn.functional.kl_div(torch.log_softmax(logits[mask], -1), torch.log_softmax(reference[mask], -1),
                                          log_target=True, reduction="batchmean")
    assert token_kl(reference, logits, labels).item() == pytest.approx(expected.item(), rel=1e-5)
    assert token_kl(reference, reference, labels).item() == pytest.approx(0.0, abs=1e-6)
    changed = logits.clone()
    changed[0, 2] += 100.0   # a padded position: not counted
    assert token_kl(reference, changed, labels).item() == pytest.approx(expected.item(), rel=1e-5)
    assert token_kl(reference, logits, torch.full_like(labels, -100)).item() == 0.0


def test_keep_weight_holds_the_policy_near_its_starting_weights(tmp_path: Path, tiny_checkpoint: Path) -> None:
    """On batches that mix a new record with earlier ones (as replay mixes with the supervised and
    library records), the policy's whole distribution on the earlier ones moves less from version
    0's with the KL term than without it; the term starts at 0 (the weights are version 0's) and,
    resumed, still compares with version 0, not with the resumed weights."""
    from selfplay.learner import collate_records

    others = [r for r in RECORDS if r.tactic and r.tactic != "lra."]
    batch = [RECORDS[3], RECORDS[3], *others]
    start = load_checkpoint(tiny_checkpoint)[0].eval()

    def divergence(model: ProverModel, tokenizer: ProofTokenizer) -> float:
        rows = collate_records(others, tokenizer, model)
        args = [rows[k] for k in ("input_ids", "attention_mask", "labels", "steps")]
        with torch.no_grad():
            return token_kl(start(*args, 0.1)["logits"], model.eval()(*args, 0.1)["logits"], rows["labels"]).item()

    def run(keep_weight: float, name: str) -> tuple[float, list[dict[str, float]]]:
        torch.manual_seed(0)
        learner = Learner(tmp_path / name, tiny_checkpoint, LearnerConfig(batch_size=4, lr=1e-2, quantization="",
                                                                          checkpoint_every=3, keep_weight=keep_weight))
        losses = [learner.train_batch(batch) for _ in range(6)]
        return divergence(learner.model, learner.tokenizer), losses

    free, free_losses = run(0.0, "free")
    kept, kept_losses = run(3.0, "kept")
    assert "keep_kl" not in free_losses[0]
    assert kept_losses[0]["keep_kl"] == pytest.approx(0.0, abs=1e-6)
    assert kept_losses[-1]["keep_kl"] > 0.0
    assert kept < 0.5 * free, (kept, free)
    resumed = Learner(tmp_path / "kept", tiny_checkpoint, LearnerConfig(batch_size=4, quantization="", keep_weight=3.0))
    assert resumed.step == 6
    for (name, param), (_, kept_param) in zip(start.named_parameters(), resumed.keeper.named_parameters()):
        assert torch.equal(param, kept_param), name
    with pytest.raises(ValueError, match="keep_weight"):
        LearnerConfig(keep_weight=-1.0)


def test_the_learner_service_groups_its_batches_by_length_when_asked(tmp_path: Path, tiny_checkpoint: Path) -> None:
    """`learner.length_window`: the service draws that many batches at once and trains on them
    grouped by goal length (each record of the window once); 0 keeps one random draw a step."""
    from selfplay.runner import LearnerService

    supervised = [TrainingRecord("x : R\n" * (i % 6) + f"⊢ x + {i} > x", "lra.", 1) for i in range(32)]
    seen: list[list[TrainingRecord]] = []

    class Recording(Learner):
        def train_batch(self, records):
            seen.append(list(records))
            return super().train_batch(records)

    for window, run in ((4, "grouped"), (0, "plain")):
        config = LearnerConfig(batch_size=4, lr=1e-3, quantization="", replay_fraction=0.0, library_fraction=0.0,
                               length_window=window)
        service = LearnerService(tmp_path / run, tiny_checkpoint, config, 0, ReplayBuffer(tmp_path / f"{run}-buffer", 10),
                                 supervised, make_learner=Recording)
        seen.clear()
        for _ in range(4):
            service.train_step()
        assert service.step == 4 and [len(b) for b in seen] == [4] * 4
        if window:
            assert isinstance(service.batches, GroupedSampler)
            assert len({r.goal for b in seen for r in b}) == 16  # one window: 16 distinct records, none twice
        else:
            assert service.batches is service.sampler
    with pytest.raises(ValueError, match="length_window"):
        LearnerConfig(length_window=-1)
