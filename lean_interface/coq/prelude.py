"""The tactic prelude: standard-library tactic modules loaded before every theorem's own header.

Why: 229 of the 244 miniF2F-rocq valid headers import none of `Lia`, `Lra`, `Psatz`, so under
`Require Import Reals.` alone `lra` is "reference not found" and every method searched without
the decision procedures that close competition goals. Loading them *before* the header keeps the
header in charge: its own imports come later and shadow anything the prelude brought, and its
`Open Scope`s are the last word on notations. `tests/integration/test_prelude.py` checks, for
every bundled problem, that the statement elaborates to the same term (same printed form, every
constant resolving to the same fully qualified name) with and without the prelude.

The modules, each for the tactics it provides:
  Coq.micromega.Lia      lia, nia            linear / nonlinear integer arithmetic (nat, Z)
  Coq.micromega.Lra      lra                 linear real arithmetic (loads the Reals it needs,
                                             but imports none of their names or scopes)
  Coq.micromega.Psatz    nra, psatz          nonlinear real arithmetic (Positivstellensatz)
  Coq.setoid_ring.Ring   ring, ring_simplify commutative ring normalisation
  Coq.setoid_ring.Field  field, field_simplify
  Coq.micromega.ZifyNat  (Required, not imported: no name or notation enters scope) zify's
                             instances for Nat.div and Nat.modulo: with them lia and nia turn
                             remainders and quotients into bounded equations over Z.
  Ltac rewrite_functions     the `rewrite` family's loop (every `forall x, f x = …` hypothesis
                             rewritten everywhere until none applies) under a name short enough
                             for the policy to propose; an Ltac definition adds no axiom and no
                             term, and a header's own definition of the name would shadow it.
  Coq.Reals.R_sqrt           (Required, not imported) the module of the sqrt lemmas `positivity`
                             names; the rest of what it names is loaded by Lra. ~0.03 s more per
                             header. Not Exp_prop (exp_pos), Rpower nor Rtrigo1 (PI_RGT_0): they
                             load Rtopology, whose constant `f` then answers `Locate f` for a
                             bound `f` in a nat-only statement, which the statement-identity
                             test counts as a change of meaning; so exp, Rpower and PI are
                             leaves for `positivity` (assumption, lra), not rules.
  Ltac positivity            Lean's `positivity` for R: `0 < e`, `0 <= e`, `e > 0`, `e >= 0`,
                             `e <> 0` for e built from sums, products, quotients, inverses, powers
                             (even powers of anything), sqrt, INR/IZR (and INR of a factorial),
                             Rabs, numerals and the context (assumption, lra at the leaves). Every
                             name it uses is fully qualified, so a header cannot change what it
                             means; no stdlib, Coquelicot or mathcomp tactic is called `positivity`.
  Coq.ZArith.Zpow_facts      (Required, not imported) binary modular exponentiation, `Zpow_mod`.
  Lemmas nat_pow_mod_Z, nat_gcd_Z, nat_lcm_Z, nat_literal_Z_eq
                             bridges from unary nat to Z's binary numbers, proved here (no axiom):
                             `(a ^ b) mod n = Z.to_nat (Zpow_mod a b n)` (n <> 0); `Z.of_nat` of
                             `Nat.gcd`/`Nat.lcm` is Z's (the 8.16 stdlib has neither); and a nat
                             literal of 5000 or more (`Nat.of_num_uint` of its digits, which lia and
                             nia read as an opaque atom) is its digits read in Z (`nat_digits_Z`,
                             a Fixpoint in a section whose `Import` of Z's notations ends with it).
  Ltac nat_literals_Z        for each large nat literal in the goal or context, the fact
                             `Z.of_nat L = v` with v its binary value, so lia/nia know the number.
  Ltac nat_closed_Z          a closed nat equation or inequality moved to Z: literals named and
                             valued, `Nat2Z.inj_*` / the bridges pushed through + * - / mod ^ gcd lcm,
                             then `reflexivity` in binary (the kernel's conversion, no `vm_compute`):
                             `Nat.lcm 9999 100001 = 90900909`, `(91145 + … + 91148) mod 4 = 2`.
Fully qualified paths, so no user-contrib library named `Lia` can stand in for Coq's.
Coq-Interval is not in the prelude: its library declares the kernel's primitive integers and
floats (~100 names) that coqchk reports as axioms of every environment that loads it, whether a
proof uses them or not (docs/ARCHITECTURE.md §Proposers).
The same prelude is used by search, `play` and `verify` (the env writes it into the proof file),
so what was searched is what is checked.
"""

from __future__ import annotations

#: the `rewrite` automation family's loop under a short name (`search/automation.py`): spelled out it
#: is ~60 tokens, past the decoder's 48-token limit, so the policy could never learn to propose it
REWRITE_FUNCTIONS_LTAC = ("Ltac rewrite_functions := repeat match goal with "
                          "H : forall _, _ = _ |- _ => progress rewrite ?H in * "
                          "| H : forall _ _, _ = _ |- _ => progress rewrite ?H in * end.")

#: the Reals module `positivity` names lemmas of beyond what Lra loads (RIneq, Rfunctions, Rbasic_fun)
POSITIVITY_REQUIRES = "Require Coq.Reals.R_sqrt."

#: numbers past unary nat (issue 74): bridges to Z proved here, and the Ltacs that use them (the
#: docstring's table). Z's numerals and operators are in scope only inside the section (its Import is
#: local to it), so no statement after the prelude reads a numeral differently.
NAT_NUMBERS_PRELUDE = r"""Require Coq.ZArith.Zpow_facts Coq.Arith.Wf_nat Coq.Arith.PeanoNat.
Lemma nat_pow_mod_Z : forall a b n : nat, n <> 0%nat -> Coq.Init.Nat.modulo (Coq.Init.Nat.pow a b) n =
  Coq.ZArith.BinInt.Z.to_nat (Coq.ZArith.Zpow_facts.Zpow_mod (Coq.ZArith.BinInt.Z.of_nat a)
    (Coq.ZArith.BinInt.Z.of_nat b) (Coq.ZArith.BinInt.Z.of_nat n)).
Proof. intros a b n Hn. rewrite Coq.ZArith.Zpow_facts.Zpow_mod_correct by lia.
  rewrite <- Coq.ZArith.Znat.Nat2Z.inj_pow, <- Coq.ZArith.Znat.Nat2Z.inj_mod.
  symmetry. apply Coq.ZArith.Znat.Nat2Z.id. Qed.
Lemma nat_gcd_Z : forall a b : nat, Coq.ZArith.BinInt.Z.of_nat (Coq.Init.Nat.gcd a b) =
  Coq.ZArith.BinInt.Z.gcd (Coq.ZArith.BinInt.Z.of_nat a) (Coq.ZArith.BinInt.Z.of_nat b).
Proof.
  intro a. induction a as [a IH] using (well_founded_induction Coq.Arith.Wf_nat.lt_wf). intro b.
  destruct a as [|a'].
  - simpl Coq.Init.Nat.gcd. rewrite Coq.ZArith.BinInt.Z.gcd_0_l. symmetry.
    apply Coq.ZArith.BinInt.Z.abs_eq. apply Coq.ZArith.Znat.Nat2Z.is_nonneg.
  - change (Coq.Init.Nat.gcd (S a') b) with (Coq.Init.Nat.gcd (Coq.Init.Nat.modulo b (S a')) (S a')).
    rewrite IH by (apply Coq.Arith.PeanoNat.Nat.mod_upper_bound; discriminate).
    rewrite Coq.ZArith.Znat.Nat2Z.inj_mod, Coq.ZArith.BinInt.Z.gcd_mod.
    + reflexivity.
    + rewrite Coq.ZArith.Znat.Nat2Z.inj_succ. apply Coq.ZArith.BinInt.Z.neq_sym, Coq.ZArith.BinInt.Z.lt_neq,
        Coq.ZArith.BinInt.Z.lt_succ_r, Coq.ZArith.Znat.Nat2Z.is_nonneg.
Qed.
Lemma nat_lcm_Z : forall a b : nat, Coq.ZArith.BinInt.Z.of_nat (Coq.Arith.PeanoNat.Nat.lcm a b) =
  Coq.ZArith.BinInt.Z.lcm (Coq.ZArith.BinInt.Z.of_nat a) (Coq.ZArith.BinInt.Z.of_nat b).
Proof.
  intros a b. unfold Coq.Arith.PeanoNat.Nat.lcm, Coq.ZArith.BinInt.Z.lcm.
  rewrite Coq.ZArith.Znat.Nat2Z.inj_mul, Coq.ZArith.Znat.Nat2Z.inj_div, nat_gcd_Z.
  symmetry. apply Coq.ZArith.BinInt.Z.abs_eq.
  rewrite <- nat_gcd_Z, <- Coq.ZArith.Znat.Nat2Z.inj_div, <- Coq.ZArith.Znat.Nat2Z.inj_mul.
  apply Coq.ZArith.Znat.Nat2Z.is_nonneg.
Qed.
Section nat_digits.
Import Coq.ZArith.BinInt.
Fixpoint nat_digits_Z (d : Coq.Init.Decimal.uint) (acc : Coq.Numbers.BinNums.Z) : Coq.Numbers.BinNums.Z :=
  match d with
  | Coq.Init.Decimal.Nil => acc
  | Coq.Init.Decimal.D0 d => nat_digits_Z d (10 * acc)%Z
  | Coq.Init.Decimal.D1 d => nat_digits_Z d (10 * acc + 1)%Z
  | Coq.Init.Decimal.D2 d => nat_digits_Z d (10 * acc + 2)%Z
  | Coq.Init.Decimal.D3 d => nat_digits_Z d (10 * acc + 3)%Z
  | Coq.Init.Decimal.D4 d => nat_digits_Z d (10 * acc + 4)%Z
  | Coq.Init.Decimal.D5 d => nat_digits_Z d (10 * acc + 5)%Z
  | Coq.Init.Decimal.D6 d => nat_digits_Z d (10 * acc + 6)%Z
  | Coq.Init.Decimal.D7 d => nat_digits_Z d (10 * acc + 7)%Z
  | Coq.Init.Decimal.D8 d => nat_digits_Z d (10 * acc + 8)%Z
  | Coq.Init.Decimal.D9 d => nat_digits_Z d (10 * acc + 9)%Z
  end.
Lemma nat_digits_Z_spec : forall d acc, Coq.ZArith.BinInt.Z.of_nat (Coq.Init.Nat.of_uint_acc d acc) =
  nat_digits_Z d (Coq.ZArith.BinInt.Z.of_nat acc).
Proof. induction d; intro acc; cbn [Coq.Init.Nat.of_uint_acc nat_digits_Z]; try reflexivity;
  rewrite IHd; f_equal; rewrite Coq.Arith.PeanoNat.Nat.tail_mul_spec; lia. Qed.
Lemma nat_literal_Z_eq : forall d, Coq.ZArith.BinInt.Z.of_nat
  (Coq.Init.Nat.of_num_uint (Coq.Init.Number.UIntDecimal d)) = nat_digits_Z d 0%Z.
Proof. intro d. exact (nat_digits_Z_spec d 0). Qed.
End nat_digits.
Ltac nat_literals_Z := repeat match goal with
  | |- context [Coq.Init.Nat.of_num_uint ?u] => nat_literal_Z u
  | _ : context [Coq.Init.Nat.of_num_uint ?u] |- _ => nat_literal_Z u end
with nat_literal_Z u := lazymatch goal with
  | _ : Coq.ZArith.BinInt.Z.of_nat (Coq.Init.Nat.of_num_uint u) = _ |- _ => fail
  | _ => let v := eval compute in (Coq.ZArith.BinInt.Z.of_num_uint u) in
         assert (Coq.ZArith.BinInt.Z.of_nat (Coq.Init.Nat.of_num_uint u) = v)
           by (rewrite nat_literal_Z_eq; reflexivity) end.
Ltac nat_closed_Z :=
  repeat match goal with |- context [Coq.Init.Nat.of_num_uint ?u] =>
    let x := fresh "lit" in let h := fresh "hlit" in
    let v := eval compute in (Coq.ZArith.BinInt.Z.of_num_uint u) in
    remember (Coq.Init.Nat.of_num_uint u) as x eqn:h;
    assert (Coq.ZArith.BinInt.Z.of_nat x = v) by (rewrite h; rewrite nat_literal_Z_eq; reflexivity); clear h
  end;
  lazymatch goal with
  | |- @eq nat _ _ => apply Coq.ZArith.Znat.Nat2Z.inj
  | |- Coq.Init.Peano.le _ _ => apply Coq.ZArith.Znat.Nat2Z.inj_le
  | |- Coq.Init.Peano.lt _ _ => apply Coq.ZArith.Znat.Nat2Z.inj_lt
  | |- Coq.Init.Peano.ge _ _ => apply Coq.ZArith.Znat.Nat2Z.inj_ge
  | |- Coq.Init.Peano.gt _ _ => apply Coq.ZArith.Znat.Nat2Z.inj_gt
  end;
  repeat first [ rewrite Coq.ZArith.Znat.Nat2Z.inj_add | rewrite Coq.ZArith.Znat.Nat2Z.inj_mul
               | rewrite Coq.ZArith.Znat.Nat2Z.inj_sub_max | rewrite Coq.ZArith.Znat.Nat2Z.inj_mod
               | rewrite Coq.ZArith.Znat.Nat2Z.inj_div | rewrite Coq.ZArith.Znat.Nat2Z.inj_pow
               | rewrite nat_gcd_Z | rewrite nat_lcm_Z ];
  repeat match goal with H : Coq.ZArith.BinInt.Z.of_nat ?x = _ |- _ => is_var x; (rewrite H || idtac); clear H end;
  first [ reflexivity | apply Coq.ZArith.BinInt.Z.leb_le; reflexivity | apply Coq.ZArith.BinInt.Z.ltb_lt; reflexivity
        | apply Coq.ZArith.BinInt.Z.geb_ge; reflexivity | apply Coq.ZArith.BinInt.Z.gtb_gt; reflexivity ]."""

_R = "Coq.Reals.Rdefinitions."
_LT, _LE = f"|- {_R}Rlt _", f"|- {_R}Rle _"
_POW, _INR, _IZR = "Coq.Reals.Rpow_def.pow", "Coq.Reals.Raxioms.INR", f"{_R}IZR"
_I, _F, _SQ = "Coq.Reals.RIneq.", "Coq.Reals.Rfunctions.", "Coq.Reals.R_sqrt."

#: Lean's `positivity` as three mutually recursive Ltacs (`0 < e`, `0 <= e`, `e <> 0`) and a front
#: door that normalises `>`/`>=`/`0 <> e` and checks the left side is 0. Each rule applies the
#: stdlib lemma for the top operator and recurses on the parts; a leaf is closed by `assumption`
#: or `lra` (hypotheses such as `0 < x`, `1 < x` for `0 < x - 1`); `0 <= x ^ (2k)` for any x
#: through `pow_mult` and `Rle_0_sqr`. Fully qualified names: resolved when the prelude defines
#: it, before any header, so no header's name can change what it applies.
POSITIVITY_LTAC = f"""Ltac positivity_is_zero z := unify z ({_IZR} Coq.Numbers.BinNums.Z0).
Ltac positivity_lt :=
  first [ assumption
        | match goal with
          {_LT} ({_R}Rplus _ _) =>
              first [ apply {_I}Rplus_lt_0_compat; positivity_lt
                    | apply {_I}Rplus_lt_le_0_compat; [positivity_lt | positivity_le]
                    | apply {_I}Rplus_le_lt_0_compat; [positivity_le | positivity_lt] ]
          | {_LT} ({_R}Rmult _ _) => apply {_I}Rmult_lt_0_compat; positivity_lt
          | {_LT} ({_R}Rdiv _ _) => apply {_I}Rdiv_lt_0_compat; positivity_lt
          | {_LT} ({_R}Rinv _) => apply {_I}Rinv_0_lt_compat; positivity_lt
          | {_LT} ({_POW} _ 2) => rewrite <- {_F}Rsqr_pow2; apply {_I}Rlt_0_sqr; positivity_ne
          | {_LT} ({_POW} _ _) => apply {_F}pow_lt; positivity_lt
          | {_LT} ({_SQ}sqrt _) => apply {_SQ}sqrt_lt_R0; positivity_lt
          | {_LT} ({_INR} (Coq.Arith.Factorial.fact _)) => apply Coq.Reals.Rprod.INR_fact_lt_0
          | {_LT} ({_INR} _) => apply {_I}lt_0_INR; lia
          | {_LT} ({_IZR} _) => apply {_I}IZR_lt; lia
          | {_LT} (Coq.Reals.Rbasic_fun.Rabs _) => apply Coq.Reals.Rbasic_fun.Rabs_pos_lt; positivity_ne
          end
        | lra ]
with positivity_le :=
  first [ assumption
        | match goal with
          {_LE} ({_R}Rplus _ _) => apply {_I}Rplus_le_le_0_compat; positivity_le
          | {_LE} ({_R}Rmult ?a ?a) => apply {_I}Rle_0_sqr
          | {_LE} ({_R}Rmult _ _) => apply {_I}Rmult_le_pos; positivity_le
          | {_LE} ({_R}Rdiv _ _) => apply {_SQ}Rle_mult_inv_pos; [positivity_le | positivity_lt]
          | {_LE} ({_POW} ?x ?n) =>
              first [ apply {_F}pow_le; positivity_le
                    | let m := eval cbv in (Coq.Init.Nat.div2 n) in
                      let even := eval cbv in (Coq.Init.Nat.even n) in
                      match even with
                      | true => replace ({_POW} x n) with ({_POW} ({_POW} x 2) m)
                                  by (rewrite <- {_F}pow_mult; reflexivity);
                                apply {_F}pow_le; rewrite <- {_F}Rsqr_pow2; apply {_I}Rle_0_sqr
                      end ]
          | {_LE} ({_SQ}sqrt _) => apply {_SQ}sqrt_pos
          | {_LE} (Coq.Reals.Rbasic_fun.Rabs _) => apply Coq.Reals.Rbasic_fun.Rabs_pos
          | {_LE} ({_INR} _) => apply {_I}pos_INR
          | {_LE} ({_IZR} _) => apply {_I}IZR_le; lia
          | {_LE} ({_I}Rsqr _) => apply {_I}Rle_0_sqr
          end
        | apply {_I}Rlt_le; positivity_lt
        | lra ]
with positivity_ne :=
  first [ assumption
        | apply {_I}Rgt_not_eq; unfold {_R}Rgt; positivity_lt
        | match goal with
          |- not (eq ({_R}Rmult _ _) _) => apply {_I}Rmult_integral_contrapositive_currified; positivity_ne
          | |- not (eq ({_R}Rdiv _ _) _) =>
              unfold {_R}Rdiv; apply {_I}Rmult_integral_contrapositive_currified;
              [positivity_ne | apply {_I}Rinv_neq_0_compat; positivity_ne]
          | |- not (eq ({_R}Rinv _) _) => apply {_I}Rinv_neq_0_compat; positivity_ne
          | |- not (eq ({_POW} _ _) _) => apply {_F}pow_nonzero; positivity_ne
          | |- not (eq (Coq.Reals.Rbasic_fun.Rabs _) _) => apply Coq.Reals.Rbasic_fun.Rabs_no_R0; positivity_ne
          | |- not (eq ({_INR} _) _) => apply {_I}not_0_INR; lia
          | |- not (eq ({_IZR} _) _) => apply {_I}IZR_neq; lia
          end
        | apply {_I}Rlt_not_eq; lra
        | lra ].
Ltac positivity :=
  match goal with
  | |- {_R}Rgt _ _ => unfold {_R}Rgt; positivity
  | |- {_R}Rge _ _ => apply {_I}Rle_ge; positivity
  | |- {_R}Rlt ?z _ => positivity_is_zero z; positivity_lt
  | |- {_R}Rle ?z _ => positivity_is_zero z; positivity_le
  | |- not (@eq {_R}R _ ?z) => positivity_is_zero z; positivity_ne
  | |- not (@eq {_R}R ?z _) => positivity_is_zero z; apply not_eq_sym; positivity_ne
  end."""

DEFAULT_PRELUDE = ("Require Import Coq.micromega.Lia Coq.micromega.Lra Coq.micromega.Psatz "
                   "Coq.setoid_ring.Ring Coq.setoid_ring.Field.\nRequire Coq.micromega.ZifyNat.\n"
                   + REWRITE_FUNCTIONS_LTAC + "\n" + POSITIVITY_REQUIRES + "\n" + POSITIVITY_LTAC + "\n"
                   + NAT_NUMBERS_PRELUDE)


#: the tactics each prelude module provides (the demo uses it to say which came from the prelude)
TACTIC_MODULES: dict[str, str] = {"lia": "Lia", "nia": "Lia", "lra": "Lra", "nra": "Psatz", "psatz": "Psatz",
                                  "ring": "Ring", "ring_simplify": "Ring", "field": "Field", "field_simplify": "Field"}


def with_prelude(prelude: str, header: str) -> str:
    """The text loaded before a statement: the prelude, then the theorem's own header."""
    prelude = prelude.strip()
    return f"{prelude}\n{header}" if prelude else header
