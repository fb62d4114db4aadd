"""selfplay.sources on real Coq: library lemmas of theories/Arith that elaborate in a fresh env
without their own file, variants of two *train* problems (never the dev subset), the dev subset
refused, and a second load answered by the cache."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

from lean_interface.api import Goal, ProofEnv
from lean_interface.coq import CoqEnv
from lean_interface.problems.benchmarks import BUNDLED, dev_problem_names, is_dev_problem
from selfplay import sources as S
from selfplay.negation import negate
from ttrl.variants import variant_theorems

pytestmark = pytest.mark.integration

ARITH = Path("/usr/lib/ocaml/coq/theories/Arith")
VALID = BUNDLED["minif2f-rocq-valid"][0]
TRAIN_PAIR = ("mathd_algebra_119", "mathd_numbertheory_35")


class NoCoq(ProofEnv):
    """Fails the test if a load asks Coq anything (the cache must answer)."""

    prelude = None  # same cache key as a CoqEnv with the default prelude

    def start(self, theorem) -> Goal:
        raise AssertionError("the cache should have answered")

    def apply(self, goal, tactic):
        raise AssertionError("the cache should have answered")

    def render(self, theorem, proof):
        return ""

    def verify(self, theorem, script):
        raise AssertionError("the cache should have answered")


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=10.0) as coq:
        yield coq


def test_arith_lemmas_elaborate_without_their_own_file(tmp_path: Path, env: CoqEnv) -> None:
    spec = f"stdlib:{ARITH}:30"
    started = time.monotonic()
    problems = S.load_source(spec, tmp_path)
    first = time.monotonic() - started
    assert 10 <= len(problems) <= 30
    assert len({p.id for p in problems}) == len(problems)
    with CoqEnv(timeout=10.0) as fresh:
        for problem in problems:
            source, _, rest = problem.id.partition("/")
            path, _, name = rest.rpartition("/")
            assert source == problem.source == "stdlib" and path.startswith("Arith/") and name == problem.theorem.name
            assert (ARITH.parent / f"{path}.v").is_file()
            module = path.rsplit("/", 1)[1]
            # the header never loads the lemma's own file
            assert not re.search(rf"Require\b[^.]*\b(Coq\.Arith\.)?{re.escape(module)}(\s|\.$)",
                                 problem.theorem.header, re.MULTILINE), (problem.id, problem.theorem.header)
            root = fresh.start(problem.theorem)  # raises EnvError if it does not elaborate
            assert not fresh.apply(root, f"exact {name}").closed  # not in scope by its own name
            fresh.start(negate(problem.theorem))  # a proposition: its negation elaborates too
    # the second load is the cache file's
    started = time.monotonic()
    again = S.load_source(spec, tmp_path, env=NoCoq())
    assert again == problems and time.monotonic() - started < min(1.0, first / 5)
    (cache,) = tmp_path.glob("*.jsonl")
    meta = json.loads(cache.read_text().splitlines()[0])
    assert meta["count"] == len(problems) and meta["stats"]["kept"] == len(problems)


def test_variants_of_two_train_problems(tmp_path: Path, env: CoqEnv) -> None:
    directory = tmp_path / "two"
    directory.mkdir()
    for name in TRAIN_PAIR:
        assert not is_dev_problem(name)
        shutil.copy(VALID / f"{name}.v", directory / f"{name}.v")
    spec = f"variants:{directory}:4"
    problems = S.load_source(spec, tmp_path / "cache", env=env, make_variants=variant_theorems)
    assert 2 <= len(problems) <= 8
    assert all(p.id == f"variants/{p.theorem.name}" and p.source == "variants" for p in problems)
    assert {p.theorem.name.rsplit("_v", 1)[0] for p in problems} <= set(TRAIN_PAIR)
    for problem in problems:
        env.start(problem.theorem)
    assert S.load_source(spec, tmp_path / "cache", env=NoCoq()) == problems
    assert not list((tmp_path / "cache").glob("*.partial"))


def test_a_directory_with_a_dev_problem_is_refused(tmp_path: Path) -> None:
    dev_name = sorted(dev_problem_names())[0]
    directory = tmp_path / "mixed"
    directory.mkdir()
    shutil.copy(VALID / f"{dev_name}.v", directory / f"{dev_name}.v")
    shutil.copy(VALID / f"{TRAIN_PAIR[0]}.v", directory / f"{TRAIN_PAIR[0]}.v")
    for spec in (str(directory), f"variants:{directory}:4"):
        with pytest.raises(ValueError, match="dev-subset"):
            S.load_source(spec, tmp_path / "cache", env=NoCoq())
