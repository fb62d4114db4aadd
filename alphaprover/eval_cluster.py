"""`alphaprover eval --workers N`: (method, problem) jobs spread over Ray workers (docs/ARCHITECTURE.md
§On a cluster).

Without `ray_address` a local Ray on 127.0.0.1 with N slots; with it, the driver attaches to that
cluster (`selfplay.ray_cluster.init_ray`: one-line errors) and the N workers land wherever the
cluster has a free CPU. Records stream back to the driver, which alone writes the resumable JSONL.

A worker whose process or node dies mid-job (`RayActorError`) is dropped and replaced by a new one
(Ray places it on a node that is alive) and its job goes back to the front of the queue, so every
job is reported exactly once; a job that takes `max_losses` workers down with it is reported as an
ERROR record instead of being retried forever.
"""

from __future__ import annotations

import contextlib
import logging
from collections import deque
from typing import Any, Iterator

from alphaprover.eval_records import ProblemRecord
from alphaprover.eval_runner import make_ray_runner
from search.outcome import Outcome

log = logging.getLogger(__name__)


def _lost_record(cfg: dict, name: str, method: str, reason: str) -> ProblemRecord:
    budget = cfg["budget"]
    return ProblemRecord(problem=name, method=method, status=Outcome.ERROR, seconds=0.0, prover_calls=0,
                         budget_seconds=float(budget["max_seconds"]), budget_simulations=int(budget["max_simulations"]),
                         message=reason[:300])


def run_on_ray(cfg: dict, jobs: list[tuple[Any, str]], workers: int, address: str = "",
               max_losses: int = 3) -> Iterator[ProblemRecord]:
    """One record per job, in the order they finish; `jobs` are (Problem, method) pairs."""
    import ray

    from selfplay.ray_cluster import init_ray

    attached = bool(address)
    init_ray(address, num_cpus=workers)
    queue: deque[tuple[Any, str]] = deque(jobs)
    losses: dict[tuple[str, str], int] = {}
    pending: dict[Any, tuple[Any, tuple[Any, str]]] = {}  # ref of a job → (worker, job)
    starting: dict[Any, Any] = {}  # ref of a readiness probe → worker not yet placed on a node
    idle: list[Any] = []

    def start_worker() -> None:
        worker = make_ray_runner(cfg, restarts=0)
        starting[worker.__ray_ready__.remote()] = worker

    for _ in range(min(workers, len(jobs))):
        start_worker()
    try:
        while queue or pending:
            while idle and queue:  # only placed workers get jobs: a queued one would hold a job back
                worker, job = idle.pop(), queue.popleft()
                problem, method = job
                pending[worker.run.remote(problem.name, problem.theorem, problem.error, method)] = (worker, job)
            done, _ = ray.wait([*pending, *starting], num_returns=1)
            if done[0] in starting:
                worker = starting.pop(done[0])
                try:
                    ray.get(done[0])
                    idle.append(worker)
                except ray.exceptions.RayActorError:  # its node died before it started
                    start_worker()
                continue
            worker, job = pending.pop(done[0])
            try:
                record = ray.get(done[0])
            except ray.exceptions.RayActorError as error:
                key = (job[0].name, job[1])
                losses[key] = losses.get(key, 0) + 1
                reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                log.warning("eval worker lost during %s:%s (%s); a new worker takes its place", job[1], job[0].name,
                            reason)
                with contextlib.suppress(Exception):
                    ray.kill(worker, no_restart=True)
                start_worker()
                if losses[key] >= max_losses:
                    yield _lost_record(cfg, job[0].name, job[1], f"worker lost {losses[key]} times: {reason}")
                else:
                    queue.appendleft(job)
                continue
            idle.append(worker)
            yield record
    finally:
        for worker in [*idle, *starting.values(), *(w for w, _ in pending.values())]:
            with contextlib.suppress(Exception):
                ray.kill(worker, no_restart=True)
        if not attached:
            ray.shutdown()

__all__ = ["run_on_ray"]
