"""Grafting number slots onto a trained checkpoint: the old weights kept, slots that copy, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from networks.checkpoint import load_checkpoint, save_checkpoint
from networks.graft_slots import EMBEDDING, graft_checkpoint, grafted_embedding, main
from networks.model import ProverModel, ProverModelConfig
from networks.tokenizer import ProofTokenizer

TEXTS = ["h0 : f 500 = 3\n⊢ f 600 = 7", "replace 600 with (500 * (600 / 500)) by lra.", "x : R\n⊢ x + 12 > x",
         "lra.", "intros n.", "n : nat\n⊢ n + 0 = n", "lia.", "pose proof (h0 6) as h1."] * 4
SMALL = ProverModelConfig(d_model=32, d_ff=64, num_heads=2, encoder_layers=1, decoder_layers=1, dropout=0.0,
                          max_goal_tokens=64, max_tactic_tokens=32)
GOAL = "h0 : f 500 = 3\n⊢ f 600 = 7"
TACTIC = "replace 600 with (500 * (600 / 500)) by lra."


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    tokenizer = ProofTokenizer.train(TEXTS, vocab_size=300)
    torch.manual_seed(0)
    model = ProverModel(ProverModelConfig.from_dict({**SMALL.to_dict(), "vocab_size": tokenizer.vocab_size}))
    return save_checkpoint(tmp_path / "plain", model, tokenizer, {"run": "plain"})


def _losses(directory: Path, goal: str, tactic: str) -> float:
    model, tokenizer, _ = load_checkpoint(directory)
    goal_ids = torch.tensor([tokenizer.encode_goal(goal, 64)])
    tactic_ids = torch.tensor([tokenizer.encode_tactic(tactic, 32, goal)])
    with torch.no_grad():
        out = model(goal_ids, torch.ones_like(goal_ids), tactic_ids, torch.tensor([1]), 1.0)
    return float(out["policy_loss"])


def test_graft_keeps_every_weight_and_appends_slot_rows(plain: Path, tmp_path: Path) -> None:
    out = graft_checkpoint(plain, tmp_path / "slots", slots=16)
    before, after = load_file(str(plain / "model.safetensors")), load_file(str(out / "model.safetensors"))
    assert before.keys() == after.keys()
    for name in before:
        if name != EMBEDDING:
            assert torch.equal(before[name], after[name]), name
    vocab = before[EMBEDDING].shape[0]
    assert after[EMBEDDING].shape == (vocab + 16, before[EMBEDDING].shape[1])
    assert torch.equal(after[EMBEDDING][:vocab], before[EMBEDDING])
    slot_rows = after[EMBEDDING][vocab:]
    assert torch.linalg.matrix_rank(slot_rows - slot_rows.mean(0)) == 15  # slots are told apart
    config = json.loads((out / "config.json").read_text())
    assert config["model"]["vocab_size"] == vocab + 16
    assert config["metadata"]["grafted_slots_from"] == {"source": str(plain), "slots": 16, "seed": 0}
    assert config["metadata"]["run"] == "plain"


def test_grafted_tokenizer_writes_the_goals_numbers_as_slots_and_reads_them_back(plain: Path, tmp_path: Path) -> None:
    model, tokenizer, _ = load_checkpoint(graft_checkpoint(plain, tmp_path / "slots", slots=16))
    assert tokenizer.number_placeholders == 16 and tokenizer.vocab_size == model.config.vocab_size
    ids = tokenizer.encode_tactic(TACTIC, 32, GOAL)
    pieces = [tokenizer._tok.id_to_token(i) for i in ids]
    assert pieces.count("⟨n0⟩") == 2 and pieces.count("⟨n2⟩") == 2  # 500 is slot 0, 600 slot 2
    assert all(i >= model.config.vocab_size - 16 for i, p in zip(ids, pieces) if p.startswith("⟨n"))
    assert tokenizer.decode(ids, GOAL) == TACTIC
    assert tokenizer.decode(ids, "⊢ f 7 = 3") == ""  # a slot the goal lacks: no tactic
    goal_pieces = tokenizer.pieces(tokenizer.numbers(GOAL).goal_text(GOAL))
    assert "⟨n0⟩" in goal_pieces and not any(p.strip("Ġ").isdigit() and p.strip("Ġ") not in "01" for p in goal_pieces)


def test_a_goal_without_numbers_scores_as_before(plain: Path, tmp_path: Path) -> None:
    grafted = graft_checkpoint(plain, tmp_path / "slots", slots=16)
    goal, tactic = "n : nat\n⊢ n + 0 = n", "lia."
    # only the softmax's denominator gains the 16 new rows: the loss moves, by little
    assert abs(_losses(plain, goal, tactic) - _losses(grafted, goal, tactic)) < 0.05


def test_slot_rows_start_from_the_number_tokens_mean() -> None:
    table = torch.randn(10, 8)
    rows = grafted_embedding(table, [3, 4], slots=64, noise=0.5)[10:]
    torch.testing.assert_close(rows.mean(0), table[[3, 4]].mean(0), atol=0.3, rtol=0)
    assert torch.equal(grafted_embedding(table, [3, 4], 4, seed=1), grafted_embedding(table, [3, 4], 4, seed=1))
    with pytest.raises(ValueError, match="no number tokens"):
        grafted_embedding(table, [], 4)


def test_refusals(plain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grafted = graft_checkpoint(plain, tmp_path / "slots", slots=4)
    with pytest.raises(ValueError, match="already has number slots"):
        graft_checkpoint(grafted, tmp_path / "twice")
    with pytest.raises(ValueError, match="between 1 and 16"):
        graft_checkpoint(plain, tmp_path / "many", slots=17)
    with pytest.raises(ValueError, match="is the source"):
        graft_checkpoint(plain, plain)
    assert main([str(tmp_path / "nowhere"), str(tmp_path / "x")]) == 2
    assert "not a checkpoint directory" in capsys.readouterr().err
    assert main([str(plain), str(tmp_path / "cli"), "--slots", "2"]) == 0
    assert load_checkpoint(tmp_path / "cli")[1].number_placeholders == 2
