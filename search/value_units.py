"""The one unit of value shared by the search, the value head and self-play targets.

V(goal) = −(tactics still needed to close it, counted on the longest branch of its proof), i.e.
a reward of −1 per tactic: a goal one tactic from closed has V = −1, a closed goal needs nothing
(V = 0, `search.selection.node_value`). The network predicts a distribution over "steps still
needed" (1 … num_value_bins) and reads V = −E[steps] (`networks.model.ProverModel.values`).

Training targets in steps:
  * a goal on a found proof: the number of tactics of its sub-proof on its longest branch
    (AND = max over the goals a tactic left, OR = the chosen tactic's), ≥ 1;
  * a goal the search visited enough but did not prove: `UNPROVED_STEPS` — "not proved within
    this budget" (HTPS trains its value on failures the same way), equal to the value the search
    backs up from a goal no tactic works on, so the head and the search agree on what
    hopeless means.
"""

from __future__ import annotations

#: Value of one tactic.
STEP_REWARD = -1.0

#: Steps target of a goal that was searched and not proved; V = −UNPROVED_STEPS.
UNPROVED_STEPS = 40


def value_of_steps(steps: float) -> float:
    """V of a goal needing `steps` more tactics."""
    return STEP_REWARD * steps


def steps_of_value(value: float) -> float:
    """Inverse of `value_of_steps`."""
    return value / STEP_REWARD
