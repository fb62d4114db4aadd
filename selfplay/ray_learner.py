"""The learner where the GPU is: the plain `Learner` inside a Ray actor (docs/ARCHITECTURE.md §On a cluster).

On a cluster whose GPU is on a worker node, a learner inside the driver never sees it. With
`learner.placement`:
  auto     a Ray actor asking for one GPU when the driver is attached to a cluster (`ray_address`)
           and `learner.device` is `cuda…`, or `auto` and the cluster reports a GPU; else the driver;
  driver   always in the driver (today's behaviour);
  cluster  always a Ray actor (a GPU requested as for `auto`): how this is tested on CPUs.

`RemoteLearner` has the methods `selfplay.runner.LearnerService` calls on a `Learner`, so the
service, the loops and their samplers do not change: batches are sampled in the driver (it owns
the replay buffer) and sent with each step. The learner's node needs no shared storage: the actor
works in a directory of its own, seeded from the run directory (the resumable state, or the start
checkpoint), and the driver mirrors into the run directory each published version
(`weights/vNNNNNN` + `LATEST`, which the pools then push through Ray) and each saved state
(`learner/`), so a run resumes and `solve` reads its weights as before.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Sequence

from selfplay.episode import TrainingRecord
from selfplay.learner import Learner, LearnerConfig, latest_weights, mark_latest
from selfplay.weights_store import Bundle, pack, unpack, write_version


class _LearnerHost:
    """What runs inside the Ray actor: one plain `Learner` in a private directory."""

    def __init__(self, state: Bundle | None, start: Bundle | None, published: int | None, config: LearnerConfig,
                 seed: int) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="alphaprover-learner-"))
        if state is not None:
            unpack(state, self.root / "learner")
        if start is not None:
            unpack(start, self.root / "start")
        if published is not None:  # the driver holds the versions: only the number matters here
            (self.root / "weights").mkdir()
            mark_latest(self.root / "weights", published, self.root / "weights" / f"v{published:06d}")
        before = published
        self.learner = Learner(self.root, self.root / "start", config, seed=seed)
        latest = self.learner.latest_weights()
        self.fresh = latest[0] if latest is not None and latest[0] != before else None

    def first_version(self) -> tuple[int, Bundle] | None:
        """Version 0 when this learner published it (a fresh run): the driver stores it."""
        if self.fresh is None:
            return None
        return self.fresh, pack(self.root / "weights" / f"v{self.fresh:06d}")

    def status(self) -> tuple[int, int, str]:
        return self.learner.step, self.learner.version, str(self.learner.device)

    def train_batch(self, records: Sequence[TrainingRecord]) -> dict[str, float]:
        return self.learner.train_batch(records)

    def losses(self, records: Sequence[TrainingRecord]) -> dict[str, float]:
        return self.learner.losses(records)

    def publish(self) -> tuple[int, Bundle]:
        version, directory = self.learner.publish()
        bundle = pack(directory)
        shutil.rmtree(directory, ignore_errors=True)  # the driver keeps the copy
        return version, bundle

    def save(self) -> Bundle:
        self.learner.save()
        return pack(self.root / "learner")

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class RemoteLearner:
    """A `Learner` on a Ray node (see the module docstring); `step` and `version` mirror the remote's."""

    def __init__(self, run_dir: str | Path, checkpoint: str | Path, config: LearnerConfig, seed: int = 0,
                 num_gpus: float = 0.0) -> None:
        import ray

        from networks.checkpoint import is_checkpoint

        self.config = config
        self.run_dir = Path(run_dir)
        self.weights_dir = self.run_dir / "weights"
        state_dir = self.run_dir / "learner"
        resume = is_checkpoint(state_dir) and (state_dir / "learner_state.pt").is_file()
        latest = latest_weights(self.weights_dir)
        host = ray.remote(num_cpus=1, num_gpus=num_gpus, max_restarts=0)(_LearnerHost)
        self.handle = host.remote(pack(state_dir) if resume else None, None if resume else pack(checkpoint),
                                  latest[0] if latest is not None else None, config, seed)
        first = ray.get(self.handle.first_version.remote())
        if first is not None:
            write_version(self.weights_dir, *first)
        self.step, self.version, self.device = ray.get(self.handle.status.remote())

    def train_batch(self, records: Sequence[TrainingRecord]) -> dict[str, float]:
        import ray

        losses = ray.get(self.handle.train_batch.remote(list(records)))
        self.step += 1
        if self.step % self.config.checkpoint_every == 0:  # the remote saved its state: mirror it
            self.save()
        return losses

    def losses(self, records: Sequence[TrainingRecord]) -> dict[str, float]:
        import ray

        return ray.get(self.handle.losses.remote(list(records)))

    def publish(self) -> tuple[int, Path]:
        """The next version, published remotely and stored in the run directory (state mirrored too)."""
        import ray

        version, bundle = ray.get(self.handle.publish.remote())
        target = write_version(self.weights_dir, version, bundle)
        self.version = version
        self.save()
        return version, target

    def save(self) -> None:
        """The remote's resumable state into `<run_dir>/learner` (staged, then swapped in)."""
        import ray

        unpack(ray.get(self.handle.save.remote()), self.run_dir / "learner")

    def latest_weights(self) -> tuple[int, Path] | None:
        return latest_weights(self.weights_dir)

    def close(self) -> None:
        import ray

        try:
            ray.get(self.handle.close.remote(), timeout=30)
        finally:
            ray.kill(self.handle, no_restart=True)


def learner_gpus(config: LearnerConfig, cluster_gpus: float) -> float:
    """GPUs the learner's Ray actor asks for: one for `cuda…`, one for `auto` when the cluster has any."""
    if config.device.startswith("cuda"):
        return 1.0
    return 1.0 if config.device == "auto" and cluster_gpus > 0 else 0.0


def learner_factory(address: str) -> Callable[..., Any]:
    """What `LearnerService` builds its learner with: `Learner` (in the driver) or a `RemoteLearner`
    (see the module docstring for when)."""

    def make(run_dir: str | Path, checkpoint: str | Path, config: LearnerConfig, seed: int = 0) -> Any:
        if config.placement == "driver" or (config.placement == "auto" and not address):
            return Learner(run_dir, checkpoint, config, seed=seed)
        from selfplay.ray_cluster import cluster_gpus, init_ray

        init_ray(address, num_cpus=max(2, os.cpu_count() or 1))
        gpus = learner_gpus(config, cluster_gpus())
        if config.placement == "auto" and gpus == 0:
            return Learner(run_dir, checkpoint, config, seed=seed)
        return RemoteLearner(run_dir, checkpoint, config, seed=seed, num_gpus=gpus)

    return make


__all__ = ["RemoteLearner", "learner_factory", "learner_gpus"]
