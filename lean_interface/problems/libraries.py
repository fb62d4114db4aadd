"""Where the Coq libraries live: the roots that supervised extraction replays and that self-play's
`stdlib:` source restates lemmas from.

Kept in the problem layer because both `alphaprover extract` (the CLI) and `selfplay.library_lemmas`
need the same roots, and selfplay may not import the CLI package.
"""

from __future__ import annotations

from pathlib import Path

COQ_LIB = Path("/usr/lib/ocaml/coq")
#: Default sources: the standard library (without Init, which needs -noinit) and the Debian Coq
#: libraries written in plain Ltac over Reals/ZArith (Flocq, Coqprime, Bignums) plus Coquelicot
#: (mostly ssreflect-style: pretraining filters those tactics, `networks.dataset.is_ssreflect_tactic`).
#: Debian packages: libcoq-coquelicot libcoq-flocq libcoq-coqprime libcoq-bignums.
DEFAULT_ROOTS = tuple(str(COQ_LIB / "theories") if name == "theories" else str(COQ_LIB / "user-contrib" / name)
                      for name in ("theories", "Coquelicot", "Flocq", "Coqprime", "Bignums"))
#: paths containing one of these are not replayed
DEFAULT_EXCLUDE = ("theories/Init/",)
