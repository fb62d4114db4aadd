"""Per-tactic latency: our CoqEnv against the same sentences sent to a raw coqtop pipe, one run.

For each category both sides do the same Coq work: reach the goal's state (BackTo, and for the
goal switch a replay of the path), run the tactic, read the goals. The raw side is the least a
client can do (write a sentence, read to the prompt); ours adds path bookkeeping, the soundness
guard, `Timeout`, goal parsing and the goal objects. Printed: mean ms per operation and the ratio.

    python benchmarks/env_latency.py [--reps 200]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

from lean_interface.coq import CoqEnv, theorem_from_proposition

HEADER = "Require Import Arith Lia."
STATEMENT = "forall n m : nat, n + m = m + n"


class RawCoqtop:
    """The baseline: a bare pipe to `coqtop -quiet -emacs`, one sentence at a time."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(["coqtop", "-quiet", "-emacs"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self.buffer = b""
        self.state = self._read()

    def _read(self) -> int:
        while b"</prompt>" not in self.buffer:
            self.buffer += os.read(self.proc.stdout.fileno(), 1 << 16)
        head, _, self.buffer = self.buffer.partition(b"</prompt>")
        return int(head.rsplit(b"<prompt>", 1)[1].split(b" < ")[1].split()[0])

    def send(self, sentence: str) -> int:
        self.proc.stdin.write(sentence.encode() + b"\n")
        self.proc.stdin.flush()
        self.state = self._read()
        return self.state

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def time_per_op(fn, reps: int) -> float:
    fn()  # warm up
    started = time.perf_counter()
    for _ in range(reps):
        fn()
    return 1000 * (time.perf_counter() - started) / reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    reps = parser.parse_args().reps

    raw = RawCoqtop()
    for sentence in ("Set Printing Width 1000.", HEADER, f"Theorem t : {STATEMENT}.", "Proof."):
        raw.send(sentence)
    root = raw.state
    after_intros = raw.send("intros n m.")
    after_induction = raw.send("induction n.")
    raw.send("2: {")
    raw.send("simpl.")
    raw.send(f"BackTo {after_induction}.")
    raw.send("2: {")
    step_goal = raw.state

    def raw_op(state: int, *sentences: str):
        def run() -> None:
            raw.send(f"BackTo {state}.")
            for sentence in sentences:
                raw.send(sentence)
        return run

    raw_cases = {
        "intros": raw_op(root, "intros n m."),
        "simpl": raw_op(step_goal, "simpl."),
        "lia": raw_op(after_intros, "lia."),
    }
    switch_raw = [raw_op(after_induction, "1: {", "simpl.", "lia."), raw_op(after_induction, "2: {", "simpl.", "lia.")]
    raw_cases["goal switch (BackTo + replay 2)"] = lambda: (switch_raw[0](), switch_raw[1]())

    env = CoqEnv(timeout=5.0)
    goal = env.start(theorem_from_proposition(STATEMENT, name="t", header=HEADER))
    intro = env.apply(goal, "intros n m").goals[0]
    base, step_case = env.apply(intro, "induction n").goals
    x = env.apply(base, "simpl").goals[0]
    y = env.apply(step_case, "simpl").goals[0]
    ours_cases = {
        "intros": lambda: env.apply(goal, "intros n m"),
        "simpl": lambda: env.apply(step_case, "simpl"),
        "lia": lambda: env.apply(intro, "lia"),
        "goal switch (BackTo + replay 2)": lambda: (env.apply(x, "lia"), env.apply(y, "lia")),
    }
    assert env.apply(y, "lia").closed and env.apply(x, "lia").closed

    print(f"per-operation latency, mean of {reps} (ms)")
    print(f"{'category':34} {'raw coqtop':>11} {'CoqEnv':>9} {'ratio':>7}")
    for name in raw_cases:
        raw_ms = time_per_op(raw_cases[name], reps)
        ours_ms = time_per_op(ours_cases[name], reps)
        print(f"{name:34} {raw_ms:11.3f} {ours_ms:9.3f} {ours_ms / raw_ms:6.2f}x")
    env.close()
    raw.close()


if __name__ == "__main__":
    main()
