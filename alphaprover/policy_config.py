"""The policy's keys, shared by every command that searches with the network (configs/config.yaml,
train.yaml, ttrl.yaml; docs/ARCHITECTURE.md §Action set, §Search).

Registered with Hydra as `policy_defaults` (`alphaprover.config.register_defaults`), so each
default is written here only; `alphaprover.runtime` reads a composed config's values with them.
`checkpoint` and `seed` are also keys of the training loops' configs (the starting weights, the
run's seed): one key each in the composed tree, read by both.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PolicyConfig:
    """How the policy network is loaded and asked for tactics."""

    # the (starting) weights: our checkpoint DIR, or `hf:DIR` (also a plain DIR that holds one) for any local transformers
    # seq2seq or causal model saved with save_pretrained (networks/hf_policy.py, docs/lean.md): such a model has no
    # value head, so its value is neutral, the fixed list's −(number of goals), unless DIR has our exported
    # value_head.safetensors (networks/export_hf.py)
    checkpoint: str = "${oc.env:ALPHAPROVER_CHECKPOINT,checkpoints/alphaprover-coq-small}"
    # what an expansion tries (search/action_set.py): network = the policy's samples; fixed = automation +
    # hypothesis tactics, uniform priors (no checkpoint needed); mixed = both, every candidate priced by the
    # network's own log-probability
    actions: str = "mixed"
    # library lemmas about the goal's functions offered as candidates in mixed mode (search/lemma_candidates.py,
    # docs/ARCHITECTURE.md §Lemma candidates): 0 = off, N = the N most relevant lemmas' rewrite/apply tactics.
    # An eval label may set it for one method: `mcts-mixed+lemmas` (LEMMAS_LABEL_DEFAULT) or `mcts-mixed+lemmas8`
    lemma_candidates: int = 0
    # where the fixed list's generated tactics come from (search/proposers/): classic = the automation
    # families (hints, rewrite, cases, psatz); all = classic + the computed competition proposers (a value
    # asserted, a witness, a linear combination, instantiation points, interval cases, …); pending = all + the
    # proposers not yet measured (search.proposers.PENDING_MODULES); none; or a comma-separated list of names
    # and sets (`all,squares`). An eval label picks its own: `mcts-fixed+proposers`, `+classic`, `+pending`
    proposers: str = "classic"
    # mixed mode: the computed proposers priced by their short names (`propose field_side.`), the name's
    # probability shared by its tactics, and a name the policy samples expanded into them
    # (search/proposers/short_names.py); the learners train on the names too. An eval label: `+names`
    short_names: bool = False
    engine: str | None = None     # policy inference: ct2-float32 (default) | ct2-int8 | torch (networks/evaluator.py)
    temperature: float = 1.0      # policy sampling temperature
    # round r of a goal samples at temperature·(1 + step·r); 0.25 measured no gain (BENCHMARKS.md)
    temperature_step: float = 0.0
    # sample: K policy samples per round; beam: round r proposes the K·(r+1) most likely; both: the union
    # (BENCHMARKS.md)
    decoding: str = "sample"
    seed: int = 0
    threads: int = 1              # torch/CTranslate2 threads of one evaluator (per actor, and the learner's)
    # hf:DIR only: the prompt, `{goal}` replaced by the goal state; auto = the family's (seq2seq: goal, the state
    # alone as ReProver; causal: proofstep = "[GOAL]{goal}[PROOFSTEP]" as llmstep); or a template of your own
    hf_prompt: str = "auto"
    hf_stop: list[str] = field(default_factory=list)  # hf:DIR: tactic cut at the first ("\\n" = newline); [] = family's
    hf_max_new_tokens: int = 0    # hf:DIR: a tactic's tokens at most; 0 = the checkpoint's generation_config, else 128
    device: str = "auto"          # hf:DIR: auto (CUDA when there is one, else CPU) | cpu | cuda | cuda:N


#: the values of `decoding` (networks.sampling.DECODINGS; here so the CLI checks a label without torch)
DECODINGS = ("sample", "beam", "both")

#: lemmas a `+lemmas` method label offers when the label names no number
LEMMAS_LABEL_DEFAULT = 8

#: the defaults, for reading a config that lacks a key
POLICY_DEFAULTS = PolicyConfig()

__all__ = ["DECODINGS", "LEMMAS_LABEL_DEFAULT", "POLICY_DEFAULTS", "PolicyConfig"]
