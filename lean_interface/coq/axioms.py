"""The axioms a verified Coq proof may rest on: an explicit list of fully qualified names.

Derived, not guessed: `benchmarks/axiom_audit.py` compiles every distinct header of the bundled
miniF2F-rocq valid problems (with and without the tactic prelude) and lists what `coqchk -o
-norec` reports; every name it found is below with the reason it is acceptable. Anything else —
an axiom declared by a problem's header, `Coq.Compat.AdmitAxiom.proof_admitted`, an axiom of a
library not listed — makes `verify` refuse the proof. (Measured: across the 102 distinct headers,
the only other names reported were `Rfloor` and `Rfloor_spec`, which amc12a_2016_p3's header
declares as a Parameter/Axiom itself: that problem cannot be verified, by design.) `coqchk -o` reports the axioms of the whole
environment the proof was compiled in (used by the proof or not), so the list is checked against
what the header loads, which is conservative.
"""

from __future__ import annotations

#: Classical logic and extensionality: the standard axioms of classical mathematics, consistent
#: with Coq's theory, assumed by Coq's Reals library (and so by every real-number problem).
CLASSICAL: dict[str, str] = {
    "Coq.Logic.Classical_Prop.classic": "excluded middle (Reals, Classical)",
    "Coq.Logic.FunctionalExtensionality.functional_extensionality_dep":
        "dependent functional extensionality (Reals' construction, FunctionalExtensionality)",
    "Coq.Reals.ClassicalDedekindReals.sig_forall_dec":
        "limited principle of omniscience on decidable predicates over nat (Reals' Dedekind cuts)",
    "Coq.Reals.ClassicalDedekindReals.sig_not_dec":
        "weak excluded middle in Type (Reals' Dedekind cuts)",
    "Coq.Sets.Ensembles.Extensionality_Ensembles":
        "set extensionality (Sets.Ensembles; follows from functional + propositional extensionality)",
}

#: Fields of module types that a sealed module of the stdlib implements (`Module X : T := Impl`).
#: `coqchk -norec` admits the installed library without opening its implementation, so it lists
#: these parameters as axioms; with full recursion (`coqchk -o` without -norec, ~30 s) they are
#: checked definitions and only CLASSICAL remains. They are definitions, not assumptions.
SEALED_MODULE_FIELDS: dict[str, str] = {
    **{f"Coq.Reals.Rdefinitions.RbaseSymbolsImpl.{name}": "Rdefinitions: the real numbers' base symbols"
       for name in ("R", "R0", "R1", "Rplus", "Rmult", "Ropp", "Rlt", "Rabst", "Rrepr", "Rquot1", "Rquot2",
                    "R0_def", "R1_def", "Rplus_def", "Rmult_def", "Ropp_def", "Rlt_def")},
    "Coq.Reals.Rdefinitions.RinvImpl.Rinv": "Rdefinitions: real inverse",
    "Coq.Reals.Rdefinitions.RinvImpl.Rinv_def": "Rdefinitions: real inverse",
    **{f"Coq.ssr.ssrunder.Under_rel.{name}": "ssrunder: the `under` tactic's relation (loaded by Setoid)"
       for name in ("Under_rel", "Under_rel_from_rel", "Under_relE", "Over_rel", "over_rel", "over_rel_done",
                    "under_rel_done")},
    # Mathematical Components, loaded by Coquelicot-based headers: `Unlockable` sealed definitions
    **{f"mathcomp.ssreflect.{name}": "mathcomp: a sealed (locked) definition and its unfolding lemma"
       for name in ("bigop.BigOp.bigop", "bigop.BigOp.bigopE", "finfun.FinfunDef.finfun", "finfun.FinfunDef.finfunE",
                    "finset.Imset.imset", "finset.Imset.imset2", "finset.Imset.imset2E", "finset.Imset.imsetE",
                    "finset.SetDef.finset", "finset.SetDef.finsetE", "finset.SetDef.pred_of_set",
                    "finset.SetDef.pred_of_setE", "fintype.CardDef.card", "fintype.CardDef.cardEdef",
                    "fintype.Finite.EnumDef.enum", "fintype.Finite.EnumDef.enumDef", "fintype.SubsetDef.subset",
                    "fintype.SubsetDef.subsetEdef", "generic_quotient.MPi.E", "generic_quotient.MPi.f",
                    "generic_quotient.Pi.E", "generic_quotient.Pi.f", "generic_quotient.Repr.E",
                    "generic_quotient.Repr.f", "tuple.FinTuple.enum", "tuple.FinTuple.enumP",
                    "tuple.FinTuple.size_enum")},
}

ALLOWED_AXIOMS: dict[str, str] = {**CLASSICAL, **SEALED_MODULE_FIELDS}
