"""The problem factory: tens of thousands of competition-style Coq statements from parameterised
families, each true by construction, elaborated by Coq 8.16, deduplicated by Coq's printing and
labelled by family, seed and split (docs/ARCHITECTURE.md §Data).

  family.py        what a family is; names; the held-out slice (whole families + a seed block)
  render.py        Coq text: headers per domain (R, Z, nat), numerals, linear forms, polynomials
  algebra.py       linear systems and equations, polynomial identities, quadratics, Vieta,
                   functional equations at points
  numbers.py       powers mod m and last digits, congruences, gcd/lcm, divisibility, floor division,
                   word problems over nat
  inequalities.py  squares and AM-GM, minima of quadratics, integer bounds, absolute value
  sums.py          sums by induction (sum_f_R0), concrete sums and products over nat
  skills.py        skill families over R the train split's unproved problems need: square roots,
                   rational equations under `<>`, ln/exp/Rpower, guarded rewrites, INR/IZR casts,
                   identities at points (docs/factory_skills.md)
  skills_numbers.py  the same over nat and Z: residues by rewriting and case splits, computed
                   witnesses, witnesses by induction
  skills_complex.py  Coquelicot's C: equations proved componentwise (injective_projections)
  skills_definitions.py  functions the problem file defines (logb, f, star): `unfold`, then the step
  skills_roots.py  two distinct values of one equation: the nonzero difference factored out and
                   cancelled (`Rmult_integral`), then the symmetric value
  multistep.py     statements no single decision procedure closes: functional equations
                   instantiated at points, recurrences unrolled, Nat.iter closed forms by
                   induction, absolute values by cases, existentials by a witness
  elaborate.py     the Coq check: one coqtop, a key per statement (its printed closed form)
  build.py         draw, refuse dev-subset statements, elaborate, deduplicate, write JSONL

`FAMILIES` is the catalogue, in build order; `family_named` looks one up.
"""

from __future__ import annotations

from lean_interface.problems.factory import (algebra, inequalities, multistep, numbers, skills, skills_complex,
                                             skills_definitions, skills_roots, sums)
from lean_interface.problems.factory.family import Family

FAMILIES: tuple[Family, ...] = (*algebra.FAMILIES, *numbers.FAMILIES, *inequalities.FAMILIES, *sums.FAMILIES,
                               *skills.FAMILIES, *skills_complex.FAMILIES, *skills_definitions.FAMILIES,
                               *skills_roots.FAMILIES, *multistep.FAMILIES)


def family_named(name: str) -> Family:
    """The family called `name`; ValueError (one line, listing the names) otherwise."""
    for family in FAMILIES:
        if family.name == name:
            return family
    raise ValueError(f"no factory family {name!r} (families: {', '.join(f.name for f in FAMILIES)})")


__all__ = ["FAMILIES", "Family", "family_named"]
