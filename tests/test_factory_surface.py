"""miniF2F's surface in the factory (lean_interface/problems/factory/surface.py): the forall form,
Coq's hypothesis names in the script, headers of the train split only, a stable share."""

from __future__ import annotations

from lean_interface.problems.benchmarks import load_benchmark
from lean_interface.problems.factory import FAMILIES, family_named
from lean_interface.problems.factory.family import candidate, with_definitions
from lean_interface.problems.factory.surface import (MINIF2F_HEADERS, MINIF2F_SHARE, coq_hypothesis_names,
                                                     forall_statement, minif2f_proof, uses_minif2f_surface)


def test_forall_statement_groups_binders_and_parenthesises_binding_hypotheses() -> None:
    assert forall_statement([("x", "R"), ("y", "R")], ["0 < x", "x + y = 3"], "y < 3") == \
        "forall x y : R, 0 < x -> x + y = 3 -> y < 3"
    assert forall_statement([("m", "R"), ("f", "R -> R")], ["forall x, f x = m * x"], "f 1 = m") == \
        "forall (m : R) (f : R -> R), (forall x, f x = m * x) -> f 1 = m"
    assert forall_statement([], ["exists k, n = 2 * k"], "True") == "(exists k, n = 2 * k) -> True"
    assert forall_statement([("x", "R")], ["x <> 0 -> x > 1"], "x > 1") == "forall x : R, (x <> 0 -> x > 1) -> x > 1"
    assert forall_statement([("x", "R")], [], "0 <= x * x") == "forall x : R, 0 <= x * x"


def test_scripts_name_the_statement_hypotheses_as_intros_does() -> None:
    assert coq_hypothesis_names(0) == [] and coq_hypothesis_names(3) == ["H", "H0", "H1"]
    script = "rewrite h0, h1 in h2. pose proof (h0 1) as h3. simpl in h3. Rabs_h0. lra."
    assert minif2f_proof(script, 3) == \
        "intros. rewrite H, H0 in H1. pose proof (H 1) as h3. simpl in h3. Rabs_h0. lra."
    assert minif2f_proof("lra.", 0) == "intros. lra."


def test_a_share_of_every_family_is_surfaced_stably_under_train_split_headers() -> None:
    surfaced = total = 0
    for family in FAMILIES:
        for seed in range(60):
            item = candidate(family, seed)
            assert item == candidate(family, seed)
            draft = family.draft(seed)
            own_header = with_definitions(family.header, draft.definitions)
            if not (draft.binders or draft.hypotheses):
                assert item.header == own_header and not item.proof.startswith("intros.")
                continue
            total += 1
            if uses_minif2f_surface(family.name, seed):
                surfaced += 1
                assert item.statement.startswith(f"Theorem {item.name} : ")
                assert item.header in [with_definitions(h, draft.definitions) for h in dict(MINIF2F_HEADERS[family.domain])]
                assert item.proof.startswith("intros. ")
                assert " (h0 : " not in item.statement
            else:
                assert item.header == own_header and not item.proof.startswith("intros.")
    assert abs(surfaced / total - MINIF2F_SHARE) < 0.06, surfaced / total


def test_surface_headers_are_train_split_headers_weighted_by_their_use() -> None:
    train_headers = {p.theorem.header for p in load_benchmark("minif2f-rocq-train") if p.theorem is not None}
    for domain, headers in MINIF2F_HEADERS.items():
        for header, count in headers:
            assert header in train_headers, (domain, header)
            used = sum(1 for p in load_benchmark("minif2f-rocq-train") if p.theorem and p.theorem.header == header)
            assert used == count, (header, used, count)


def test_a_surfaced_item_of_fe_linear_reads_like_minif2f() -> None:
    family = family_named("fe_linear")
    seed = next(s for s in range(100) if uses_minif2f_surface("fe_linear", s))
    item = candidate(family, seed)
    assert item.statement.startswith(f"Theorem {item.name} : forall (m k : R) (f : R -> R), (forall x, f x = ")
    assert "rewrite H in H0, H1." in item.proof
