"""selfplay.sources without Coq: spec parsing, library-file parsing (headers, sections, modules,
in-file definitions), the spread-out subset, the JSONL cache, benchmark sources and dev refusal;
a stdlib load end to end with a stand-in env (cache written, second load reads it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from alphaprover.config import UsageError
from lean_interface.api import EnvError, Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict
from lean_interface.problems.benchmarks import BUNDLED, dev_problem_names, load_benchmark
from selfplay import sources as S
from selfplay.actor import SourceProblem

VALID = BUNDLED["minif2f-rocq-valid"][0]


def train_names(count: int) -> list[str]:
    dev = dev_problem_names()
    return [p.stem for p in sorted(VALID.glob("*.v")) if p.stem not in dev][:count]


# ---- specs ----------------------------------------------------------------------------------------

def test_parse_spec_forms() -> None:
    assert S.parse_spec("minif2f-rocq-train") == S.SourceSpec("benchmark", "minif2f-rocq-train", "minif2f-rocq-train")
    assert S.parse_spec("/tmp/some/dir/") == S.SourceSpec("benchmark", "/tmp/some/dir/", "dir")
    assert S.parse_spec("stdlib:flocq") == S.SourceSpec("stdlib", S.ALIASES["flocq"], "flocq", S.DEFAULT_STDLIB_LIMIT)
    assert S.parse_spec("stdlib:stdlib:40") == S.SourceSpec("stdlib", S.ALIASES["stdlib"], "stdlib", 40)
    arith = S.parse_spec("stdlib:/usr/lib/ocaml/coq/theories/Arith:30")
    assert arith == S.SourceSpec("stdlib", "/usr/lib/ocaml/coq/theories/Arith", "stdlib", 30)
    assert S.parse_spec("variants:minif2f-rocq-train") == \
        S.SourceSpec("variants", "minif2f-rocq-train", "variants", S.DEFAULT_VARIANTS_PER_PROBLEM)
    assert S.parse_spec("variants:/x/y:4") == S.SourceSpec("variants", "/x/y", "variants", 4)
    assert set(S.ALIASES) == {"stdlib", "coquelicot", "flocq", "coqprime", "bignums"}


@pytest.mark.parametrize("spec, message", [
    ("", "empty"), ("stdlib:", "expected stdlib:"), ("stdlib::5", "expected stdlib:"), ("stdlib:flocq:0", "at least 1"),
    ("variants:", "expected variants:"), ("variants:stdlib:flocq", "benchmark or a .v directory only"),
    ("variants:variants:x", "benchmark or a .v directory only"),
])
def test_bad_specs_are_one_line_value_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        S.load_source(spec, None)
    assert "\n" not in str(caught.value)


def test_missing_paths_and_unknown_names_are_value_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        S.load_source(f"stdlib:{tmp_path / 'missing'}", None)
    with pytest.raises(ValueError, match="stdlib:<root>") as caught:
        S.load_source("no-such-benchmark", None)
    assert "\n" not in str(caught.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no lemma candidates"):
        S.load_source(f"stdlib:{tmp_path / 'empty'}", None)


# ---- library files --------------------------------------------------------------------------------

LIBRARY = """(* a library file *)
Require Import PeanoNat.
From Coq Require Import ZArith.
Local Open Scope nat_scope.
Implicit Types n m : nat.

Lemma top_one : forall n, n + 0 = n.
Proof. intros; lia. Qed.

#[local] Lemma with_attribute (n : nat) : 0 + n = n.
Proof. reflexivity. Qed.

Definition double n := n + n.
Lemma uses_double : forall n, double n = 2 * n.
Proof. Admitted.

Notation "x +++ y" := (x + y + y) (at level 50).
Lemma uses_notation : forall n, n +++ 0 = n.
Proof. Admitted.

Section Free.
Local Open Scope Z_scope.
Lemma in_free_section : forall z : Z, z + 0 = z.
Proof. Admitted.
Variable A : Type.
Lemma after_variable : forall l : list A, l = l.
Proof. Admitted.
End Free.

Lemma after_section : forall n, n * 1 = n.
Proof. Admitted.

Module M.
Lemma in_module : forall n, n = n.
Proof. Admitted.
End M.
Import M.
Module Type T.
Parameter p : nat.
Lemma in_module_type : p = p.
Admitted.
End T.
Module Alias := M.

Theorem mutual_a : True with mutual_b : True.
Admitted.
Lemma has_body : True := I.
Require Import Lia.
Open Scope Z_scope.
Fact later_fact : forall z : Z, (z * 1)%Z = z.
Proof. Admitted.
Axiom ax : False.
Lemma after_axiom : True.
Proof. Admitted.
"""


def test_library_lemmas_headers_sections_modules_and_local_names() -> None:
    lemmas = {lemma.name: lemma for lemma in S.library_lemmas(LIBRARY)}
    assert list(lemmas) == ["top_one", "with_attribute", "in_free_section", "after_section", "later_fact"]
    base = ("Require Import PeanoNat.", "From Coq Require Import ZArith.", "Local Open Scope nat_scope.",
            "Implicit Types n m : nat.")
    assert lemmas["top_one"].header == base
    assert lemmas["top_one"].statement == "Lemma top_one : forall n, n + 0 = n."
    assert lemmas["with_attribute"].statement == "Lemma with_attribute (n : nat) : 0 + n = n."
    # the section's own scope is in effect inside it, and gone after its End
    assert lemmas["in_free_section"].header == base + ("Local Open Scope Z_scope.",)
    assert lemmas["after_section"].header == base
    # `Import M` (a module of this file) is left out; later Requires and scopes come in order
    assert lemmas["later_fact"].header == base + ("Require Import Lia.", "Open Scope Z_scope.")
    assert [l.position for l in lemmas.values()] == sorted(l.position for l in lemmas.values())


def test_sections_are_skipped_after_a_context_and_top_level_axioms_taint_the_rest() -> None:
    text = """Section S.
Context {A : Type}.
Lemma a1 : forall x : A, x = x.
Proof. Admitted.
Section Inner.
Lemma a2 : True.
Admitted.
End Inner.
End S.
Section Hyp.
Lemma b1 : True.
Admitted.
Hypothesis H : False.
Lemma b2 : False.
Proof. exact H. Qed.
End Hyp.
Section Implicit.
Implicit Type x : nat.
Lemma c1 : forall x, x = x.
Admitted.
End Implicit.
Lemma d1 : 1 = 1.
Admitted.
Parameter magic : nat.
Lemma d2 : 2 = 2.
Admitted.
"""
    assert [lemma.name for lemma in S.library_lemmas(text)] == ["b1", "d1"]


def test_definitions_and_mentions() -> None:
    idents, _ = S.definitions("Inductive color : Set := | Red | Green : color.")
    assert {"color", "Red", "Green"} <= idents
    idents, _ = S.definitions("Record point := mk { px : nat ; py : nat }.")
    assert {"point", "mk", "px", "py", "Build_point"} <= idents
    assert S.definitions("Variables (a b : nat) (f : nat -> nat).")[0] == {"a", "b", "f"}
    assert S.definitions("Parameter x y : R.")[0] == {"x", "y"}
    assert S.definitions('Infix "<+>" := plus (at level 50).') == (set(), {"<+>"})
    assert S.definitions('Notation "\'sqr\' x" := (x * x) (at level 30).') == ({"sqr"}, set())
    assert S.mentions("forall p : point, px p = 0", {"px"}, set())
    assert not S.mentions("forall n, n + 0 = n", {"px"}, {"<+>"})
    assert S.mentions("forall n, n <+> 0 = n", set(), {"<+>"})


def test_unsplittable_file_gives_nothing() -> None:
    assert S.library_lemmas("Lemma broken : True. (* unterminated") == []


def test_require_alternatives() -> None:
    whole, per_module = S.require_alternatives("Require Import Lia NSig.", "Bignums")
    assert whole == "From Bignums Require Import Lia NSig."
    assert per_module == [["Require Import Lia.", "From Bignums Require Import Lia."],
                          ["Require Import NSig.", "From Bignums Require Import NSig."]]
    assert S.require_alternatives("Require NSig.", "Bignums") == (None, [["From Bignums Require NSig."]])
    assert S.require_alternatives("Require Import A.", None) == (None, [])
    assert S.require_alternatives("Import M.", "Bignums") == (None, [])


# ---- the spread-out subset ------------------------------------------------------------------------

def test_spread_order_is_a_permutation_whose_prefixes_spread() -> None:
    assert S.spread_order(16)[:4] == [0, 8, 4, 12]
    for n in (0, 1, 2, 7, 100, 1000):
        order = S.spread_order(n)
        assert sorted(order) == list(range(n))
    first = S.spread_order(1000)[:50]
    assert max(first) > 900 and min(first) == 0  # from all over the range


def test_select_library_problems_is_the_first_unique_passes_in_spread_order() -> None:
    n, limit = 300, 25
    lemma = S.LibraryLemma("x", "Lemma x : True.", (), 0)
    candidates = [S.Candidate(i, f"lib/f/x{i}", lemma) for i in range(n)]

    def check(candidate: S.Candidate):
        i = candidate.index
        if i % 3 == 0:
            return None  # does not elaborate
        problem = SourceProblem(candidate.id, "lib", Theorem(f"x{i}", "", f"Lemma x{i} : True."))
        return problem, f"key{i % 50}"  # many duplicates by printed goal

    calls: list[int] = []
    problems, duplicates = S.select_library_problems(candidates, limit, lambda c: calls.append(c.index) or check(c))
    expected, seen = [], set()
    for i in S.spread_order(n):
        result = check(candidates[i])
        if result is None or result[1] in seen:
            continue
        seen.add(result[1])
        expected.append(i)
        if len(expected) == limit:
            break
    assert [p.id for p in problems] == [f"lib/f/x{i}" for i in sorted(expected)]
    assert duplicates >= 0 and len(set(calls)) == len(calls)  # no candidate checked twice
    assert set(calls) == set(S.spread_order(n)[:len(calls)])  # the checked ones are a prefix


# ---- cache ----------------------------------------------------------------------------------------

def test_theorem_and_problem_dicts_round_trip() -> None:
    theorem = Theorem("t", "Require Import Reals.\nOpen Scope R_scope.", 'Theorem t : "x" = "x".', "coq")
    problem = SourceProblem("stdlib/Reals/RIneq/t", "stdlib", theorem)
    assert S.theorem_from_dict(json.loads(json.dumps(S.theorem_to_dict(theorem)))) == theorem
    assert S.problem_from_dict(json.loads(json.dumps(S.problem_to_dict(problem)))) == problem


def test_cache_round_trip_key_and_torn_files(tmp_path: Path) -> None:
    problems = [SourceProblem(f"s/p{i}", "s", Theorem(f"p{i}", "Require Import Arith.", f"Lemma p{i} : {i} = {i}."))
                for i in range(3)]
    path = S.cache_path(tmp_path, "stdlib:/usr/lib/x:3", "key-1")
    assert path.parent == tmp_path and path.name.startswith("stdlib-usr-lib-x-3-") and path.suffix == ".jsonl"
    S.write_cache(path, "key-1", "stdlib:/usr/lib/x:3", problems, stats={"kept": 3})
    assert S.read_cache(path, "key-1") == problems
    assert S.read_cache(path, "key-2") is None
    assert json.loads(path.read_text().splitlines()[0])["stats"] == {"kept": 3}
    path.write_text("\n".join(path.read_text().splitlines()[:-1]) + "\n")  # a line lost
    assert S.read_cache(path, "key-1") is None
    assert S.read_cache(tmp_path / "missing.jsonl", "key-1") is None
    assert not list(tmp_path.glob("*.tmp*"))


# ---- benchmark sources ----------------------------------------------------------------------------

def test_benchmark_directory_ids_and_dedup(tmp_path: Path) -> None:
    names = train_names(2)
    directory = tmp_path / "mine"
    directory.mkdir()
    for name in names:
        shutil.copy(VALID / f"{name}.v", directory / f"{name}.v")
    text = (VALID / f"{names[0]}.v").read_text()
    (directory / "zz_copy.v").write_text(text.replace(names[0], "zz_copy"))  # same statement, other name
    (directory / "zz_broken.v").write_text("Require Import Arith.\n")  # no theorem: skipped
    problems = S.load_source(str(directory), None)
    assert [p.id for p in problems] == [f"mine/{n}" for n in names]
    assert {p.source for p in problems} == {"mine"}


def test_train_split_loads_and_dev_sources_are_refused(tmp_path: Path) -> None:
    problems = S.load_source("minif2f-rocq-train", None)
    assert len(problems) > 150 and all(p.id.startswith("minif2f-rocq-train/") for p in problems)
    dev_name = sorted(dev_problem_names())[0]
    directory = tmp_path / "mixed"
    directory.mkdir()
    shutil.copy(VALID / f"{dev_name}.v", directory / f"{dev_name}.v")
    shutil.copy(VALID / f"{train_names(1)[0]}.v", directory)
    for spec in (str(directory), "minif2f-rocq-valid", "minif2f-rocq-dev"):
        with pytest.raises(ValueError, match="dev-subset"):
            S.load_source(spec, None)
    for spec in (f"variants:{directory}:2", "variants:minif2f-rocq-valid"):  # refused before any Coq runs
        with pytest.raises(ValueError, match="variants are never made of a dev problem") as caught:
            S.load_source(spec, tmp_path / "cache")
        assert "\n" not in str(caught.value)
    assert not (tmp_path / "cache").exists()


def test_train_cmd_load_sources_delegates_and_keeps_its_errors(tmp_path: Path) -> None:
    from alphaprover.train_setup import load_sources

    problems = load_sources(["minif2f-rocq-train", "minif2f-rocq-train"])  # the same source twice: deduplicated
    assert len(problems) == len(S.load_source("minif2f-rocq-train", None))
    with pytest.raises(UsageError, match="dev-subset"):
        load_sources(["minif2f-rocq-valid"])
    with pytest.raises(UsageError, match="expected stdlib:"):
        load_sources(["stdlib:"])
    with pytest.raises(UsageError, match="no problems"):
        load_sources([])


# ---- a stdlib load with a stand-in env ------------------------------------------------------------

class StandInEnv(ProofEnv):
    """Every header loads and passes the audit except one with `Bad`; statements mentioning
    `broken` do not elaborate; `exact leaked` closes its goal."""

    def __init__(self) -> None:
        self.starts: list[Theorem] = []
        self.verifies = 0

    def start(self, theorem: Theorem) -> Goal:
        self.starts.append(theorem)
        if "Require Import Missing." in theorem.header or "broken" in theorem.statement:
            raise EnvError("does not elaborate")
        text = "⊢ " + theorem.statement.split(":", 1)[1].strip().rstrip(".")
        return Goal(text, theorem.name)

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        return TacticResult(goals=()) if tactic == "exact leaked" else TacticResult(error="no")

    def render(self, theorem: Theorem, proof: ProofStep) -> str:
        return ""

    def verify(self, theorem: Theorem, script: str) -> Verdict:
        self.verifies += 1
        return Verdict("Bad" not in theorem.header)


class NoEnv(StandInEnv):
    def start(self, theorem: Theorem) -> Goal:
        raise AssertionError("the cache should have answered")


def test_stdlib_load_checks_caches_and_reads_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    (root / "Sub").mkdir(parents=True)
    (root / "A.v").write_text("Require Import Arith.\nLemma a1 : 1 = 1.\nAdmitted.\nLemma broken1 : 2 = 2.\nAdmitted.\n"
                              "Lemma leaked : 3 = 3.\nAdmitted.\nLemma a_dup : 1 = 1.\nAdmitted.\n")
    (root / "Sub" / "B.v").write_text("Require Import Missing.\nRequire Import Arith.\nLemma b1 : 4 = 4.\nAdmitted.\n")
    (root / "C.v").write_text("Require Import Bad.\nLemma c1 : 5 = 5.\nAdmitted.\n")
    env = StandInEnv()
    spec = f"stdlib:{root}:10"
    problems = S.load_source(spec, tmp_path / "cache", env=env)
    assert [p.id for p in problems] == ["stdlib/lib/A/a1", "stdlib/lib/Sub/B/b1"]
    assert problems[1].theorem.header == "Require Import Arith."  # the failing Require dropped
    assert problems[0].theorem == Theorem("a1", "Require Import Arith.", "Lemma a1 : 1 = 1.")
    files = list((tmp_path / "cache").glob("*.jsonl"))
    assert len(files) == 1
    meta = json.loads(files[0].read_text().splitlines()[0])
    assert meta["count"] == 2 and meta["stats"]["closed_by_own_name"] == 1 and meta["stats"]["axioms_refused"] == 1
    assert meta["stats"]["duplicates"] == 1 and meta["stats"]["not_elaborating"] == 1
    assert S.load_source(spec, tmp_path / "cache", env=NoEnv()) == problems
    # a smaller limit is another load: the spread-out subset of 1
    assert len(S.load_source(f"stdlib:{root}:1", None, env=StandInEnv())) == 1


def test_variants_load_resumes_from_its_partial_file(tmp_path: Path) -> None:
    names = train_names(2)
    directory = tmp_path / "two"
    directory.mkdir()
    for name in names:
        shutil.copy(VALID / f"{name}.v", directory / f"{name}.v")
    asked: list[str] = []

    def fake_generate(target: Theorem, max_variants: int, env: ProofEnv) -> list[Theorem]:
        asked.append(target.name)
        if len(asked) == 2 and crash:
            raise KeyboardInterrupt  # the load dies after its first target
        made = [(f"{target.name}_v{i}", f"Theorem {target.name}_v{i} : {i} = {i}.") for i in range(1, max_variants + 1)]
        return [Theorem(name, "Require Import Arith.", statement) for name, statement in made]

    spec = f"variants:{directory}:3"
    with pytest.raises(ValueError, match="no variant maker"):
        S.load_source(spec, tmp_path / "cache", env=NoEnv())
    crash = True
    with pytest.raises(KeyboardInterrupt):
        S.load_source(spec, tmp_path / "cache", env=StandInEnv(), make_variants=fake_generate)
    assert len(list((tmp_path / "cache").glob("*.partial"))) == 1
    crash = False
    asked.clear()
    problems = S.load_source(spec, tmp_path / "cache", env=StandInEnv(), make_variants=fake_generate)
    assert asked == [names[1]]  # the first target came from the partial file
    # the same header and statement text from both targets: deduplicated to the first target's three
    assert [p.id for p in problems] == [f"variants/{names[0]}_v{i}" for i in (1, 2, 3)]
    assert all(p.source == "variants" for p in problems)
    assert not list((tmp_path / "cache").glob("*.partial"))
    assert S.load_source(spec, tmp_path / "cache", env=NoEnv(), make_variants=fake_generate) == problems


# ---- the problem factory as a source ----------------------------------------------------------------

def test_factory_source_loads_train_items_only_and_refuses_dev(tmp_path: Path) -> None:
    from lean_interface.problems.factory.build import write_items
    from lean_interface.problems.factory.family import HELDOUT, TRAIN, Item

    assert S.parse_spec("factory:/x/f.jsonl") == S.SourceSpec("factory", "/x/f.jsonl", "factory", 0)
    assert S.parse_spec("factory:/x/f.jsonl:5") == S.SourceSpec("factory", "/x/f.jsonl", "factory", 5)
    with pytest.raises(ValueError, match="expected factory:"):
        S.parse_spec("factory:")
    header = "Require Import Arith."
    items = [Item(f"fam_t_{i:05d}", "t", i, TRAIN, header, f"Theorem fam_t_{i:05d} : {i} = {i}.") for i in range(8)]
    items.append(Item("fam_t_90000", "t", 90000, HELDOUT, header, "Theorem fam_t_90000 : 99 = 99."))
    path = tmp_path / "f.jsonl"
    write_items(items, path)
    problems = S.load_source(f"factory:{path}", None)
    assert [p.id for p in problems] == [f"factory/fam_t_{i:05d}" for i in range(8)]      # no held-out item
    assert all(p.source == "factory" and p.theorem.header == header for p in problems)
    spread = S.load_source(f"factory:{path}:4", None)
    assert [p.id for p in spread] == [f"factory/fam_t_{i:05d}" for i in (0, 2, 4, 6)]
    dev = next(p for p in load_benchmark("minif2f-rocq-dev") if p.theorem is not None)
    write_items([*items, Item("fam_d_00000", "d", 0, TRAIN, dev.theorem.header,
                              dev.theorem.statement.replace(dev.name, "fam_d_00000", 1))], path)
    with pytest.raises(ValueError, match="dev-subset"):
        S.load_source(f"factory:{path}", None)
    with pytest.raises(ValueError, match="factory file not found"):
        S.load_source(f"factory:{tmp_path / 'missing.jsonl'}", None)
