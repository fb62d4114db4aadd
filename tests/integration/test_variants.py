"""ttrl.variants on real Coq and real miniF2F-rocq *train* problems (never the dev subset): every
generator's variants elaborate, are distinct, differ from the target, score in [0, 1]."""

from __future__ import annotations

import io
import json
import re

import pytest

from lean_interface.api import EnvError, Theorem
from lean_interface.coq import CoqEnv
from lean_interface.problems.benchmarks import is_dev_problem, load_benchmark
from ttrl import llm_variants as L
from ttrl import variants as V
from ttrl.statement import normalise

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=10.0) as coq:
        yield coq


@pytest.fixture(scope="module")
def train() -> dict[str, Theorem]:
    return {p.name: p.theorem for p in load_benchmark("minif2f-rocq-train") if p.theorem is not None}


def problem(train: dict[str, Theorem], name: str) -> Theorem:
    assert not is_dev_problem(name), f"{name} is in the dev subset: measuring only"
    return train[name]


def check(env: CoqEnv, target: Theorem, variants: list[V.Variant], prefix: str = "_v") -> dict[str, list[str]]:
    """Every variant elaborates on its own, prints unlike the target and unlike every other one,
    scores in [0, 1], keeps the header; names are unique. Returns propositions by kind."""
    statement = V.faithful_statement(target, env)
    target_keys = {normalise(env.start(target).text)}
    if statement is not None:
        rebuilt = V.make_variant(target, statement.render(), "target", "", "")
        target_keys.add(normalise(env.start(rebuilt.theorem).text))
    seen: set[str] = set()
    by_kind: dict[str, list[str]] = {}
    for variant in variants:
        assert variant.theorem.header == target.header
        assert re.fullmatch(re.escape(target.name + prefix) + r"\d+", variant.theorem.name)
        assert variant.theorem.statement.startswith(f"Theorem {variant.theorem.name} : ")
        key = normalise(env.start(variant.theorem).text)          # raises EnvError if it does not elaborate
        assert key not in target_keys and key not in seen
        seen.add(key)
        assert 0.0 <= variant.similarity <= 1.0
        by_kind.setdefault(variant.kind, []).append(variant.proposition)
    assert len({v.theorem.name for v in variants}) == len(variants)
    return by_kind


#: (train problem, kinds it must produce, one proposition it must produce)
CASES = [
    ("algebra_sqineq_2unitcircatblt1",
     {"specialise", "fix_variable", "drop_hypothesis", "change_inequality", "generalise"},
     "forall (c : nat) (a b : R), (a ^ c + b ^ 2 = 2) -> a * b <= 1"),          # c's type inferred by Coq
    ("amc12_2001_p2", {"split_hypotheses", "drop_hypothesis", "specialise"},
     "forall (a b n : nat), (1 <= a) -> (a <= 9) -> (0 <= b) -> (b <= 9) -> (n = 10 * a + b) -> "
     "(n = a * b + a + b) -> b = 9"),
    ("numbertheory_prmdvsneqnsqmodpeq0", {"split_conclusion", "drop_hypothesis"},
     "forall (n : Z) (p : positive), (prime (Z.pos p)) -> (Z.pos p | n) -> (n * n) mod Z.pos p = 0"),
    ("imo_1961_p1", {"split_conclusion", "drop_hypothesis"},
     "forall (x y z a b : R), (0 < x) -> (0 < y) -> (0 < z) -> (x <> y) -> (y <> z) -> (z <> x) -> "
     "(x + y + z = a) -> (x ^ 2 + y ^ 2 + z ^ 2 = b ^ 2) -> (x * y = z ^ 2) -> a ^ 2 < 3 * b ^ 2"),
    ("mathd_algebra_126", {"split_conclusion", "change_inequality", "generalise"},
     "forall (x y : R), (2 * 3 = x - 9) -> (2 * -5 = y + 1) -> y = -11"),
]


@pytest.mark.parametrize("name,kinds,example", CASES, ids=[c[0] for c in CASES])
def test_generators_on_train_problems(env: CoqEnv, train: dict[str, Theorem], name: str, kinds: set[str],
                                      example: str) -> None:
    target = problem(train, name)
    counts = V.Counts()
    variants = V.generate_variants(target, max_variants=64, env=env, counts=counts)
    assert counts.candidates >= counts.elaborated >= counts.unique >= counts.kept == len(variants) > 0
    by_kind = check(env, target, variants)
    assert kinds <= set(by_kind)
    assert any(example in props for props in by_kind.values())
    similarities = [v.similarity for v in variants]
    assert similarities == sorted(similarities, reverse=True)


def test_a_sample_of_train_problems(env: CoqEnv, train: dict[str, Theorem]) -> None:
    """Every 24th train problem: its rendering is faithful, nearly every candidate elaborates."""
    totals = V.Counts()
    for name in sorted(train)[::24]:
        target = problem(train, name)
        try:
            assert V.faithful_statement(target, env) is not None, name
        except EnvError:
            continue                                              # the problem itself does not elaborate
        variants = V.generate_variants(target, max_variants=16, env=env, counts=totals)
        check(env, target, variants)
    assert totals.kept > 0 and totals.elaborated >= 0.9 * totals.candidates


def test_a_false_variant_is_produced_and_elaborates(env: CoqEnv, train: dict[str, Theorem]) -> None:
    # a^2 + b^2 = 2 -> a * b <= 1 is true with equality at a = b = 1, so the strict version is false
    target = problem(train, "algebra_sqineq_2unitcircatblt1")
    variants = V.generate_variants(target, env=env)
    false = [v for v in variants if v.proposition == "forall (a b : R), (a ^ 2 + b ^ 2 = 2) -> a * b < 1"]
    assert len(false) == 1 and false[0].kind == "change_inequality" and "stronger" in false[0].description
    env.start(false[0].theorem)                                   # elaborates; not proved or disproved here


def test_vacuous_variants_are_dropped(env: CoqEnv, train: dict[str, Theorem]) -> None:
    # 2 * 3 = x - 9 fixes x = 15: every specialisation or fixing of x contradicts that hypothesis
    target = problem(train, "mathd_algebra_126")
    counts = V.Counts()
    variants = V.generate_variants(target, max_variants=64, env=env, counts=counts)
    assert counts.vacuous >= 8 and counts.unique == counts.elaborated - counts.vacuous == len(variants)
    assert not {"specialise", "fix_variable"} & {v.kind for v in variants}
    vacuous = V.make_variant(target, "forall (y : R), (2 * 3 = 2 - 9) -> (2 * -5 = y + 1) -> 2 = 15 /\\ y = -11",
                             "specialise", "", "")
    assert V.vacuous(env, env.start(vacuous.theorem))
    assert not V.vacuous(env, env.start(variants[0].theorem))
    false = V.make_variant(target, "forall (x y : R), (2 * -5 = y + 1) -> x = 15", "drop_hypothesis", "", "")
    assert not V.vacuous(env, env.start(false.theorem))           # false, not vacuous: left to (dis)proof


def test_deterministic_and_capped(env: CoqEnv, train: dict[str, Theorem]) -> None:
    target = problem(train, "imo_1961_p1")
    first = V.generate_variants(target, max_variants=10, env=env)
    assert len(first) == 10
    assert V.generate_variants(target, max_variants=10, env=env) == first
    assert [v.theorem.name for v in first] == [f"imo_1961_p1_v{i}" for i in range(1, 11)]


def test_from_subgoals_closes_open_goals(env: CoqEnv, train: dict[str, Theorem]) -> None:
    target = problem(train, "imo_1964_p1_2")
    result = env.apply(env.start(target), "intros n; induction n")
    texts = [goal.text for goal in result.goals]
    assert texts[1] == "n : nat\nIHn : ~ Nat.divide 7 (2 ^ n + 1)\n⊢ ~ Nat.divide 7 (2 ^ S n + 1)"
    variants = V.from_subgoals(target, [*texts, texts[0], "⊢ ?n = 0\n\n⊢ 0 = ?n"], env=env)
    by_kind = check(env, target, variants, prefix="_sg")
    assert sorted(by_kind["subgoal"]) == sorted([
        "forall (n : nat), (~ Nat.divide 7 (2 ^ n + 1)) -> ~ Nat.divide 7 (2 ^ S n + 1)",  # IHn: a hypothesis
        "~ Nat.divide 7 (2 ^ 0 + 1)"])


def test_from_subgoals_removes_duplicates_up_to_hypothesis_names(env: CoqEnv, train: dict[str, Theorem]) -> None:
    target = problem(train, "imo_1964_p1_2")
    texts = ["x : nat\nH : x = 1\n⊢ x + 0 = 1", "x : nat\nh : x = 1\n⊢ x + 0 = 1", "y : nat\n⊢ y = y"]
    counts = V.Counts()
    variants = V.from_subgoals(target, texts, env=env, counts=counts)
    assert (counts.candidates, counts.elaborated, counts.unique) == (3, 3, 2)
    assert [v.proposition for v in variants] == ["forall (x : nat), (x = 1) -> x + 0 = 1", "forall (y : nat), y = y"]


def test_language_model_statements_are_elaborated_and_deduplicated(env: CoqEnv, train: dict[str, Theorem],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    target = problem(train, "algebra_sqineq_2unitcircatblt1")
    reply = ("Theorem a : forall a b : R, a ^ 2 + b ^ 2 = 2 -> a * b < 1.\n"
             "Theorem same : forall a b : R, a^2 + b^2 = 2 -> a * b <= 1.\n"          # the target itself
             "Lemma b (x : R) (h : 0 <= x) : x * x >= 0.\n"
             "Theorem c : forall x : real_number, x = x.\n")                         # does not elaborate

    def fake_urlopen(request, timeout):  # noqa: ANN001  (no network in tests)
        return io.BytesIO(json.dumps({"choices": [{"message": {"content": reply}}]}).encode())

    monkeypatch.setattr(L.urllib.request, "urlopen", fake_urlopen)
    counts = V.Counts()
    variants = V.llm_variants(target, endpoint="http://model.invalid", model="m", n=4, env=env, counts=counts)
    assert (counts.candidates, counts.elaborated, counts.unique) == (4, 3, 2)
    assert {v.proposition for v in variants} == {"forall a b : R, a ^ 2 + b ^ 2 = 2 -> a * b < 1",
                                                 "forall (x : R) (h : 0 <= x), x * x >= 0"}
    check(env, target, variants, prefix="_lm")


def test_target_that_does_not_elaborate_is_an_env_error(env: CoqEnv) -> None:
    bad = Theorem("bad", "Require Import Reals.", "Theorem bad : forall x : real_number, x = x.")
    with pytest.raises(EnvError):
        V.generate_variants(bad, env=env)


def test_subgoal_theorems_turn_a_failed_search_s_open_goals_into_loop_problems(env: CoqEnv, train: dict[str, Theorem],
                                                                             tmp_path) -> None:
    """Expert iteration's subgoal problems (`selfplay.subgoals`) on real Coq: the open goals of a
    train problem become problems that elaborate under its header, whose goal after `intros` has
    the open goal's conclusion; the maker's CoqEnv is closed after the round's harvest."""
    from selfplay.actor import SourceProblem
    from selfplay.subgoals import SubgoalHarvester, SubgoalStore

    target = problem(train, "imo_1964_p1_2")
    texts = [goal.text for goal in env.apply(env.start(target), "intros n; induction n").goals]
    source = SourceProblem("minif2f-rocq-train/imo_1964_p1_2", "minif2f-rocq-train", target)
    maker = V.SubgoalTheorems()
    harvester = SubgoalHarvester(SubgoalStore(tmp_path / "subgoals.jsonl"), maker, ["minif2f-rocq-train"], 2, 4)
    rows = [{"problem": source.id, "proved": False, "outcome": "failed", "open_leads": texts}]
    made = harvester.harvest(3, rows, {source.id: source}, set())
    assert sorted(p.id for p in made) == ["subgoals/imo_1964_p1_2_sg3_1", "subgoals/imo_1964_p1_2_sg3_2"]
    assert maker._env is None
    conclusions = {text.rpartition("⊢ ")[2] for text in texts}
    for made_problem in made:
        assert made_problem.theorem.header == target.header
        root = env.start(made_problem.theorem)
        introduced = env.apply(root, "intros")      # "no progress" on a statement without binders
        (goal,) = introduced.goals if introduced.error is None else (root,)
        assert goal.text.rpartition("⊢ ")[2] in conclusions


def test_a_proved_subgoal_problem_closes_the_goal_it_came_from_in_the_target(env: CoqEnv, train: dict[str, Theorem],
                                                                          tmp_path) -> None:
    """Expert iteration's subgoal lemmas on real Coq: a subgoal problem's proof, recorded by
    `ttrl.lemmas.SubgoalLemmas`, closes the open goal it came from in the target's own proof."""
    from ttrl.lemmas import LemmaTable, SubgoalLemmas

    target = problem(train, "imo_1964_p1_2")
    base_case, _ = env.apply(env.start(target), "intros n; induction n").goals
    ((theorem, goal),) = V.SubgoalTheorems()(target, [base_case.text], "imo_1964_p1_2_sg1_")
    script = "intros [k Hk]; lia."
    assert env.apply(env.start(theorem), script).goals == ()            # the subgoal problem, proved
    assert SubgoalLemmas(tmp_path / "lemmas.json")(theorem, goal, script)
    (tactic,) = LemmaTable(tmp_path / "lemmas.json").tactics_for(base_case.text)
    closed = env.apply(base_case, tactic)
    assert closed.error is None and closed.goals == ()
