"""Numbers as slots (networks/numbers.py): the mapping, the tokenizer, and a tiny network that copies
numbers it never saw in training, through PyTorch and through the CTranslate2 engine."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from networks.checkpoint import load_checkpoint, save_checkpoint
from networks.dataset import Example, batches, encode_examples
from networks.engine import CT2Policy, ctranslate2_available
from networks.model import ProverModel, ProverModelConfig
from networks.numbers import MAX_PLACEHOLDERS, number_map
from networks.sampling import evaluate_goals, score_tactics
from networks.tokenizer import ProofTokenizer, slotted_texts
from selfplay.episode import TrainingRecord
from selfplay.learner import collate_records


def test_number_map_slots_distinct_numbers_in_order_but_not_0_1_or_identifier_digits() -> None:
    goal = "h0 : forall x : R, f (2 * x) = 3 * f x + 1\nh1 : f 6 = 20\n⊢ f 12 = 3 * 20 + 0 /\\ Rplus_0_r = x~0"
    numbers = number_map(goal)
    assert numbers.numbers == ("2", "3", "6", "20", "12")
    slotted = numbers.goal_text(goal)
    assert slotted == ("h0 : forall x : R, f (⟨n0⟩ * x) = ⟨n1⟩ * f x + 1\nh1 : f ⟨n2⟩ = ⟨n3⟩\n"
                       "⊢ f ⟨n4⟩ = ⟨n1⟩ * ⟨n3⟩ + 0 /\\ Rplus_0_r = x~0")
    assert number_map(" ".join(str(n) for n in range(2, 40)), limit=4).numbers == ("2", "3", "4", "5")
    assert len(number_map(" ".join(str(n) for n in range(2, 40))).numbers) == MAX_PLACEHOLDERS


def test_tactic_slots_copy_the_goals_numbers_and_leave_parameters_and_computed_numbers_literal() -> None:
    numbers = number_map("h1 : f 6 = 20\n⊢ 2 * f 14 = 5")
    cases = {
        "pose proof (h0 6) as h2.": "pose proof (h0 ⟨n0⟩) as h2.",
        "pose proof (h0 (-14)) as h3.": "pose proof (h0 (-⟨n3⟩)) as h3.",
        "psatz R 2.": "psatz R 2.",                 # a degree, not the goal's 2
        "do 2 rewrite h1.": "do 2 rewrite h1.",
        "rewrite Rmult_comm at 2.": "rewrite Rmult_comm at 2.",
        "exists (-863).": "exists (-863).",         # computed: not in the goal
        "replace 20 with (4 * 5) by ring.": "replace ⟨n1⟩ with (4 * ⟨n4⟩) by ring.",
        "lia.": "lia.",
    }
    for tactic, slotted in cases.items():
        assert numbers.tactic_text(tactic) == slotted
        assert numbers.restore(slotted) == tactic
    assert numbers.restore("pose proof (h0 ⟨n9⟩).") is None  # the goal has no tenth number


PAIRS = [(f"h0 : forall n : Z, f n = n * n\n⊢ f {n} = {n * n}", f"pose proof (h0 {n}) as h1.") for n in range(2, 33, 2)]
PAIRS += [(f"⊢ exists m : Z, m + {n} = 2 * {n}", f"exists {n}.") for n in range(3, 34, 2)]
PAIRS += [("x : R\n⊢ x * x >= 0", "nra."), ("x, y : R\n⊢ x + y = y + x", "lra."), ("⊢ 2 * 2 = 4", "psatz R 2.")]
TINY = ProverModelConfig(d_model=64, d_ff=128, num_heads=2, encoder_layers=1, decoder_layers=1, dropout=0.0,
                         max_goal_tokens=64, max_tactic_tokens=24)
#: Numbers never seen in training, in either template.
UNSEEN = [("h0 : forall n : Z, f n = n * n\n⊢ f 57 = 3249", "pose proof (h0 57) as h1."),
          ("⊢ exists m : Z, m + 71 = 2 * 71", "exists 71.")]


def test_a_slot_tokenizer_needs_the_goal_and_spends_one_token_per_slot() -> None:
    tokenizer = ProofTokenizer.train(slotted_texts(PAIRS * 4, MAX_PLACEHOLDERS), vocab_size=300,
                                     number_placeholders=MAX_PLACEHOLDERS)
    assert tokenizer.number_placeholders == MAX_PLACEHOLDERS
    goal, tactic = UNSEEN[0]
    assert "⟨n0⟩" in tokenizer.pieces(number_map(goal).tactic_text(tactic))
    ids = tokenizer.encode_tactic(tactic, 64, goal)
    assert tokenizer.decode(ids, goal) == tactic
    assert tokenizer.decode(ids, "⊢ True") == ""  # the slot points at nothing in this goal
    with pytest.raises(ValueError, match="pass the goal"):
        tokenizer.encode_tactic(tactic, 64)
    with pytest.raises(ValueError, match="pass the goal"):
        tokenizer.decode(ids)
    plain = ProofTokenizer.train([t for pair in PAIRS * 4 for t in pair], vocab_size=300)
    assert plain.number_placeholders == 0
    assert plain.decode(plain.encode_tactic(tactic, 64)) == tactic  # no goal needed without slots


def train_copier() -> tuple[ProverModel, ProofTokenizer]:
    """A tiny network trained on the two templates with training numbers only."""
    torch.manual_seed(0)
    tokenizer = ProofTokenizer.train(slotted_texts(PAIRS * 4, MAX_PLACEHOLDERS), vocab_size=400,
                                     number_placeholders=MAX_PLACEHOLDERS)
    model = ProverModel(ProverModelConfig.from_dict({**TINY.to_dict(), "vocab_size": tokenizer.vocab_size}))
    examples = [Example(goal, tactic, 1) for goal, tactic in PAIRS]
    encoded = encode_examples(examples, tokenizer, TINY.max_goal_tokens, TINY.max_tactic_tokens)
    assert len(encoded) == len(examples)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for step in range(150):
        for batch in batches(encoded, 64, tokenizer.pad_id, seed=step):
            loss = model(batch["input_ids"], batch["attention_mask"], batch["labels"], batch["steps"], 0.1)["loss"]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model.eval(), tokenizer


@pytest.fixture(scope="module")
def copier() -> tuple[ProverModel, ProofTokenizer]:
    return train_copier()


def test_the_network_copies_numbers_it_never_saw_through_its_slots(copier) -> None:
    model, tokenizer = copier
    goals = [goal for goal, _ in UNSEEN]
    out = evaluate_goals(model, tokenizer, goals, num_samples=0, beam_width=4)
    for (goal, tactic), proposals in zip(UNSEEN, out.tactics):
        assert proposals[0][0] == tactic, proposals
        assert all("⟨" not in text for text, _ in proposals)
    copied, other = score_tactics(model, tokenizer, goals[:1], [["pose proof (h0 57) as h1.",
                                                                 "pose proof (h0 58) as h1."]])[0]
    assert copied > other + 5.0  # the goal's number through its slot beats a literal the goal lacks


def test_the_learner_reads_slotted_tactics_against_their_goals(copier) -> None:
    model, tokenizer = copier
    goal, tactic = UNSEEN[0]
    batch = collate_records([TrainingRecord(goal, tactic, 1)], tokenizer, model)
    labels = [i for i in batch["labels"][0].tolist() if i != -100]
    assert labels == tokenizer.encode_tactic(tactic, TINY.max_tactic_tokens + 1, goal)
    assert tokenizer.decode(labels, goal) == tactic


@pytest.mark.skipif(not ctranslate2_available(), reason="CTranslate2 not installed")
def test_the_engine_fills_slots_like_pytorch(copier, tmp_path: Path) -> None:
    model, tokenizer = copier
    checkpoint = save_checkpoint(tmp_path / "slots", model, tokenizer)
    loaded, reloaded_tokenizer, _ = load_checkpoint(checkpoint)
    assert reloaded_tokenizer.number_placeholders == MAX_PLACEHOLDERS
    policy = CT2Policy.load(checkpoint, "float32", threads=1)
    goals = [goal for goal, _ in UNSEEN]
    beams = policy.beam(goals, 4)
    for (_, tactic), proposals in zip(UNSEEN, beams):
        assert proposals[0][0] == tactic, proposals
    engine_scores = policy.score(goals[:1], [[UNSEEN[0][1]]])[0][0]
    torch_scores = score_tactics(loaded, reloaded_tokenizer, goals[:1], [[UNSEEN[0][1]]])[0][0]
    assert engine_scores == pytest.approx(torch_scores, abs=1e-3)
    samples = policy.sample(goals, 8)
    assert any(text == UNSEEN[1][1] for text, _ in samples[1]) and all("⟨" not in t for t, _ in samples[0])
