"""ttrl.variants / ttrl.statement without Coq: text helpers, generators on hand-built statements,
selection with a stand-in env, the language-model path without a network."""

from __future__ import annotations

import io
import json

import pytest

from lean_interface.api import EnvError, Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict
from ttrl import generators as G
from ttrl import llm_variants as L
from ttrl import variants as V
from ttrl.llm_variants import parse_theorem_statements
from ttrl.statement import (Binder, Statement, bound_names, comparison, conjuncts, iff_sides, numeral_spans,
                            parenthesise, parse_goal_text, similarity, substitute, unwrap)
from ttrl.statement import declaration_parts as parse_declaration

TARGET = Theorem("t", "Require Import Reals.\nOpen Scope R_scope.", "Theorem t : forall a b : R, a * b <= 1.")


def stmt(binders: list[tuple[str, str, bool]], conclusion: str) -> Statement:
    return Statement(tuple(Binder(n, t, p) for n, t, p in binders), conclusion)


# ---- text helpers ---------------------------------------------------------------------------------

def test_conjuncts_split_only_at_top_level_and_respect_precedence() -> None:
    assert conjuncts("0 < a /\\ b ^ 2 < a ^ 2 < 3 * b ^ 2") == ["0 < a", "b ^ 2 < a ^ 2", "a ^ 2 < 3 * b ^ 2"]
    assert conjuncts("1 <= a <= 9") == ["1 <= a", "a <= 9"]
    assert conjuncts("(1 < a /\\ 1 < b)%nat") == ["(1 < a)%nat", "(1 < b)%nat"]
    assert conjuncts("~ P /\\ Q") == ["~ P", "Q"]
    assert conjuncts("A \\/ B /\\ C") == ["A \\/ B /\\ C"]          # \/ is looser: not a conjunction
    assert conjuncts("(A /\\ B) -> C") == ["(A /\\ B) -> C"]
    assert conjuncts("A /\\ exists x, B /\\ C") == ["A", "exists x, B /\\ C"]
    assert conjuncts("x = y <= z") == ["x = y <= z"]                  # not a chain Coq defines
    assert conjuncts("f (a /\\ b)") == ["f (a /\\ b)"]


def test_iff_sides() -> None:
    assert iff_sides("(Z.pos p | n) <-> (n * n) mod Z.pos p = 0") == ("(Z.pos p | n)", "(n * n) mod Z.pos p = 0")
    assert iff_sides("A <-> B -> C") is None                          # (A <-> B) -> C
    assert iff_sides("forall x, A x <-> B x") is None
    assert iff_sides("A /\\ B") is None


def test_comparison_and_unwrap() -> None:
    cmp = comparison("(x < 3)%nat")
    assert (cmp.left, cmp.op, cmp.right, cmp.scope) == ("x", "<", "3", "%nat")
    assert comparison("0 <= a <= 9") is None and comparison("A /\\ x = 1") is None
    assert comparison("exists k, x = k") is None
    assert unwrap("(a) + (b)") == ("(a) + (b)", "")
    assert parenthesise("x") == "x" and parenthesise("(a + b)") == "(a + b)"
    assert parenthesise("(a) + (b)") == "((a) + (b))" and parenthesise("0 < x") == "(0 < x)"


def test_numerals_substitution_and_bound_names() -> None:
    text = "s 9%nat = 110 + Nat.x x"
    assert [text[s:e] for s, e in numeral_spans(text)] == ["9%nat", "110"]
    assert substitute(text, "x", "(2%R)") == "s 9%nat = 110 + Nat.x (2%R)"
    assert bound_names("forall n : nat, f n = 0 /\\ exists ! k : nat, k = m") == {"n", "nat", "k"}
    assert bound_names("fun x => x + y") == {"x"}


def test_similarity_is_a_multiset_jaccard_in_unit_interval() -> None:
    assert similarity("a <= 1", "a <= 1") == 1.0
    assert similarity("(a <= 1)", "a <= 1") == 1.0                   # brackets are layout
    assert similarity("a <= 1", "b > 2") == 0.0
    assert similarity("x + x = 1", "x = 1") == pytest.approx(3 / 5)
    assert 0.0 <= similarity("forall x : R, x = 1", "") <= 1.0


def test_parse_goal_text() -> None:
    entries, conclusion = parse_goal_text("x, y : R\nh₀ : 0 < x /\\ 0 < y\nz := x + y : R\n⊢ x * y <= z")
    assert entries == [(["x", "y"], "R", None), (["h₀"], "0 < x /\\ 0 < y", None), (["z"], "R", "x + y")]
    assert conclusion == "x * y <= z"
    with pytest.raises(ValueError):
        parse_goal_text("⊢ ?n = 0\n\n⊢ 0 = ?n")
    with pytest.raises(ValueError):
        parse_goal_text("x : R")


def test_render_groups_variables_and_turns_hypotheses_into_implications() -> None:
    s = Statement((Binder("a", "R"), Binder("b", "R"), Binder("f", "R -> R"), Binder("H", "0 < a", True),
                   Binder("n", "nat"), Binder("z", "R", body="a + b"), Binder("H0", "f z = 1", True)), "f a <= b")
    assert s.render() == ("forall (a b : R) (f : R -> R), (0 < a) -> forall (n : nat), let z : R := a + b in "
                          "(f z = 1) -> f a <= b")
    named = stmt([("x", "R", False), ("H", "0 < x", True)], "g x H = 0")
    assert named.render() == "forall (x : R) (H : 0 < x), g x H = 0"
    assert stmt([], "1 = 1").render() == "1 = 1"


# ---- generators on hand-built statements -------------------------------------------------------

UNIT = stmt([("a", "R", False), ("b", "R", False), ("H", "a ^ 2 + b ^ 2 = 2", True)], "a * b <= 1")


def kinds_and_props(variants: list[V.Variant]) -> list[tuple[str, str]]:
    return [(v.kind, v.proposition) for v in variants]


def test_specialise_substitutes_and_fix_variable_adds_a_hypothesis() -> None:
    spec = V.specialise(TARGET, UNIT, values=(2,))
    assert kinds_and_props(spec) == [
        ("specialise", "forall (b : R), ((2%R) ^ 2 + b ^ 2 = 2) -> (2%R) * b <= 1"),
        ("specialise", "forall (a : R), (a ^ 2 + (2%R) ^ 2 = 2) -> a * (2%R) <= 1")]
    fixed = V.fix_variable(TARGET, UNIT, values=(0,))
    assert [v.proposition for v in fixed] == ["forall (a b : R), (a = 0%R) -> (a ^ 2 + b ^ 2 = 2) -> a * b <= 1",
                                              "forall (a b : R), (b = 0%R) -> (a ^ 2 + b ^ 2 = 2) -> a * b <= 1"]
    # a variable also bound inside the statement is not substituted (it would be captured)
    shadow = stmt([("x", "nat", False), ("H", "forall x : nat, f x = 0", True)], "f x = 0")
    assert V.specialise(TARGET, shadow) == []
    assert V.specialise(TARGET, stmt([("f", "R -> R", False)], "f 0 = 0")) == []


def test_drop_hypothesis_and_split_hypotheses() -> None:
    s = stmt([("a", "nat", False), ("H", "1 <= a <= 9", True), ("H0", "a * a = 9", True)], "a = 3")
    dropped = [v.proposition for v in V.drop_hypothesis(TARGET, s)]
    assert dropped == ["forall (a : nat), (a * a = 9) -> a = 3",
                       "forall (a : nat), (a <= 9) -> (a * a = 9) -> a = 3",
                       "forall (a : nat), (1 <= a) -> (a * a = 9) -> a = 3",
                       "forall (a : nat), (1 <= a <= 9) -> a = 3"]
    split = V.split_hypotheses(TARGET, s)
    assert [v.proposition for v in split] == ["forall (a : nat), (1 <= a) -> (a <= 9) -> (a * a = 9) -> a = 3"]
    # a hypothesis that a later part names is kept
    named = stmt([("x", "R", False), ("H", "0 < x", True)], "g x H = 0")
    assert V.drop_hypothesis(TARGET, named) == []


def test_split_conclusion_conjuncts_and_iff_directions() -> None:
    s = stmt([("x", "R", False), ("H", "x ^ 2 = 4", True)], "x >= -2 /\\ x <= 2")
    assert [v.proposition for v in V.split_conclusion(TARGET, s)] == [
        "forall (x : R), (x ^ 2 = 4) -> x >= -2", "forall (x : R), (x ^ 2 = 4) -> x <= 2"]
    iff = stmt([("n", "Z", False)], "P n <-> Q n")
    assert [v.proposition for v in V.split_conclusion(TARGET, iff)] == [
        "forall (n : Z), (P n) -> Q n", "forall (n : Z), (Q n) -> P n"]
    assert V.split_conclusion(TARGET, stmt([], "x = 1")) == []


def test_change_inequality_both_directions() -> None:
    out = {(v.proposition.rsplit("-> ", 1)[1], v.description.split(":")[0]) for v in V.change_inequality(TARGET, UNIT)}
    assert out == {("a * b < 1", "conclusion stronger"), ("a * b <= 2", "conclusion weaker"),
                   ("a * b <= 0", "conclusion stronger")}
    ge = {v.proposition for v in V.change_inequality(TARGET, stmt([], "5 > x"))}
    assert ge == {"5 >= x", "6 > x", "4 > x"}
    # `=` is polymorphic but `<=` is not: an order on Z under R_scope is read in Z
    assert [new for new, _ in G._inequality_changes("n = (-4)%Z")] == ["(n <= (-4)%Z)%Z", "(n >= (-4)%Z)%Z"]
    eq = V.change_inequality(TARGET, stmt([], "x = 15 /\\ y = -11"))
    assert {v.proposition for v in eq} == {"(x <= 15) /\\ (y = -11)", "(x >= 15) /\\ (y = -11)",
                                           "(x = 15) /\\ (y <= -11)", "(x = 15) /\\ (y >= -11)"}


def test_generalise_one_numeral_at_a_time_with_a_fresh_name() -> None:
    s = stmt([("c", "R", False), ("H", "c = 2", True)], "c * 3 = 6%R")
    props = [v.proposition for v in V.generalise(TARGET, s)]
    assert props == ["forall (c0 : _) (c : R), (c = 2) -> c * c0 = 6%R",
                     "forall (c0 : _) (c : R), (c = 2) -> c * 3 = c0",
                     "forall (c0 : _) (c : R), (c = c0) -> c * 3 = 6%R"]
    assert len(V.generalise(TARGET, s, max_numerals=1)) == 1


def test_every_generator_names_its_kind_and_scores_in_unit_interval() -> None:
    for generator in V.GENERATORS:
        for variant in generator(TARGET, UNIT):
            assert variant.kind == generator.__name__
            assert 0.0 <= variant.similarity < 1.0
            assert variant.theorem.header == TARGET.header


def test_variant_round_trips_through_a_dict() -> None:
    variant = V.specialise(TARGET, UNIT, values=(1,))[0]
    data = json.loads(json.dumps(variant.to_dict()))
    assert V.Variant.from_dict(data) == variant


# ---- selection with a stand-in env --------------------------------------------------------------

class PrintEnv(ProofEnv):
    """`start` 'prints' a statement by squeezing spaces and dropping `%R`; refuses any 'bad'."""

    def __init__(self) -> None:
        self.started: list[str] = []

    def start(self, theorem: Theorem) -> Goal:
        self.started.append(theorem.statement)
        prop = G._proposition_of(theorem.statement)
        if "bad" in prop:
            raise EnvError("does not elaborate")
        return Goal("⊢ " + prop.replace("%R", "").replace("(", "").replace(")", ""), None)

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        return TacticResult(error="unused")

    def render(self, theorem: Theorem, proof: ProofStep) -> str:
        return ""

    def verify(self, theorem: Theorem, script: str) -> Verdict:
        return Verdict(False)


def test_select_elaborates_dedups_excludes_ranks_and_names() -> None:
    reference = "a * b <= 1"
    make = lambda prop, kind="specialise": V.make_variant(TARGET, prop, kind, "d", reference)  # noqa: E731
    candidates = [make("a * b <= 2%R"), make("a * b <= (2)"), make("bad <= 1"), make("a * b <= 1%R"),
                  make("a * b < 1", "change_inequality"), make("x = 1")]
    env, counts = PrintEnv(), V.Counts()
    out = V.select(TARGET, candidates, env, 2, "t_v", reference, exclude=["⊢ a * b <= 1"], counts=counts)
    assert (counts.candidates, counts.elaborated, counts.unique, counts.kept) == (6, 5, 3, 2)
    assert [v.theorem.name for v in out] == ["t_v1", "t_v2"]
    assert [v.proposition for v in out] == ["a * b < 1", "a * b <= 2%R"]   # ties: kind order
    assert out[0].theorem.statement == "Theorem t_v1 : a * b < 1."
    assert all(0.0 <= v.similarity <= 1.0 for v in out)


def test_unsafe_candidates_never_reach_coq() -> None:
    env = PrintEnv()
    for prop in ["True. Axiom x : False", "(* hidden *) True", "ltac:(exact I) = I", "\"s\" = \"s\""]:
        assert V.elaborates(env, V.make_variant(TARGET, prop, "llm", "", "")) is None
    assert env.started == []


class IntroEnv(PrintEnv):
    """PrintEnv whose `intros` makes no progress and whose every hypothesis is a proposition."""

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        return TacticResult(error="no progress") if tactic == V.INTRO_TACTIC else TacticResult(goals=(goal,))


def test_from_subgoals_drops_a_bare_false_goal() -> None:
    texts = ["⊢ False", "H : 0 < a\n⊢ False", "⊢ a * b <= 2"]
    out = V.from_subgoals(TARGET, texts, env=IntroEnv())
    assert [v.proposition for v in out] == ["a * b <= 2", "forall H : 0 < a, False"]
    assert [v.theorem.name for v in out] == ["t_sg1", "t_sg2"] and all(v.kind == "subgoal" for v in out)


# ---- language model -------------------------------------------------------------------------------

REPLY = """Here are some variants:

```coq
Theorem v1 : forall a b : R, a ^ 2 + b ^ 2 = 2 -> a * b < 1.
Lemma v2 (a : R) (h : 0 <= a) : a * a >= 0.
```
1. Theorem v3: forall x : R, (x - 1) ^ 2 >= 0. (* obvious *)
Proof. nra. Qed.
Theorem broken : forall x, x = x
"""


def test_parse_theorem_statements_from_a_reply() -> None:
    assert parse_theorem_statements(REPLY) == [
        "Theorem v1 : forall a b : R, a ^ 2 + b ^ 2 = 2 -> a * b < 1.",
        "Lemma v2 (a : R) (h : 0 <= a) : a * a >= 0.",
        "Theorem v3: forall x : R, (x - 1) ^ 2 >= 0."]
    assert parse_declaration("Lemma v2 (a : R) (h : 0 <= a) : a * a >= 0.") == ("(a : R) (h : 0 <= a)", "a * a >= 0")
    assert parse_declaration("Theorem v : forall x : R, x = x.") == ("", "forall x : R, x = x")
    assert parse_declaration("Theorem v x = y : P.") is None


def test_llm_variants_off_without_endpoint() -> None:
    assert V.llm_variants(TARGET) == []
    assert V.llm_variants(TARGET, endpoint=None, model="m", n=4, env=PrintEnv()) == []


def test_llm_request_and_reply_parsing_without_network(monkeypatch: pytest.MonkeyPatch) -> None:
    sent = {}

    def fake_urlopen(request, timeout):  # noqa: ANN001
        sent["url"], sent["body"] = request.full_url, json.loads(request.data)
        return io.BytesIO(json.dumps({"choices": [{"message": {"content": REPLY}}]}).encode())

    monkeypatch.setattr(L.urllib.request, "urlopen", fake_urlopen)
    out = L.llm_candidates(TARGET, "http://model.invalid/", "tiny", 3, "a * b <= 1")
    assert sent["url"] == "http://model.invalid/v1/chat/completions" and sent["body"]["model"] == "tiny"
    assert [v.proposition for v in out] == ["forall a b : R, a ^ 2 + b ^ 2 = 2 -> a * b < 1",
                                            "forall (a : R) (h : 0 <= a), a * a >= 0",
                                            "forall x : R, (x - 1) ^ 2 >= 0"]
    assert all(v.kind == "llm" for v in out)

    def failing(request, timeout):  # noqa: ANN001
        raise L.urllib.error.URLError("unreachable")

    monkeypatch.setattr(L.urllib.request, "urlopen", failing)
    assert L.llm_candidates(TARGET, "http://model.invalid", "tiny", 3, "") == []


# ---- bridges: instances of a quantified hypothesis ---------------------------------------------------

def test_forall_binders_reads_coq_printed_binders() -> None:
    assert G.forall_binders("forall n : nat, s (S (S n)) = s (S n) + s n") == (
        [("n", "nat")], "s (S (S n)) = s (S n) + s n")
    assert G.forall_binders("forall (x y : R) (n : nat), f (x + y) = f x") == (
        [("x", "R"), ("y", "R"), ("n", "nat")], "f (x + y) = f x")
    assert G.forall_binders("forall n m : nat, n = m") == ([("n", "nat"), ("m", "nat")], "n = m")
    assert G.forall_binders("exists n : nat, n = 1") is None
    assert G.forall_binders("f 1 = 2") is None
    assert G.forall_binders("forall (x : R) junk, x = 1") is None


def test_instantiation_bridges_single_values_and_the_unrolled_range() -> None:
    recurrence = stmt([("s", "nat -> R", False), ("h0", "forall n : nat, s (S (S n)) = s (S n) + s n", True),
                       ("h1", "s 5 = 8", True)], "s 3 = 3")
    bridges = G.instantiation_bridges(recurrence)
    tactics = [t for t, _ in bridges]
    # 0, 1, 2, then the statement's own numerals (5, 8, 3), at most MAX_SINGLE_INSTANCES of them
    assert tactics[:G.MAX_SINGLE_INSTANCES] == [
        "pose proof (h0 (0%nat)) as h0_i", "pose proof (h0 (1%nat)) as h0_i", "pose proof (h0 (2%nat)) as h0_i",
        "pose proof (h0 (5%nat)) as h0_i", "pose proof (h0 (8%nat)) as h0_i", "pose proof (h0 (3%nat)) as h0_i"]
    unrolled, description = bridges[-1]
    assert description == "h0 instantiated at every value 0..8"
    assert unrolled.count("pose proof") == 9 and "(h0 (8%nat)) as h0_i_7" in unrolled
    # real-valued functional equation: 0, 1, the statement's real variables, then its numerals
    functional = stmt([("f", "R -> R", False), ("x", "R", False), ("h", "forall y : R, f y = 2 * y + 3", True)],
                      "f x = 7")
    values = [t.split("(h ")[1].split(") as")[0] for t, _ in G.instantiation_bridges(functional)]
    assert values == ["(0%R)", "(1%R)", "x", "(2%R)", "(3%R)", "(7%R)"]   # capped at 6; no range for R
    assert G.instantiation_bridges(stmt([("n", "nat", False), ("h", "n > 0", True)], "n >= 1")) == []
    assert G.instantiation_bridges(stmt([("P", "nat -> Prop", False), ("h", "forall n : P 0, True", True)],
                                        "True")) == []


def test_a_bridged_variant_round_trips_through_json() -> None:
    import dataclasses
    bridged = dataclasses.replace(G.make_variant(TARGET, "forall a : R, a = 1", "instantiate", "d", "a"),
                                  goal="a : R\n⊢ a = 1", bridge="intros; pose proof (h 1) as h_i", origin="⊢ x")
    assert G.Variant.from_dict(bridged.to_dict()) == bridged
    plain = G.make_variant(TARGET, "1 = 1", "specialise", "d", "a")
    assert "bridge" not in plain.to_dict() and G.Variant.from_dict(plain.to_dict()) == plain
