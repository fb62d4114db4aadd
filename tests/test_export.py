"""Exporting a checkpoint for shipping: bfloat16 weights, the metadata says so, bad input exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from networks.checkpoint import load_checkpoint, save_checkpoint
from networks.export import export_checkpoint, main
from networks.model import ProverModel, ProverModelConfig
from networks.tokenizer import ProofTokenizer

TEXTS = ["n : nat\n⊢ n + 0 = n", "lia.", "x : R\n⊢ x + 1 > x", "lra.", "intros n.", "split."] * 4
SMALL = ProverModelConfig(d_model=32, d_ff=64, num_heads=2, encoder_layers=1, decoder_layers=1, dropout=0.0,
                          max_goal_tokens=32, max_tactic_tokens=16)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    torch.manual_seed(0)
    tokenizer = ProofTokenizer.train(TEXTS, vocab_size=280)
    model = ProverModel(ProverModelConfig.from_dict({**SMALL.to_dict(), "vocab_size": tokenizer.vocab_size}))
    (tmp_path / "run" / "last").mkdir(parents=True)
    # what a run's last/ also holds, which must not ship
    torch.save({"step": 3}, tmp_path / "run" / "last" / "training_state.pt")
    return save_checkpoint(tmp_path / "run" / "last", model, tokenizer, {"steps": 3})


def test_export_halves_the_weights_and_keeps_them_to_bf16_rounding(source: Path, tmp_path: Path) -> None:
    out = export_checkpoint(source, tmp_path / "ship", metadata={"run": "run/last"})
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
    before, after = load_file(str(source / "model.safetensors")), load_file(str(out / "model.safetensors"))
    assert before.keys() == after.keys()
    assert {t.dtype for t in after.values()} == {torch.bfloat16}
    for name, tensor in before.items():
        assert torch.equal(after[name], tensor.to(torch.bfloat16)), name
    assert (out / "model.safetensors").stat().st_size < 0.6 * (source / "model.safetensors").stat().st_size
    model, tokenizer, metadata = load_checkpoint(out)
    assert next(model.parameters()).dtype == torch.float32  # loading casts back
    assert metadata == {"steps": 3, "run": "run/last", "weights_dtype": "bfloat16", "exported_from": str(source)}
    assert tokenizer.vocab_size == ProofTokenizer.load(source).vocab_size
    config = json.loads((out / "config.json").read_text())
    assert config["model"] == json.loads((source / "config.json").read_text())["model"]


def test_export_refuses_a_non_checkpoint_an_unknown_dtype_and_its_own_source(source: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a checkpoint"):
        export_checkpoint(tmp_path / "nowhere", tmp_path / "out")
    with pytest.raises(ValueError, match="unknown dtype"):
        export_checkpoint(source, tmp_path / "out", dtype="int4")
    with pytest.raises(ValueError, match="is the source"):
        export_checkpoint(source, source)
    assert load_file(str(source / "model.safetensors"))  # the source is untouched


def test_cli_exits_2_with_one_line_on_bad_input_and_0_on_success(source: Path, tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "nowhere"), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert main([str(source), str(tmp_path / "out"), "--run", "r", "--note", "n"]) == 0
    metadata = load_checkpoint(tmp_path / "out")[2]
    assert metadata["run"] == "r" and metadata["trained_on"] == "n" and metadata["exported_from"] == str(source)
