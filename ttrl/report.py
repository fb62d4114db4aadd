"""TTRL run state, compute scheduling and reports (pure: no prover, no network, no torch).

A competition run (`alphaprover ttrl`) works on many targets under one wall-clock budget. Its
durable state is `<run_dir>/state.json`, written atomically (`lean_interface.durable.write_atomic`:
temp file + fsync + `os.replace`, then the directory fsynced) after every episode, so a `kill -9`
loses at most the seconds of one episode and never a proof:

  {"version": 1, "elapsed_seconds": …, "max_minutes": …,
   "targets": {"<name>": TargetState.to_dict(), …}}        (in scheduling order)

Everything a target's report says about episodes (its verified proof, variants proved/disproved,
which variants were proved before the target) is *derived from its replay buffer* by
`EpisodeSummary` (the buffer is fsynced per episode and append-only), so state.json can always be
reconciled with the buffer after a crash: a proof stored in the buffer is never lost even if the
state was written before it.

Scheduling (`next_slice`): compute goes in slices of `slice_seconds`, each to the *open* target
(not proved, not disproved, not in error) that has used the fewest seconds so far (ties: the
order of the targets), so time is spread round-robin over the unsolved targets and a solved one
gets nothing more. The last slice is cut to what is left; nothing starts with less than
`min_seconds` left.

`report.md` and `report.json` (`write_report`) are rewritten after every slice.
"""

from __future__ import annotations

import enum
import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Iterable, Mapping

from lean_interface.durable import write_atomic
from selfplay.episode import Episode

STATE_VERSION = 1
STATE_FILE = "state.json"


class TargetStatus(enum.StrEnum):
    """A target's standing over a whole TTRL run: OPEN until a slice decides it; PROVED (a verified
    proof), DISPROVED (a verified proof of its negation) or ERROR (its statement cannot be read, or
    its attempts keep ending in error). Not an attempt's outcome (`search.outcome.Outcome`): a
    target stays OPEN over many FAILED attempts, and DISPROVED belongs to no single attempt at the
    target's own statement. A StrEnum: state.json holds the plain value, and a target reads as its
    value in reports."""

    OPEN = "open"
    PROVED = "proved"
    DISPROVED = "disproved"
    ERROR = "error"


class StopReason(enum.StrEnum):
    """Why one slice of a TTRL run stopped. Its own enum: TIME, EPISODES and DECIDED_BEFORE end a
    slice, not an attempt (`search.outcome.Outcome`) or a target (`TargetStatus`); PROVED,
    DISPROVED and ERROR say the target was decided in this slice, which the target's status then
    records. A StrEnum, equal to its plain value (`"decided-before"`)."""

    PROVED = "proved"
    DISPROVED = "disproved"
    ERROR = "error"
    TIME = "time"                      # the slice's seconds ran out
    EPISODES = "episodes"              # the slice's episode cap was reached
    DECIDED_BEFORE = "decided-before"  # the buffer already held the target's proof or disproof


#: the members under their own names (`ttrl.loop`, `alphaprover.ttrl_cmd` and the tests read them so)
OPEN, PROVED, DISPROVED, ERROR = TargetStatus.OPEN, TargetStatus.PROVED, TargetStatus.DISPROVED, TargetStatus.ERROR
TARGET_PREFIX = "target/"
VARIANT_PREFIX = "variants/"


@dataclass
class TargetState:
    """What the run knows about one target.

    Fields:
      name:                the target's name (its run directory is `<run_dir>/<name>/`).
      statement:           the target's Coq/Lean statement.
      status:              open | proved | disproved (a verified proof of its negation) | error.
      proof:               the verified proof script (of the negation when disproved).
      seconds:             wall-clock seconds of every slice given to it (setup included).
      slices:              slices given to it.
      episodes:            self-play episodes stored for it (target and variants).
      target_attempts:     of those, attempts at the target itself (prove direction).
      variants_generated:  variants made (structural + open subgoals).
      variants_by_kind:    how many of each generator.
      variants_proved:     names of variants with a verified proof.
      variants_disproved:  names of variants whose negation was proved.
      proved_before:       variants proved before the target's proof: [{"name", "statement"}].
      lemmas_used:         subgoal variants whose proofs the target's proof replays (`ttrl.lemmas`).
      proved_at_seconds:   the target's `seconds` when its proof was stored.
      error:               why, for status error.
    """

    name: str
    statement: str = ""
    status: TargetStatus = OPEN
    proof: str | None = None
    seconds: float = 0.0
    slices: int = 0
    episodes: int = 0
    target_attempts: int = 0
    variants_generated: int = 0
    variants_by_kind: dict[str, int] = field(default_factory=dict)
    variants_proved: list[str] = field(default_factory=list)
    variants_disproved: list[str] = field(default_factory=list)
    proved_before: list[dict[str, str]] = field(default_factory=list)
    lemmas_used: list[str] = field(default_factory=list)
    proved_at_seconds: float | None = None
    error: str = ""

    def __post_init__(self) -> None:
        try:
            self.status = TargetStatus(self.status)
        except ValueError:
            raise ValueError(f"target {self.name}: unknown status {self.status!r}") from None

    @property
    def open(self) -> bool:
        return self.status == OPEN

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TargetState":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class RunState:
    """The whole run: targets in scheduling order and the seconds used so far."""

    targets: dict[str, TargetState] = field(default_factory=dict)
    elapsed_seconds: float = 0.0
    max_minutes: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "elapsed_seconds": round(self.elapsed_seconds, 3),
                "max_minutes": self.max_minutes, "targets": {n: t.to_dict() for n, t in self.targets.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RunState":
        if data.get("version") != STATE_VERSION:
            raise ValueError(f"unsupported TTRL state version {data.get('version')!r}")
        targets = {name: TargetState.from_dict({**t, "name": name}) for name, t in data["targets"].items()}
        return cls(targets, float(data.get("elapsed_seconds", 0.0)), float(data.get("max_minutes", 0.0)))

    def add_target(self, name: str, statement: str) -> TargetState:
        """The target's state, created (open) if the run does not know it yet."""
        if name not in self.targets:
            self.targets[name] = TargetState(name, statement)
        return self.targets[name]


# ---- durable files -------------------------------------------------------------------------------

def save_state(run_dir: str | Path, state: RunState) -> None:
    write_atomic(Path(run_dir) / STATE_FILE, json.dumps(state.to_dict(), indent=1, ensure_ascii=False) + "\n")


def load_state(run_dir: str | Path) -> RunState | None:
    """The saved state, or None when the run directory has none. Raises ValueError if unreadable."""
    path = Path(run_dir) / STATE_FILE
    if not path.exists():
        return None
    try:
        return RunState.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a TTRL state file: {error}") from None


# ---- scheduling ------------------------------------------------------------------------------------

def next_slice(state: RunState, names: Iterable[str], remaining_seconds: float, slice_seconds: float,
               min_seconds: float = 5.0) -> tuple[str, float] | None:
    """(target, seconds) for the next slice, or None when no open target is left among `names`
    or less than `min_seconds` remain. The open target with the fewest seconds so far wins (ties:
    the order of `names`); the slice is `slice_seconds`, cut to `remaining_seconds`."""
    if remaining_seconds < max(min_seconds, 1e-9):
        return None
    candidates = [(state.targets[n].seconds, index, n) for index, n in enumerate(names)
                  if n in state.targets and state.targets[n].open]
    if not candidates:
        return None
    _, _, name = min(candidates)
    return name, min(slice_seconds, remaining_seconds)


# ---- what a target's episodes say ----------------------------------------------------------------

class EpisodeSummary:
    """Folds a target's episodes (in buffer order) into its report facts: the first verified proof
    (or disproof) of the target, the variants proved / disproved, and which variants had been
    proved before the target's proof. Episodes of other problems are ignored."""

    def __init__(self, target_id: str) -> None:
        self.target_id = target_id
        self.episodes = 0
        self.target_attempts = 0
        self.proof: str | None = None
        self.disproof: str | None = None
        self.variants_proved: list[str] = []
        self.variants_disproved: list[str] = []
        self.proved_before: list[str] | None = None   # variant ids, fixed at the target's proof

    @property
    def decided(self) -> bool:
        return self.proof is not None or self.disproof is not None

    def add(self, episode: Episode) -> None:
        if episode.problem == self.target_id:
            self.episodes += 1
            self.target_attempts += not episode.disprove
            if episode.proved and episode.proof is not None and not self.decided:
                if episode.disprove:
                    self.disproof = episode.proof
                else:
                    self.proof = episode.proof
                    self.proved_before = list(self.variants_proved)
            return
        if not episode.problem.startswith(VARIANT_PREFIX):
            return
        self.episodes += 1
        if not episode.proved:
            return
        bucket = self.variants_disproved if episode.disprove else self.variants_proved
        if episode.problem not in bucket:
            bucket.append(episode.problem)

    def add_all(self, episodes: Iterable[Episode]) -> "EpisodeSummary":
        for episode in episodes:
            self.add(episode)
        return self

    def apply(self, target: TargetState, statements: Mapping[str, str]) -> None:
        """Write these facts into `target`; `statements` maps variant names to their propositions."""
        target.episodes = self.episodes
        target.target_attempts = self.target_attempts
        target.variants_proved = [v.removeprefix(VARIANT_PREFIX) for v in self.variants_proved]
        target.variants_disproved = [v.removeprefix(VARIANT_PREFIX) for v in self.variants_disproved]
        if self.proof is not None and target.status != PROVED:
            target.status, target.proof = PROVED, self.proof
            target.proved_at_seconds = round(target.seconds, 3)
        elif self.disproof is not None and target.status == OPEN:
            target.status, target.proof = DISPROVED, self.disproof
            target.proved_at_seconds = round(target.seconds, 3)
        if self.proved_before is not None:
            names = [v.removeprefix(VARIANT_PREFIX) for v in self.proved_before]
            target.proved_before = [{"name": n, "statement": statements.get(n, "")} for n in names]


# ---- reports ---------------------------------------------------------------------------------------

def report_dict(state: RunState) -> dict[str, Any]:
    """report.json: totals and every target's state."""
    targets = list(state.targets.values())
    return {
        "targets": len(targets),
        "proved": sum(t.status == PROVED for t in targets),
        "disproved": sum(t.status == DISPROVED for t in targets),
        "errors": sum(t.status == ERROR for t in targets),
        "elapsed_seconds": round(state.elapsed_seconds, 1),
        "max_minutes": state.max_minutes,
        "results": [t.to_dict() for t in targets],
    }


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"


def _fence(text: str, language: str = "coq") -> list[str]:
    return [f"```{language}", text.rstrip(), "```"]


def render_markdown(state: RunState) -> str:
    """report.md: a table of targets, then each decided target's verified proof and the variants
    proved before it."""
    data = report_dict(state)
    lines = ["# TTRL report", "",
             f"Proved {data['proved']} of {data['targets']} targets"
             + (f", disproved {data['disproved']}" if data["disproved"] else "")
             + (f", {data['errors']} in error" if data["errors"] else "")
             + f"; {_minutes(state.elapsed_seconds)} used of {state.max_minutes:g} min.", "",
             "Every proof below was accepted by the backend's independent verify (Coq: module compile, "
             "coqchk, axiom allow-list) before it was stored.", "",
             "| target | status | time | slices | episodes | target attempts | variants generated | proved | "
             "disproved |",
             "|---|---|---|---|---|---|---|---|---|"]
    for t in state.targets.values():
        when = f" (at {_minutes(t.proved_at_seconds)})" if t.proved_at_seconds is not None else ""
        lines.append(f"| {t.name} | {t.status}{when} | {_minutes(t.seconds)} | {t.slices} | {t.episodes} | "
                     f"{t.target_attempts} | {t.variants_generated} | {len(t.variants_proved)} | "
                     f"{len(t.variants_disproved)} |")
    for t in state.targets.values():
        lines += ["", f"## {t.name}: {t.status}", "", *_fence(t.statement)]
        if t.error:
            lines += ["", f"Error: {t.error}"]
        if t.variants_by_kind:
            kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(t.variants_by_kind.items()))
            lines += ["", f"Variants generated: {t.variants_generated} ({kinds})."]
        if t.status == PROVED:
            lines += ["", "Verified proof:", "", *_fence(t.proof or "")]
            if t.proved_before:
                lines += ["", f"Variants proved before the target ({len(t.proved_before)}):", ""]
                lines += [f"- `{v['name']}`: `{v['statement']}`" for v in t.proved_before]
            else:
                lines += ["", "No variant had been proved before the target."]
            if t.lemmas_used:
                lines += ["", "The proof replays the proofs of these variants (lemmas): "
                          + ", ".join(f"`{n}`" for n in t.lemmas_used) + "."]
        elif t.status == DISPROVED:
            lines += ["", "Verified proof of the negation:", "", *_fence(t.proof or "")]
        if t.variants_proved:
            lines += ["", "Variants proved: " + ", ".join(f"`{n}`" for n in t.variants_proved)]
        if t.variants_disproved:
            lines += ["", "Variants disproved: " + ", ".join(f"`{n}`" for n in t.variants_disproved)]
    return "\n".join(lines) + "\n"


def write_report(run_dir: str | Path, state: RunState) -> tuple[Path, Path]:
    """Rewrite `<run_dir>/report.md` and `report.json` (atomically); return their paths."""
    run_dir = Path(run_dir)
    md, js = run_dir / "report.md", run_dir / "report.json"
    write_atomic(js, json.dumps(report_dict(state), indent=1, ensure_ascii=False) + "\n")
    write_atomic(md, render_markdown(state))
    return md, js


__all__ = ["DISPROVED", "ERROR", "EpisodeSummary", "OPEN", "PROVED", "RunState", "TargetState", "TargetStatus",
           "load_state", "next_slice", "render_markdown", "report_dict", "save_state", "write_report"]
