"""The problem factory without Coq: rendering, determinism, the held-out split, closed forms checked
against direct sums, the build's dedup order and dev-subset refusal (with a stand-in elaborator),
the JSONL round trip, config validation and the CLI's exit code on bad input."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from lean_interface.coq.text import split_sentences
from lean_interface.problems.benchmarks import load_benchmark
from lean_interface.problems.factory import FAMILIES, family_named
from lean_interface.problems.factory import build as B
from lean_interface.problems.factory import render as R
from lean_interface.problems.factory import multistep, sums
from lean_interface.problems.factory.surface import MINIF2F_HEADERS
from lean_interface.problems.factory.elaborate import key_from_show
from lean_interface.problems.factory.family import (HELDOUT, HELDOUT_FAMILIES, HELDOUT_SEED_START, ITEM_FIELDS, TRAIN,
                                                    Draft, Family, Item, candidate, split_of, with_definitions)


class TextElaborator:
    """Stand-in for Coq: a statement's key is its text without `Theorem <name>`, spaces normalised;
    statements containing `BAD` do not elaborate."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def keys(self, header: str, statements: list[str]) -> list[str | None]:
        self.calls.append((header, len(statements)))
        return [None if "BAD" in s else " ".join(s.split(" ", 2)[2].split()) for s in statements]


# ---- rendering -------------------------------------------------------------------------------------

def test_literals_are_parenthesised_where_they_must_be() -> None:
    assert [R.literal(v) for v in (3, -3, Fraction(3, 4), Fraction(-3, 4))] == ["3", "(-3)", "(3/4)", "(-3/4)"]
    assert [R.standalone(v) for v in (-3, Fraction(-3, 4))] == ["-3", "-3/4"]
    with pytest.raises(ValueError, match="only R has fractions"):
        R.literal(Fraction(1, 2), "Z")
    with pytest.raises(ValueError, match="nat has no negative"):
        R.literal(-1, "nat")


def test_linear_forms_and_polynomials_read_like_competition_text() -> None:
    assert R.linear([2, -1, 0], ["x", "y", "z"], 5) == "2 * x - y + 5"
    assert R.linear([-1, 3], ["x", "y"], Fraction(-1, 2)) == "-x + 3 * y - (1/2)"
    assert R.linear([0], ["x"], -7) == "-7"
    assert R.linear([0, 0], ["x", "y"]) == "0"
    square = R.poly_mul({(1, 0): 1, (0, 1): -2}, {(1, 0): 1, (0, 1): -2})
    assert R.polynomial(square, ("x", "y"), "Z") == "x^2 - 4 * x * y + 4 * y^2"
    assert R.poly_mul({(1,): 1, (0,): 1}, {(1,): 1, (0,): -1}) == {(2,): 1, (0,): -1}
    with pytest.raises(ValueError, match="nat"):
        R.linear([2, -1], ["a", "b"], 0, "nat")


def test_signature_groups_binders_of_one_type_and_numbers_hypotheses() -> None:
    assert R.signature([("x", "R"), ("y", "R"), ("f", "R -> R")], ["x = y", "f x = 0"], "f y = 0") == \
        "(x y : R) (f : R -> R) (h0 : x = y) (h1 : f x = 0) : f y = 0"
    assert R.signature([], [], "1 = 1") == ": 1 = 1"


# ---- families --------------------------------------------------------------------------------------

def test_catalogue_covers_the_topics_domains_and_is_deterministic() -> None:
    assert len(FAMILIES) >= 10 and len({f.name for f in FAMILIES}) == len(FAMILIES)
    assert {f.domain for f in FAMILIES} >= {"R", "Z", "nat", "nat_list"}
    assert HELDOUT_FAMILIES <= {f.name for f in FAMILIES}
    for family in FAMILIES:
        first = [candidate(family, seed) for seed in range(40)]
        assert first == [candidate(family, seed) for seed in range(40)], family.name
        texts = {c.statement.split(" ", 2)[2] for c in first}
        assert len(texts) >= 30, f"{family.name}: only {len(texts)} distinct of 40"
        for c in first:
            assert c.statement.startswith(f"Theorem fam_{family.name}_{c.seed:05d} ")
            definitions = family.draft(c.seed).definitions       # a local definition follows the header
            headers = [family.header, *dict(MINIF2F_HEADERS[family.domain])]
            assert c.header in [with_definitions(h, definitions) for h in headers], c.header
            assert len(split_sentences(c.statement)) == 1, c.statement
            assert split_sentences(c.proof), c.proof
    with pytest.raises(ValueError, match="no factory family"):
        family_named("nope")


def test_split_is_whole_families_plus_a_seed_block() -> None:
    held_family = sorted(HELDOUT_FAMILIES)[0]
    assert split_of(held_family, 0) == HELDOUT
    assert split_of("vieta", 0) == TRAIN and split_of("vieta", HELDOUT_SEED_START - 1) == TRAIN
    assert split_of("vieta", HELDOUT_SEED_START) == HELDOUT
    config = B.FactoryConfig(scale=0.01, heldout_seeds=3)
    drawn = B.draw(FAMILIES, config)
    splits = [c.split for c in drawn]
    assert splits == sorted(splits, key=lambda s: s != HELDOUT)          # held-out first
    assert all(c.split == HELDOUT for c in drawn if c.family in HELDOUT_FAMILIES)
    assert all(c.seed < HELDOUT_SEED_START for c in drawn if c.family in HELDOUT_FAMILIES)
    assert {c.seed for c in drawn if c.family == "vieta" and c.split == HELDOUT} == \
        {HELDOUT_SEED_START, HELDOUT_SEED_START + 1, HELDOUT_SEED_START + 2}


def test_faulhaber_closed_forms_equal_direct_sums() -> None:
    for k, closed in sums._FAULHABER.items():
        for n in range(12):
            assert sum(Fraction(i) ** k for i in range(n + 1)) == sum(c * n ** p for p, c in closed.items()), (k, n)


def _value(text: str, name: str, value: int) -> Fraction:
    """The factory's arithmetic text (`3 * INR i^2 - (1/2)`) evaluated exactly at `INR name = value`."""
    exact = re.sub(r"\d+", lambda m: f"Fraction({m.group()})", text).replace("^", "**")
    return eval(exact.replace(f"INR {name}", f"Fraction({value})"), {"Fraction": Fraction})  # noqa: S307 - own text


def test_sum_poly_induction_statements_are_true_at_small_n() -> None:
    family = family_named("sum_poly_induction")
    for seed in range(30):
        conclusion = family.draft(seed).conclusion
        body, closed = conclusion.removeprefix("sum_f_R0 (fun i => ").split(") n = ")
        for n in range(6):
            assert sum(_value(body, "i", i) for i in range(n + 1)) == _value(closed, "n", n), (conclusion, n)


# ---- multi-step families ----------------------------------------------------------------------------

MULTISTEP = tuple(f.name for f in multistep.FAMILIES)


def _exact(text: str) -> str:
    """Coq arithmetic text as a Python expression over Fractions: `^` is `**`, `=` is `==`, `/\\` is `and`."""
    text = re.sub(r"\d+", lambda m: f"Fraction({m.group()})", text).replace("^", "**").replace("/\\", " and ")
    return re.sub(r"(?<![<>=])=(?!=)", "==", text)


def test_multistep_families_are_registered_last_as_train_families() -> None:
    assert [f.name for f in FAMILIES[-len(MULTISTEP):]] == list(MULTISTEP)
    assert 4 <= len(MULTISTEP) <= 6 and not set(MULTISTEP) & HELDOUT_FAMILIES
    assert all(split_of(name, 0) == TRAIN and split_of(name, HELDOUT_SEED_START) == HELDOUT for name in MULTISTEP)


def test_multistep_drafts_are_deterministic_distinct_and_take_several_steps() -> None:
    for family in multistep.FAMILIES:
        drafts = [family.draft(seed) for seed in range(200)]
        assert drafts == [family.draft(seed) for seed in range(200)], family.name
        assert len({d.signature() for d in drafts}) >= 170, family.name
        for draft in drafts:
            steps = split_sentences(draft.proof)
            assert len(steps) >= 2 or "induction" in draft.proof, (family.name, draft.proof)
            assert steps[-1].text.endswith(("lra.", "lia.")), draft.proof


def test_fe_families_instantiate_their_equation_in_the_proof() -> None:
    for seed in range(60):
        draft = family_named("fe_instantiate").draft(seed)
        assert draft.hypotheses[0].startswith("forall x") and re.fullmatch(r"f \S+ = \S+", draft.conclusion)
        assert draft.proof.startswith("pose proof (h0 ") and " by ring. lra." in draft.proof
        mirror = family_named("fe_two_points").draft(seed)
        assert len(mirror.hypotheses) == 1 and re.fullmatch(r"f \S+ = \S+", mirror.conclusion)
        assert ("f (- x)" in mirror.hypotheses[0]) != ("x <> 0 -> " in mirror.hypotheses[0] and "f (1 / x)" in
                                                       mirror.hypotheses[0])
        assert mirror.proof.count("pose proof (h0 ") == 2


def test_fe_instantiate_step_values_follow_the_equation() -> None:
    pattern = re.compile(r"forall x, f \(x ([+-]) (\d+)\) = f x ([+-]) \(?([\d/]+)\)?")
    checked = 0
    for seed in range(200):
        draft = family_named("fe_instantiate").draft(seed)
        match = pattern.fullmatch(draft.hypotheses[0])
        if not match:
            continue
        c = Fraction(match[2]) * (1 if match[1] == "+" else -1)
        d = Fraction(match[4]) * (1 if match[3] == "+" else -1)
        t0, v0 = (Fraction(eval(_exact(side), {"Fraction": Fraction})) for side in  # noqa: S307 - own text
                  draft.hypotheses[1].removeprefix("f ").split(" = "))
        point, value = (Fraction(eval(_exact(side), {"Fraction": Fraction})) for side in  # noqa: S307
                        draft.conclusion.removeprefix("f ").split(" = "))
        steps = (point - t0) / c
        assert steps in (2, 3) and value == v0 + steps * d, draft
        checked += 1
    assert checked >= 40


def test_iter_induction_closed_forms_hold_at_small_n() -> None:
    iterate = re.compile(r"Nat\.iter n \(fun k => ([^)]*)\) (\d+)")
    for seed in range(80):
        draft = family_named("iter_induction").draft(seed)
        assert draft.binders == (("n", "nat"),) and draft.proof.startswith("induction n")
        match = iterate.search(draft.conclusion)
        assert match, draft.conclusion
        for n in range(7):
            k = int(match[2])
            for _ in range(n):
                k = eval(match[1], {"k": k})  # noqa: S307 - own text
            closed = iterate.sub(str(k), draft.conclusion).replace("^", "**").replace("=", "==")
            assert eval(closed, {"n": n}), (draft.conclusion, n)  # noqa: S307 - own text


def test_recurrence_unroll_states_the_term_the_recurrence_gives() -> None:
    for seed in range(80):
        draft = family_named("recurrence_unroll").draft(seed)
        *initial, recurrence = draft.hypotheses
        terms = [Fraction(eval(_exact(h.split(" = ")[1]), {"Fraction": Fraction})) for h in initial]  # noqa: S307
        order = len(initial)
        assert recurrence.startswith(f"forall n, a (n + {order})%nat = ")
        step = recurrence.split(" = ")[1].replace("a (n + 1)%nat", "LAST").replace("a n", "PREV")
        target = int(draft.conclusion.split("%nat")[0].removeprefix("a "))
        while len(terms) <= target:
            scope = {"Fraction": Fraction, "PREV": terms[-order], "LAST": terms[-1]}
            terms.append(eval(_exact(step), scope))  # noqa: S307 - own text
        assert Fraction(eval(_exact(draft.conclusion.split(" = ")[1]), {"Fraction": Fraction})) == terms[target]
        assert draft.proof.count("pose proof") == target - order + 1 and "simpl in" in draft.proof


def test_exists_witness_proofs_name_a_witness_that_satisfies_the_statement() -> None:
    for seed in range(120):
        draft = family_named("exists_witness").draft(seed)
        head, body = draft.conclusion.split(" : Z, ")
        names = head.removeprefix("exists ").split()
        witnesses = draft.proof.removeprefix("exists ").split(". ")[0].split(", ")
        assert draft.binders == () and len(names) == len(witnesses), draft
        scope = {"Fraction": Fraction, **{n: Fraction(int(w.strip("()"))) for n, w in zip(names, witnesses)}}
        assert eval(_exact(body), scope), (draft.conclusion, witnesses)  # noqa: S307 - own text
        assert not eval(_exact(body), {**scope, names[0]: scope[names[0]] + 1}), draft.conclusion  # noqa: S307


def test_abs_cases_split_on_every_absolute_value() -> None:
    for seed in range(80):
        draft = family_named("abs_cases").draft(seed)
        text = " ".join([*draft.hypotheses, draft.conclusion])
        arguments = re.findall(r"Rabs \(([^)]*)\)", text)
        assert len(arguments) >= 2 and draft.proof.startswith("unfold Rabs in *.")
        assert re.findall(r"Rcase_abs \(([^)]*)\)", draft.proof) == list(dict.fromkeys(arguments)), draft


# ---- the build with a stand-in elaborator -----------------------------------------------------------

def test_build_deduplicates_in_draw_order_and_groups_by_header() -> None:
    first = Family("echo_a", "test", "R", 2, lambda rng: Draft((), (), "1 = 1", "reflexivity."))
    second = Family("echo_b", "test", "R", 3, lambda rng: Draft((), (), rng.choice(["1 = 1", "2 = 2"]), "ring."))
    elaborator = TextElaborator()
    items, report = B.build([first, second], B.FactoryConfig(heldout_seeds=0), elaborator, refused_keys=set())
    assert items[0].name == "fam_echo_a_00000" and len({i.statement.split(":")[-1] for i in items}) == len(items)
    assert report.candidates == 5 and report.duplicates == 5 - len(items) and report.not_elaborating == 0
    assert report.families["echo_a"] == {"candidates": 2, TRAIN: 1, HELDOUT: 0}
    assert elaborator.calls == [(R.HEADERS["R"], 5)]                 # one header, one call


def test_build_keeps_the_held_out_copy_when_train_repeats_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from lean_interface.problems.factory import family as F

    monkeypatch.setattr(F, "HELDOUT_FAMILIES", frozenset({"echo_held"}))
    monkeypatch.setattr(B, "HELDOUT_FAMILIES", frozenset({"echo_held"}))
    held = Family("echo_held", "test", "R", 1, lambda rng: Draft((), (), "1 = 1", "reflexivity."))
    train = Family("echo_train", "test", "R", 1, lambda rng: Draft((), (), "1 = 1", "reflexivity."))
    items, report = B.build([train, held], B.FactoryConfig(heldout_seeds=0), TextElaborator(), refused_keys=set())
    assert [(i.family, i.split) for i in items] == [("echo_held", HELDOUT)]
    assert report.duplicates == 1 and report.splits == {TRAIN: 0, HELDOUT: 1}


def test_build_refuses_dev_statements_by_text_and_by_key() -> None:
    dev = next(p for p in load_benchmark("minif2f-rocq-dev") if p.name == "mathd_numbertheory_269")
    assert dev.theorem is not None and dev.theorem.header == R.HEADERS["Z"]
    proposition = dev.theorem.statement.split(":", 1)[1].strip().rstrip(".")
    copy = Family("dev_copy", "test", "Z", 1, lambda rng: Draft((), (), proposition, "reflexivity."))
    spaced = Family("dev_spaced", "test", "Z", 1, lambda rng: Draft((), (), "((2005^2) + 1 = 0)", "reflexivity."))
    items, report = B.build([copy, spaced], B.FactoryConfig(heldout_seeds=0), TextElaborator(),
                            refused_keys={": ((2005^2) + 1 = 0)."})
    assert items == [] and report.dev_refused == 2
    assert B.is_dev_text(candidate(copy, 0))


def test_statements_that_do_not_elaborate_are_dropped() -> None:
    family = Family("bad", "test", "R", 3, lambda rng: Draft((), (), "BAD = 1", "reflexivity."))
    items, report = B.build([family], B.FactoryConfig(heldout_seeds=0), TextElaborator(), refused_keys=set())
    assert items == [] and report.not_elaborating == 3


# ---- files and config -------------------------------------------------------------------------------

def test_items_round_trip_and_the_reader_defaults_to_train(tmp_path: Path) -> None:
    items = [Item("fam_a_00000", "a", 0, TRAIN, "H", "Theorem fam_a_00000 : 1 = 1."),
             Item("fam_a_90000", "a", 90000, HELDOUT, "H", "Theorem fam_a_90000 : 2 = 2.")]
    path = tmp_path / "out" / "f.jsonl"
    summary = B.write_items(items, path, B.BuildReport(items=2))
    assert summary == tmp_path / "out" / "f.summary.json" and json.loads(summary.read_text())["items"] == 2
    assert list(json.loads(path.read_text().splitlines()[0])) == list(ITEM_FIELDS)
    assert B.read_items(path) == items[:1]
    assert B.read_items(path, split=None) == items
    assert B.read_items(path, split=HELDOUT) == items[1:]
    path.write_text(path.read_text() + '{"name": "x"}\n')
    with pytest.raises(ValueError, match=r"f.jsonl:3: not a factory item"):
        B.read_items(path)
    with pytest.raises(ValueError, match="split must be"):
        B.read_items(path, split="test")


def test_config_validation_is_one_line() -> None:
    assert B.FactoryConfig.from_dict({"families": ["vieta"], "scale": 0.5}).families == ("vieta",)
    assert B.FactoryConfig.from_dict({"families": "vieta"}).families == ("vieta",)
    with pytest.raises(ValueError, match="held-out seed block"):
        B.seeds_of(family_named("vieta"), B.FactoryConfig(scale=1000.0))
    for bad, message in (({"scale": 0}, "scale must be positive"), ({"chunk": 0}, "chunk must be"),
                         ({"heldout_seeds": -1}, "heldout_seeds"), ({"colour": 1}, "unknown factory option"),
                         ({"out": ""}, "out must name")):
        with pytest.raises(ValueError, match=message) as caught:
            B.FactoryConfig.from_dict(bad)
        assert "\n" not in str(caught.value)


def test_key_from_show_reads_one_closed_goal_only() -> None:
    assert key_from_show("1 goal (ID 3)\n  \n  ============================\n  forall x : R,\n   x = x") == \
        "forall x : R, x = x"
    assert key_from_show("1 goal (ID 3)\n  \n  x : R\n  ============================\n  x = x") is None
    assert key_from_show("2 goals (ID 3)\n  ============================\n  True") is None
    assert key_from_show("") is None


def test_cli_bad_input_is_one_line_and_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    from alphaprover.cli import main

    for argv in (["factory", "scale=-1"], ["factory", "families=[nope]"], ["factory", "no_such_key=1"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("alphaprover: error:") and "\n" not in err, err


def test_build_refuses_a_test_split_statement_by_text() -> None:
    test = next(p for p in load_benchmark("minif2f-rocq-test") if p.theorem is not None
                and p.theorem.header in R.HEADERS.values())
    proposition = test.theorem.statement.split(":", 1)[1].strip().rstrip(".")
    domain = next(d for d, header in R.HEADERS.items() if header == test.theorem.header)
    copy = Family("test_copy", "test", domain, 1, lambda rng: Draft((), (), proposition, "reflexivity."))
    assert B.is_dev_text(candidate(copy, 0))
    items, report = B.build([copy], B.FactoryConfig(heldout_seeds=0), TextElaborator(), refused_keys=set())
    assert items == [] and report.dev_refused == 1
