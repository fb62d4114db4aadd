"""How one attempt at a theorem ended: the one outcome enum of a `search.solve` attempt, wherever
it is recorded (docs/ARCHITECTURE.md §Self-play, §Expert iteration).

A self-play episode (`selfplay.episode.Episode.outcome`, one line of a replay shard) and an eval
record (`alphaprover.eval_records.ProblemRecord.status`, one line of a results file) both say how
one attempt ended, in the same words, so they share this enum. Its values are what those files
hold: they never change, so old run directories and results files still load.

Kept apart on purpose, because they mean something else:

* `search.tree.Status` (open / proved / failed): a goal's standing inside one search graph. OPEN
  is "still being searched", and FAILED there is "no tactic left that could prove it", which
  only the graph knows; an attempt that ends with its root OPEN is a FAILED attempt here.
* `ttrl.report.TargetStatus` (open / proved / disproved / error): a TTRL target's standing over a
  whole run of many attempts; it stays OPEN between slices and can be DISPROVED, which no single
  attempt at the target's own statement is.
* `ttrl.loop.StopReason` (`SessionResult.stopped`): why one slice of a TTRL run stopped (its
  time, its episode cap, the target decided before or during it).
"""

from __future__ import annotations

import enum


class Outcome(str, enum.Enum):
    """How one attempt ended. PROVED means the backend's `verify` accepted the script."""

    PROVED = "proved"
    FAILED = "failed"                # searched the whole budget, no verified proof
    BAD_STATEMENT = "bad_statement"  # the statement does not elaborate: not attempted. Only eval
                                     # tells it apart (its rate counts attempted problems only);
                                     # self-play records such an attempt as ERROR
    ERROR = "error"                  # the attempt itself broke: the env failed to start, a crash
                                     # (reported, never silently dropped)


__all__ = ["Outcome"]
