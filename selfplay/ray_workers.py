"""Ray as a thin outer layer: actors as restartable Ray actors around the plain `Actor`.

`ray.init(address=…)` attaches to an existing cluster (a user's GPU cluster); without an address
a local Ray is started on 127.0.0.1 only. Each Ray actor is created with `max_restarts=-1`: if
its process dies mid-attempt (killed, out of memory), Ray restarts it (its constructor rebuilds
env and evaluator) and the pool reports that attempt as lost (`None`) — nothing stored is lost,
because only the driver writes the replay buffer.

Actors get their weights through Ray when the pool is given a `WeightsChannel`
(`selfplay.ray_cluster`; docs/ARCHITECTURE.md §On a cluster): the pool syncs the channel before
each submission, so an actor on a node that cannot see the run directory still searches with the
newest published version. Attaching (`init_ray`) is `selfplay.ray_cluster`'s.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from pathlib import Path
from typing import Any, Callable

from selfplay.actor import Actor
from selfplay.episode import Episode
from selfplay.matchmaker import Attempt
from selfplay.ray_cluster import WeightsChannel, init_ray

log = logging.getLogger(__name__)


class _ActorHost:
    """What runs inside a Ray actor process: one plain `Actor`, dict in, dict out."""

    def __init__(self, make_actor: Callable[[], Actor]) -> None:
        self.actor = make_actor()

    def play(self, attempt: dict[str, Any]) -> dict[str, Any]:
        return self.actor.play(Attempt.from_dict(attempt)).to_dict()

    def pid(self) -> int:
        return os.getpid()

    def weights_version(self) -> int:
        """The newest version this actor can get (loaded now if newer than the one it searched with)."""
        return self.actor.refresh_weights()

    def close(self) -> None:
        """Close the actor's prover (its whole process group) before Ray kills this process."""
        self.actor.close()


class RayActors:
    """An `ActorPool` of `n` Ray actors; `make_actor(i)` builds actor i inside its process.

    With `weights` (the channel whose `source()` the recipes hand their actors) the pool pushes
    each newly published version through Ray before the next submission and closes the channel
    with the pool."""

    def __init__(self, n: int, make_actor: Callable[[int], Callable[[], Actor]], address: str = "",
                 cpus_per_actor: float = 1.0, weights: WeightsChannel | None = None) -> None:
        import ray

        init_ray(address, num_cpus=max(n, os.cpu_count() or 1))
        self.weights = weights
        remote = ray.remote(num_cpus=cpus_per_actor, max_restarts=-1, max_task_retries=0)(_ActorHost)
        self.handles = [remote.remote(make_actor(i)) for i in range(n)]
        self.busy: dict[Any, tuple[int, Attempt]] = {}  # object ref → (actor index, attempt)
        self.recovering: dict[int, Any] = {}  # actor index → ref of a readiness probe
        self.restarts = 0

    def _available(self) -> list[int]:
        taken = {index for index, _ in self.busy.values()} | set(self.recovering)
        return [i for i in range(len(self.handles)) if i not in taken]

    def idle(self) -> int:
        return len(self._available())

    def submit(self, attempt: Attempt) -> None:
        if self.weights is not None:
            self.weights.sync()
        index = self._available()[0]
        self.busy[self.handles[index].play.remote(attempt.to_dict())] = (index, attempt)

    def poll(self, timeout: float) -> list[tuple[Attempt, Episode | None]]:
        import ray

        self._check_recovering()
        if not self.busy:
            time.sleep(min(timeout, 0.2))  # only restarting actors: do not spin
            return []
        ready, _ = ray.wait(list(self.busy), num_returns=len(self.busy), timeout=timeout)
        done: list[tuple[Attempt, Episode | None]] = []
        for ref in ready:
            index, attempt = self.busy.pop(ref)
            try:
                done.append((attempt, Episode.from_dict(ray.get(ref))))
            except ray.exceptions.RayActorError as error:  # died mid-attempt; Ray restarts it
                self.restarts += 1
                log.warning("actor %d died during %s (%s); Ray restarts it", index, attempt.problem,
                            str(error).splitlines()[0] if str(error) else type(error).__name__)
                done.append((attempt, None))
                self.recovering[index] = self.handles[index].pid.remote()
        return done

    def _check_recovering(self) -> None:
        """An actor that died is used again once Ray has restarted it (its probe answers)."""
        import ray

        for index, probe in list(self.recovering.items()):
            ready, _ = ray.wait([probe], timeout=0)
            if not ready:
                continue
            try:
                ray.get(probe)
                del self.recovering[index]
            except ray.exceptions.RayActorError:  # still restarting: probe again
                self.recovering[index] = self.handles[index].pid.remote()

    def weights_versions(self) -> list[int]:
        """Each actor's weights version after asking its source for the newest one."""
        import ray

        if self.weights is not None:
            self.weights.sync()
        return ray.get([h.weights_version.remote() for h in self.handles])

    def pids(self) -> list[int]:
        import ray

        return ray.get([h.pid.remote() for h in self.handles])

    def close(self, grace_seconds: float = 30.0) -> None:
        """Each actor closes its prover first (its process group killed by `kill_process`), then
        Ray kills it: `ray.kill` alone left a prover's helpers behind (`csdpcert` running `csdp`
        through the next phase). An actor that does not answer in `grace_seconds` is killed anyway."""
        import ray

        if self.weights is not None:
            self.weights.close()
            self.weights = None
        if not self.handles:
            return
        closing = [handle.close.remote() for handle in self.handles]
        with contextlib.suppress(Exception):  # a dead or stuck actor: killed below all the same
            ray.wait(closing, num_returns=len(closing), timeout=grace_seconds)
        for handle in self.handles:
            ray.kill(handle, no_restart=True)
        self.handles = []
        self.busy.clear()


def ray_pool(n: int, recipe: Callable[[int, Any], Callable[[], Actor]], address: str,
             weights_dir: str | Path) -> RayActors:
    """`n` Ray actors whose weights come through Ray: `recipe(i, weights)` builds actor i with
    `weights` = the channel's `RayWeights` (never `weights_dir`, which is the driver's)."""
    init_ray(address, num_cpus=max(n, os.cpu_count() or 1))
    channel = WeightsChannel(weights_dir, address)
    return RayActors(n, lambda i: recipe(i, channel.source()), address, weights=channel)
