"""Interpolating two checkpoints (WiSE-FT): exact endpoints, the straight line between, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from networks.checkpoint import load_checkpoint, save_checkpoint
from networks.interpolate import interpolate_checkpoints, interpolate_states, main
from networks.model import ProverModel, ProverModelConfig
from networks.tokenizer import ProofTokenizer

TEXTS = ["n : nat\n⊢ n + 0 = n", "lia.", "x : R\n⊢ x + 1 > x", "lra.", "intros n.", "split."] * 4
SMALL = ProverModelConfig(d_model=32, d_ff=64, num_heads=2, encoder_layers=1, decoder_layers=1, dropout=0.0,
                          max_goal_tokens=32, max_tactic_tokens=16)


def _checkpoint(path: Path, seed: int, tokenizer: ProofTokenizer, config: ProverModelConfig = SMALL) -> Path:
    torch.manual_seed(seed)
    model = ProverModel(ProverModelConfig.from_dict({**config.to_dict(), "vocab_size": tokenizer.vocab_size}))
    return save_checkpoint(path, model, tokenizer, {"seed": seed})


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    tokenizer = ProofTokenizer.train(TEXTS, vocab_size=280)
    return _checkpoint(tmp_path / "start", 0, tokenizer), _checkpoint(tmp_path / "end", 1, tokenizer)


def test_endpoints_are_the_sources_and_the_middle_is_their_mean(pair: tuple[Path, Path], tmp_path: Path) -> None:
    start, end = pair
    a, b = load_file(str(start / "model.safetensors")), load_file(str(end / "model.safetensors"))
    assert any(not torch.equal(a[name], b[name]) for name in a)  # the two differ, so the checks below bite
    for alpha, expected in ((0.0, a), (1.0, b)):
        out = load_file(str(interpolate_checkpoints(start, end, tmp_path / f"at-{alpha}", alpha) / "model.safetensors"))
        for name in a:
            assert torch.equal(out[name], expected[name]), (alpha, name)
    middle = load_file(str(interpolate_checkpoints(start, end, tmp_path / "mid", 0.25) / "model.safetensors"))
    for name in a:
        torch.testing.assert_close(middle[name], 0.75 * a[name] + 0.25 * b[name])
    model, _, metadata = load_checkpoint(tmp_path / "mid")
    assert metadata["interpolated_from"] == {"start": str(start), "end": str(end), "alpha": 0.25}
    assert metadata["seed"] == 1 and metadata["weights_dtype"] == "float32"
    assert sum(p.numel() for p in model.parameters()) > 0


def test_integer_tensors_must_agree_and_are_kept() -> None:
    ids = torch.arange(4)
    out = interpolate_states({"w": torch.zeros(2), "ids": ids}, {"w": torch.ones(2), "ids": ids.clone()}, 0.5)
    assert torch.equal(out["ids"], ids) and torch.equal(out["w"], torch.full((2,), 0.5))
    with pytest.raises(ValueError, match="integer tensor ids differs"):
        interpolate_states({"ids": ids}, {"ids": ids + 1}, 0.5)
    with pytest.raises(ValueError, match="shape"):
        interpolate_states({"w": torch.zeros(2)}, {"w": torch.zeros(3)}, 0.5)
    with pytest.raises(ValueError, match="different tensors"):
        interpolate_states({"w": torch.zeros(2)}, {"v": torch.zeros(2)}, 0.5)
    with pytest.raises(ValueError, match="alpha must be in"):
        interpolate_states({"w": torch.zeros(2)}, {"w": torch.zeros(2)}, 1.5)


def test_refuses_other_architectures_tokenizers_and_a_source_as_target(pair: tuple[Path, Path], tmp_path: Path) -> None:
    start, end = pair
    tokenizer = ProofTokenizer.load(start)
    wider = _checkpoint(tmp_path / "wider", 2, tokenizer, ProverModelConfig.from_dict({**SMALL.to_dict(), "d_ff": 96}))
    with pytest.raises(ValueError, match="different architectures"):
        interpolate_checkpoints(start, wider, tmp_path / "out", 0.5)
    other_tokens = _checkpoint(tmp_path / "other", 3, tokenizer)
    text = json.loads((other_tokens / "tokenizer.json").read_text(encoding="utf-8"))
    text["model"]["vocab"] = dict(reversed(list(text["model"]["vocab"].items())))  # same size, other ids
    (other_tokens / "tokenizer.json").write_text(json.dumps(text), encoding="utf-8")
    with pytest.raises(ValueError, match="different tokenizers"):
        interpolate_checkpoints(start, other_tokens, tmp_path / "out", 0.5)
    with pytest.raises(ValueError, match="one of the sources"):
        interpolate_checkpoints(start, end, end, 0.5)
    with pytest.raises(ValueError, match="not a checkpoint"):
        interpolate_checkpoints(tmp_path / "nowhere", end, tmp_path / "out", 0.5)
    assert json.loads((end / "config.json").read_text())["metadata"] == {"seed": 1}  # untouched


def test_cli_exits_2_with_one_line_on_bad_input_and_0_on_success(pair: tuple[Path, Path], tmp_path: Path,
                                                                  capsys) -> None:
    start, end = pair
    assert main([str(start), str(tmp_path / "nowhere"), str(tmp_path / "out"), "--alpha", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1
    assert main([str(start), str(end), str(tmp_path / "out"), "--alpha", "0.5", "--dtype", "bfloat16"]) == 0
    assert {t.dtype for t in load_file(str(tmp_path / "out" / "model.safetensors")).values()} == {torch.bfloat16}
