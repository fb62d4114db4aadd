"""Our checkpoint as transformers sees it: a standard `T5ForConditionalGeneration` directory.

    python -m networks.export_hf checkpoints/alphaprover-coq-small /tmp/alphaprover-hf

writes what `save_pretrained` writes for the policy (`config.json` with `architectures`,
`model.safetensors` in float32, `generation_config.json` with the model's tactic length limit) and
a `PreTrainedTokenizerFast` over our `tokenizer.json` (byte-level BPE; a post-processor appends
`</s>` to a goal, as `ProofTokenizer.encode_goal` does, and `model_max_length` is the model's goal
limit), so `AutoModelForSeq2SeqLM.from_pretrained(dir)` and `AutoTokenizer.from_pretrained(dir)`
load it with no code of ours. The value head, which transformers has no place for, is saved beside
them (`value_head.safetensors` + `value_head.json`, `networks.hf_value`); `checkpoint=hf:DIR`
reads it, so the exported policy searches with the shipped value, not a neutral one.

What differs from the native path: a goal over the token limit is cut from the left by the
transformers tokenizer, while `ProofTokenizer` keeps the `⊢` line and then whole hypotheses,
nearest first; shorter goals are encoded identically (tested). A checkpoint whose tokenizer writes
numbers as goal slots (`number_placeholders`) cannot be expressed as a plain tokenizer and is refused.
`networks.export` (the bfloat16 artefact that ships) is a different export and is unchanged.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from networks.checkpoint import load_checkpoint, require_checkpoint
from networks.hf_value import save_value_head
from networks.tokenizer import EOS, PAD, UNK
from networks.tokenizer import FILE_NAME as TOKENIZER_FILE

#: provenance written beside the model: source, its metadata, the prompt and value it expects
PROVENANCE = "alphaprover_export.json"


def hf_tokenizer(checkpoint: Path, max_goal_tokens: int):
    """A transformers tokenizer over the checkpoint's `tokenizer.json` that encodes a goal as
    `ProofTokenizer.encode_goal` does for a goal within the limit (its tokens, then `</s>`)."""
    from tokenizers import Tokenizer, processors
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer.from_file(str(checkpoint / TOKENIZER_FILE))
    raw.post_processor = processors.TemplateProcessing(single=f"$A {EOS}", special_tokens=[(EOS, 1)])
    return PreTrainedTokenizerFast(tokenizer_object=raw, pad_token=PAD, eos_token=EOS, unk_token=UNK,
                                   model_max_length=max_goal_tokens, clean_up_tokenization_spaces=False,
                                   truncation_side="left")


def export_hf(source: str | Path, target: str | Path) -> Path:
    """Write checkpoint `source` as a transformers directory `target` (created). ValueError (one
    line) on a source that is not a checkpoint, a target that is the source, or number slots."""
    from transformers.utils import logging as hf_logging

    src, dst = require_checkpoint(source), Path(target)
    if dst.exists() and dst.resolve() == src.resolve():
        raise ValueError(f"export target {dst} is the source: choose another directory")
    model, tokenizer, metadata = load_checkpoint(src)
    if tokenizer.number_placeholders:
        raise ValueError(f"{src}: its tokenizer writes numbers as goal slots, which a transformers tokenizer "
                         "cannot express")
    config = model.config
    t5 = model.t5
    t5.generation_config.max_new_tokens = config.max_tactic_tokens
    t5.generation_config.decoder_start_token_id = t5.config.decoder_start_token_id
    t5.generation_config.eos_token_id = tokenizer.eos_id
    t5.generation_config.pad_token_id = tokenizer.pad_id
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        dst.mkdir(parents=True, exist_ok=True)
        t5.save_pretrained(str(dst))
        hf_tokenizer(src, config.max_goal_tokens).save_pretrained(str(dst))
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    # transformers 5 writes its own class name; the name 4.x knows too loads the same tokenizer in both
    settings_file = dst / "tokenizer_config.json"
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    settings["tokenizer_class"] = "PreTrainedTokenizerFast"
    settings_file.write_text(json.dumps(settings, indent=2), encoding="utf-8")
    save_value_head(dst, model.value_head, config.d_model, config.num_value_bins)
    (dst / PROVENANCE).write_text(json.dumps({
        "exported_from": str(src), "source_metadata": metadata, "prompt": "goal (the goal state alone)",
        "max_goal_tokens": config.max_goal_tokens, "max_tactic_tokens": config.max_tactic_tokens,
        "value_head": "value_head.safetensors (networks/hf_value.py)",
    }, indent=2), encoding="utf-8")
    return dst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="checkpoint directory, e.g. checkpoints/alphaprover-coq-small")
    parser.add_argument("target", help="directory to write (created)")
    args = parser.parse_args(argv)
    try:
        out = export_hf(args.source, args.target)
    except (ValueError, OSError) as error:
        print(f"error: {str(error).strip().splitlines()[0]}", file=sys.stderr)
        return 2
    print(f"exported {args.source} -> {out} (T5ForConditionalGeneration + tokenizer, value head beside it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
