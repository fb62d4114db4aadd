"""The case-split and chain proposers read their shapes from a goal's text (pure: no Coq).

interval_cases (bounds computed from the hypotheses), residues (a split over n mod k),
transcendental (sqrt/ln/exp/Rpower rewrites), distinct_roots (the difference quotient by sympy),
nat_numbers (large nat literals and powers under mod moved to Z), complex_parts (C by components).
"""

from __future__ import annotations

from lean_interface.coq.prelude import DEFAULT_PRELUDE, NAT_NUMBERS_PRELUDE
from search.proposers.base import goal_context
from search.proposers.cas import read_goal
from search.proposers.distinct_roots import PROPOSERS as ROOTS
from search.proposers.interval_cases import PROPOSERS as INTERVALS
from search.proposers.interval_cases import integer_bounds
from search.proposers.residues import PROPOSERS as RESIDUES
from search.proposers.residues import moduli
from search.proposers.transcendental import PROPOSERS as CHAINS
from search.proposers.transcendental import exact
from search.proposers.expr import parse_expr
from search.proposers.nat_numbers import PROPOSERS as NUMBERS
from search.proposers.nat_numbers import closed_after_subst, has_large_literal
from search.proposers.complex_parts import PROPOSERS as COMPLEXES

INTERVAL, RESIDUE, CHAIN, ROOT, NUMBER = INTERVALS[0], RESIDUES[0], CHAINS[0], ROOTS[0], NUMBERS[0]
COMPLEX = COMPLEXES[0]


def _bounds(text: str) -> dict:
    return integer_bounds(read_goal(goal_context(text)))


def test_bounds_come_from_linear_chained_and_monotone_hypotheses() -> None:
    assert _bounds("a, b : nat\nH : 1 <= a <= 9\nH0 : b < 7\n⊢ a = b") == {"a": (1, 9), "b": (0, 6)}
    assert _bounds("⊢ forall x : nat, 0 < x -> x ^ 2 + 4 * x + 4 < 20 -> x = 1")["x"] == (1, 2)
    # x + y + x y = 80 with 0 < y < x: y is at most 8 (y < x), x at most 39 (y >= 1)
    bounds = _bounds("x, y : nat\nh0 : 0 < y\nh1 : y < x\nh2 : x + y + x * y = 80\n⊢ x = 26")
    assert bounds["y"][1] is not None and bounds["y"][1] <= 26 and bounds["x"][0] >= 2
    assert _bounds("x : Z\nH : 0 <= x < 31\n⊢ x = 2") == {"x": (0, 30)}


def test_a_bound_nia_cannot_prove_is_not_read_from_a_variable_exponent() -> None:
    assert _bounds("⊢ forall x y : nat, 2 ^ x * 3 ^ y = 1296 -> x + y = 8") == {"x": (0, None), "y": (0, None)}


def test_interval_cases_splits_the_bounded_variable_in_one_sentence() -> None:
    tactics = INTERVAL.tactics("⊢ forall x : nat, 0 < x -> x ^ 2 + 4 * x + 4 < 20 -> x = 1 \\/ x = 2")
    assert tactics and tactics[0].startswith("timeout 3 (intros; assert (hbound_x : (1 <= x <= 2)%nat) by nia;")
    assert "(x = 1 \\/ x = 2)%nat) by lia" in tactics[0] and "subst x" in tactics[0]
    assert all(t.endswith(").") for t in tactics) and len(tactics) <= 4


def test_interval_cases_skips_unbounded_and_real_goals() -> None:
    assert INTERVAL.tactics("⊢ forall n : nat, n + 0 = n") == []
    assert INTERVAL.tactics("⊢ forall x : R, 0 < x -> x < 3 -> x < 4") == []
    assert INTERVAL.tactics("x : nat\nH : x < 1000\n⊢ x = x") == []  # 1000 values: too many


def test_residues_reads_moduli_and_splits_the_nonlinear_variable() -> None:
    assert moduli("⊢ forall n : nat, (n * n) mod 4 = 1 -> Nat.divide 3 n") == [4, 3]
    assert moduli("⊢ (2 ^ 100) mod 1000 = 376") == []
    tactics = RESIDUE.tactics("⊢ forall a : Z, a ^ 2 mod 4 = 0 \\/ a ^ 2 mod 4 = 1")
    assert tactics[0] == ("timeout 3 (intros; rewrite (Z_div_mod_eq_full a 4); assert (hres : (a mod 4 = 0 \\/ "
                          "a mod 4 = 1 \\/ a mod 4 = 2 \\/ a mod 4 = 3)%Z) by lia; destruct hres as "
                          "[hres|[hres|[hres|hres]]]; rewrite hres in *; lia).")
    divides = RESIDUE.tactics("⊢ forall n : nat, ~ Nat.divide 4 (n ^ 2 + 2)")
    assert divides and "rewrite <- Nat.mod_divide by lia" in divides[0]


def test_residues_skips_goals_without_a_modulus_or_an_integer_variable() -> None:
    assert RESIDUE.tactics("⊢ forall x : R, x ^ 2 >= 0") == []
    assert RESIDUE.tactics("⊢ 2004 mod 12 = 0") == []


def test_transcendental_evaluates_square_roots_of_numeral_squares() -> None:
    assert exact(parse_expr("5 ^ 3 - 2 ^ 2")) == 121
    tactics = CHAIN.tactics("⊢ INR (fact 3) * (2 ^ 3 + sqrt 9) / 2 = 33")
    assert tactics[0].startswith("timeout 3 (rewrite (sqrt_lem_1 9 3) by lra;")
    # sqrt 8 is not a rational square: no evaluation is proposed for it
    assert not any("sqrt_lem_1 8" in t for t in CHAIN.tactics("⊢ sqrt 8 = 2 * sqrt 2"))


def test_transcendental_substitutes_values_and_folds_numeral_rpower() -> None:
    tactics = CHAIN.tactics("⊢ forall x y : R, x = 5 -> y = 2 -> sqrt (x ^ 3 - Rpower 2 y) = 11")
    assert tactics[0] == ("timeout 3 (intros; subst; replace (Rpower 2 2) with (2 ^ 2) by (rewrite <- Rpower_pow by "
                          "lra; f_equal; simpl; lra); rewrite (sqrt_lem_1 (5 ^ 3 - 2 ^ 2) 11) by lra; first [lra | nra "
                          "| (simpl; lra) | field | (simpl; nra)]).")
    assert any("apply sqrt_lem_0 in H0" in t for t in CHAIN.tactics(
        "⊢ forall x : R, 0 <= x -> sqrt (3 * x + 1) = 4 -> x = 5"))
    assert any("ln_mult" in t for t in CHAIN.tactics("⊢ forall a : R, 0 < a -> ln (a * a) = 2 * ln a"))


def test_transcendental_skips_goals_without_its_functions() -> None:
    assert CHAIN.tactics("⊢ forall x : R, x + 1 > x") == []


def test_distinct_roots_writes_the_difference_quotient() -> None:
    tactics = ROOT.tactics("⊢ forall x y : R, x <> 0 -> y <> 0 -> x <> y -> x + 2 / x = y + 2 / y -> x * y = 2")
    assert tactics and "assert (hdr : ((x - y) * (- 2 + x * y) = 0)%R)" in tactics[0]
    assert "[exfalso; apply H1; lra |" in tactics[0]
    quadratic = ROOT.tactics("⊢ forall (a b : R) (f : R -> R), (forall x, f x = 2 * x ^ 2 - 7 * x + 2) -> "
                             "f a = 0 -> f b = 0 -> a <> b -> 1 / (a - 1) + 1 / (b - 1) = -1")
    assert "rewrite_functions" in quadratic[0] and "((a - b) * (- 7 + 2 * a + 2 * b) = 0)%R" in quadratic[0]
    assert "((a) * (b) = 1)%R" in quadratic[0]  # Vieta: the product C / A


def test_distinct_roots_skips_goals_without_two_values_of_one_equation() -> None:
    assert ROOT.tactics("⊢ forall x y : R, x <> y -> x + 1 = 2 -> y = 3") == []
    assert ROOT.tactics("⊢ forall x : R, x + 1 = 2 -> x = 1") == []
    # the two equations are different polynomials: no common root to cancel
    assert ROOT.tactics("⊢ forall a b : R, a <> b -> a ^ 2 = 1 -> b ^ 2 = 4 -> a + b = 0") == []


def test_tighter_bounds_through_products_are_a_second_set_of_proposals() -> None:
    text = "⊢ forall x y : nat, x * y + 2 * x + y = 40 -> x * x * y = 36 -> x + y = 13"
    loose, tight = (integer_bounds(read_goal(goal_context(text)), products=flag) for flag in (False, True))
    assert loose["x"][0] == 0 and tight["x"][0] > 0 and tight["x"][1] <= loose["x"][1]
    assert len(INTERVAL.tactics(text)) <= 5


def test_nat_numbers_bridges_large_literals_and_powers_under_mod() -> None:
    assert has_large_literal("⊢ 123 * n + 17 = 39500") and has_large_literal("H : n = Nat.of_num_uint (x)\n⊢ n = 1")
    assert not has_large_literal("⊢ 4999 * n = 0") and not has_large_literal("H5000 : x = 1\n⊢ x = 1")
    literal = NUMBER.tactics("⊢ forall n : nat, 123 * n + 17 = 39500 -> n = 321")
    assert literal == ["timeout 3 (intros; nat_literals_Z; lia).", "timeout 3 (intros; nat_literals_Z; nia)."]
    power = NUMBER.tactics("⊢ 1999 ^ 2000 mod 5 = 1")
    assert power[:2] == ["timeout 3 (nat_closed_Z).",
                         "timeout 3 (rewrite !nat_pow_mod_Z in * by discriminate; reflexivity)."]
    introduced = NUMBER.tactics("n : nat\nH : n = 2 ^ 100 mod 7\n⊢ n = 2")
    assert introduced and all("intros" not in t for t in introduced)
    assert all(NUMBER.marker.search(t) for t in literal + power)


def test_nat_numbers_moves_closed_computations_to_z_after_unfolding_and_subst() -> None:
    assert NUMBER.tactics("⊢ Nat.gcd (fact 12) 7000 = 1400")[0] == "timeout 3 (cbn [fact]; nat_closed_Z)."
    sums = NUMBER.tactics("⊢ list_sum (map (fun k => 3 ^ k) (seq 0 20)) mod 7 = 1")
    assert sums[0] == "timeout 3 (cbn [list_sum fold_right map seq]; nat_closed_Z)."
    valued = NUMBER.tactics("⊢ forall n : nat, n = length (seq 0 40) -> 2 ^ n mod 9 = 7")
    assert valued[0] == "timeout 3 (intros; subst; cbn [seq length]; nat_closed_Z)."
    assert closed_after_subst(goal_context("m, n : nat\nH : m = 4\nH0 : 2 * m = n\n⊢ n ^ m = 65536"))
    # a variable without a value: no closed computation, only the literal bridge
    free = NUMBER.tactics("⊢ forall n : nat, n > 0 -> Nat.gcd (n + 7) (2 * n + 1) <= 13")
    assert not any("nat_closed_Z" in t for t in free)


def test_nat_numbers_skips_small_and_non_nat_goals() -> None:
    assert NUMBER.tactics("⊢ forall n : nat, 3 * n = 12 -> n = 4") == []
    assert NUMBER.tactics("⊢ forall x : R, x = 10000 -> x > 0") == []       # real numerals: lra reads them
    assert NUMBER.tactics("⊢ (2 ^ 2010 mod 10)%Z = 4%Z") == []              # Z already computes in binary
    assert NUMBER.tactics("garbage ⊢ ((") == []


def test_complex_parts_splits_goals_over_c_into_real_equations() -> None:
    tactics = COMPLEX.tactics("⊢ forall q e : C, q = 2 - 2 * Ci -> e = 5 + 5 * Ci -> q * e = 20")
    assert len(tactics) == 2 and tactics[0].startswith("timeout 3 (intros; repeat match goal with z : C")
    assert "injective_projections" in tactics[0] and tactics[0].endswith("subst; lra).")
    assert all(COMPLEX.marker.search(t) for t in tactics)
    introduced = COMPLEX.tactics("y : C\n⊢ 7 * (3 * y + 2) = 21 * y + 14")
    assert introduced and not introduced[0].startswith("timeout 3 (intros")


def test_complex_parts_skips_real_goals_and_functions_over_c() -> None:
    assert COMPLEX.tactics("x : R\n⊢ x * x >= 0") == []
    assert COMPLEX.tactics("f : C -> C\nx : C\n⊢ f x = 0") == []   # the split cannot read f x
    assert COMPLEX.tactics("garbage ⊢ ((") == []


def test_the_nat_bridges_are_proved_in_the_prelude_not_assumed() -> None:
    assert NAT_NUMBERS_PRELUDE in DEFAULT_PRELUDE
    for word in ("Axiom", "Admitted", "Parameter", "admit", "vm_compute", "native_compute"):
        assert word not in NAT_NUMBERS_PRELUDE
    assert NAT_NUMBERS_PRELUDE.count("Qed.") == 5 and "End nat_digits." in NAT_NUMBERS_PRELUDE
