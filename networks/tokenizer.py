"""A byte-level BPE tokenizer trained on our own goals and tactics.

Byte-level so every string round-trips (Coq's `⊢`, Unicode identifiers); BPE so common pieces
(`forall`, ` : nat`, `rewrite`, hypothesis names) become single tokens and inputs stay short —
the network, not the prover, is the bottleneck (docs/ARCHITECTURE.md §Measured facts).

Identifiers are kept whole before BPE sees them (`whole_identifiers`, the default for a newly
trained tokenizer): GPT-2's byte-level split cuts at every `_` and `.`, so BPE could never merge
`Rplus_le_compat_l` (7 pieces) or `Nat.add_comm`; with a split that keeps a (qualified) identifier
as one pre-token, frequent lemma names become one or two tokens, and unseen stdlib goals take
17% fewer tokens at vocabulary 4000 (20% at 8000; docs/experiments.md, "Tokenizer: identifiers kept
whole", c61b528). A saved tokenizer carries its own pre-tokenizer, so an older checkpoint keeps the
split it was trained with.

Numbers can be split into single digits (`split_digits`): BPE otherwise merges digits by
frequency and context, so the same number is a different token sequence in the goal and in the
tactic that must copy it (` 20` → ` 2`·`0` in `f 6 = 20`, `(6` → `(`·`6` but ` 6` one token), and
a network that cannot see a number as the same symbols twice cannot learn to copy it
(`pose proof (h0 6)` from `h1 : f 6 = 20`). With single digits, and the space before a number a
token of its own, every number reads the same wherever it stands (measured no better for copying:
docs/experiments.md, "One token per digit", 2e25792).

Numbers can instead become slots (`number_placeholders`, networks/numbers.py): the goal's numbers
are replaced by `⟨n0⟩`, `⟨n1⟩`, … (special tokens: one id each, never merged), a training tactic
writes a goal's number as its slot, and a decoded tactic gets the goal's numbers back, so copying
a number is choosing a slot. Such a tokenizer needs the goal to encode a tactic and to decode one;
asking without it is a programming error and raises.

Long goals are truncated from the far end of the context: the target line `⊢ …` is always kept,
then as many hypotheses as fit, nearest the target first.
"""

from __future__ import annotations

import re

from pathlib import Path
from typing import Iterable, Sequence

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

from networks.numbers import MAX_PLACEHOLDERS, NumberMap, number_map, placeholder, placeholder_tokens

PAD, EOS, UNK = "<pad>", "</s>", "<unk>"
SPECIAL_TOKENS = [PAD, EOS, UNK]
FILE_NAME = "tokenizer.json"

#: One pre-token each: a (dot-qualified) identifier with its leading space, a number, a run of
#: other symbols, a run of white space. `lra.` splits as `lra` + `.`: a tactic's final dot is not
#: a qualifier because no identifier follows it.
IDENTIFIER_SPLIT = r"\s?[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*|\s?\d+|\s?[^\s\w]+|\s+"

#: The same, with every digit of a number a pre-token of its own and no space attached to it (a
#: space before a number is a pre-token alone): a number is the same tokens in every context.
#: Digits inside identifiers (`h0`, `Rplus_0_r`) stay in the identifier.
DIGIT_SPLIT = r"\s?[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*|\d|\s?[^\s\w]+|\s+"


class ProofTokenizer:
    """Encodes goals (with truncation that keeps the target) and tactics; decodes tactics."""

    pad_id = 0
    eos_id = 1
    unk_id = 2

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tok = tokenizer
        if tokenizer.token_to_id(PAD) != 0 or tokenizer.token_to_id(EOS) != 1:
            raise ValueError("tokenizer must have <pad>=0 and </s>=1")
        self.number_placeholders = sum(1 for index in range(MAX_PLACEHOLDERS)
                                       if tokenizer.token_to_id(placeholder(index)) is not None)

    @classmethod
    def train(cls, texts: Iterable[str], vocab_size: int = 4000, whole_identifiers: bool = True,
              split_digits: bool = False, number_placeholders: int = 0) -> "ProofTokenizer":
        """BPE over `texts`; `whole_identifiers=False` gives the GPT-2 split older checkpoints use;
        `split_digits` (which needs `whole_identifiers`) makes every digit of a number one token;
        `number_placeholders` > 0 adds that many number slots (pass texts through `slotted_texts`)."""
        if split_digits and not whole_identifiers:
            raise ValueError("split_digits needs whole_identifiers")
        if not 0 <= number_placeholders <= MAX_PLACEHOLDERS:
            raise ValueError(f"number_placeholders must be between 0 and {MAX_PLACEHOLDERS}")
        tokenizer = Tokenizer(models.BPE(unk_token=UNK))
        if whole_identifiers:
            tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
                pre_tokenizers.Split(Regex(DIGIT_SPLIT if split_digits else IDENTIFIER_SPLIT), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ])
        else:
            tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tokenizer.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS + placeholder_tokens(number_placeholders),
            min_frequency=2,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
        )
        tokenizer.train_from_iterator(texts, trainer=trainer)
        return cls(tokenizer)

    @classmethod
    def load(cls, directory: str | Path) -> "ProofTokenizer":
        return cls(Tokenizer.from_file(str(Path(directory) / FILE_NAME)))

    def save(self, directory: str | Path) -> None:
        Path(directory).mkdir(parents=True, exist_ok=True)
        self._tok.save(str(Path(directory) / FILE_NAME))

    @property
    def vocab_size(self) -> int:
        return self._tok.get_vocab_size()

    def pieces(self, text: str) -> list[str]:
        """The token strings of `text` (byte-level symbols, `Ġ` for a space): for inspection."""
        return self._tok.encode(text).tokens

    def numbers(self, goal: str | None) -> NumberMap:
        """The goal's number slots (none for a tokenizer without placeholders). Raises if this
        tokenizer has placeholders and no goal is given: its tactics cannot be read without one."""
        if not self.number_placeholders:
            return NumberMap()
        if goal is None:
            raise ValueError("this tokenizer writes numbers as slots of the goal: pass the goal")
        return number_map(goal, self.number_placeholders)

    def encode_tactic(self, tactic: str, max_tokens: int, goal: str | None = None) -> list[int]:
        """Token ids of `tactic` followed by EOS (truncated to `max_tokens` including EOS); with
        placeholders, the goal's numbers in it are written as the goal's slots."""
        if self.number_placeholders:
            tactic = self.numbers(goal).tactic_text(tactic)
        ids = self._tok.encode(tactic).ids[: max_tokens - 1]
        return ids + [self.eos_id]

    def encode_goal(self, goal: str, max_tokens: int, keep: Iterable[str] = ()) -> list[int]:
        """Token ids of `goal` (plus EOS), its numbers as slots if this tokenizer has them. A goal
        over `max_tokens` keeps its target line, then the hypotheses named in `keep` (training
        passes the names its tactic mentions, so the example never asks for a hypothesis the input
        lost), then the nearest other hypotheses; kept lines stay in their order."""
        if self.number_placeholders:
            goal = self.numbers(goal).goal_text(goal)
        ids = self._tok.encode(goal).ids
        if len(ids) < max_tokens:
            return ids + [self.eos_id]
        lines = goal.split("\n")
        target_index = max((i for i, line in enumerate(lines) if line.startswith("⊢")), default=len(lines) - 1)
        target = self._tok.encode("\n".join(lines[target_index:])).ids[: max_tokens - 1]
        budget = max_tokens - 1 - len(target)
        wanted = set(keep)
        nearest_first = list(reversed(range(target_index)))
        named = [i for i in nearest_first if wanted & hypothesis_names(lines[i])]
        chosen: dict[int, list[int]] = {}
        for index in [*named, *(i for i in nearest_first if i not in named)]:
            line_ids = self._tok.encode(lines[index] + "\n").ids
            if len(line_ids) > budget:
                if index in named:
                    continue  # a long named hypothesis does not stop the nearer short ones
                break
            chosen[index] = line_ids
            budget -= len(line_ids)
        return [token for index in sorted(chosen) for token in chosen[index]] + target + [self.eos_id]

    def decode(self, ids: Sequence[int], goal: str | None = None) -> str:
        """Text of `ids`, stopping at the first EOS; padding and unknown dropped. With placeholders
        the slots are filled with `goal`'s numbers; a slot the goal lacks gives "" (no tactic)."""
        out = []
        for token in ids:
            if token == self.eos_id:
                break
            if token not in (self.pad_id, self.unk_id):
                out.append(int(token))
        if not self.number_placeholders:
            return self._tok.decode(out).strip()
        numbers = self.numbers(goal)
        text = self._tok.decode(out, skip_special_tokens=False).strip()
        return numbers.restore(text) or ""


def slotted_texts(pairs: Iterable[tuple[str, str]], number_placeholders: int) -> Iterable[str]:
    """Goal and tactic texts of (goal, tactic) pairs as a tokenizer with placeholders reads them:
    the corpus to train it on."""
    for goal, tactic in pairs:
        if number_placeholders:
            numbers = number_map(goal, number_placeholders)
            goal, tactic = numbers.goal_text(goal), numbers.tactic_text(tactic)
        yield goal
        yield tactic


def hypothesis_names(line: str) -> set[str]:
    """The names a context line declares: `h0 : x > 0` → {h0}; `a, b : R` → {a, b}."""
    head, colon, _ = line.partition(" : ")
    return {name.strip() for name in head.split(",") if name.strip()} if colon else set()


def tactic_identifiers(tactic: str) -> set[str]:
    """The identifiers a tactic mentions (candidates for hypothesis names to keep)."""
    return set(re.findall(r"[A-Za-z_][\w']*", tactic))
