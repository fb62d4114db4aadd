"""Published weights as bundles of bytes, and where an actor gets its weights from
(docs/ARCHITECTURE.md §On a cluster).

A published version is a directory (`selfplay.learner`: the checkpoint + its CTranslate2 copy).
On one machine an actor can read it where the learner wrote it; on a cluster without a shared file
system the actor's node has no such directory. So a version travels as a *bundle* (relative path →
bytes, `pack`), is unpacked by the actor into a directory of its own (`unpack`; the loaders of
torch and CTranslate2 need files), and the run directory keeps its copy for resuming and `solve`.

Two sources of weights, one interface (`WeightsSource.latest() → (version, directory) | None`):
  `DirectoryWeights`  the run's `weights/` directory (the in-process actor, `actors = 0`);
  `RayWeights`        a named Ray actor (`WeightsHolder`, `selfplay.ray_workers.WeightsChannel` starts
                      it) that knows the newest version and the object ref of its bundle; the actor
                      fetches a newer bundle through Ray's object store into its cache directory.

Plain code except `RayWeights.latest`, which calls Ray: the holder itself is a plain class.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Protocol

from selfplay.learner import latest_weights, mark_latest, swap_in

Bundle = dict[str, bytes]


def pack(directory: str | Path) -> Bundle:
    """Every file under `directory`, by its path relative to it (symlinks followed)."""
    root = Path(directory)
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def unpack(bundle: Bundle, target: str | Path) -> Path:
    """Write `bundle` as the directory `target` (complete before it appears: staged, then swapped
    in by `selfplay.learner.swap_in`, which replaces an older copy)."""
    target = Path(target)
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    for relative, data in bundle.items():
        if Path(relative).is_absolute() or ".." in Path(relative).parts:
            raise ValueError(f"weights bundle path outside its directory: {relative}")
        path = staging / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    staging.mkdir(parents=True, exist_ok=True)  # an empty bundle is an empty directory
    swap_in(staging, target)
    return target


def write_version(weights_dir: str | Path, version: int, bundle: Bundle) -> Path:
    """Store a version received as a bundle the way `Learner.publish` stores one (`vNNNNNN/` and
    then `LATEST`), so a run directory fed from elsewhere (a learner on another node) resumes alike."""
    weights_dir = Path(weights_dir)
    weights_dir.mkdir(parents=True, exist_ok=True)
    target = unpack(bundle, weights_dir / f"v{version:06d}")
    mark_latest(weights_dir, version, target)
    return target


class WeightsSource(Protocol):
    """Where an actor looks for the newest published weights."""

    def latest(self) -> tuple[int, Path] | None: ...
    def close(self) -> None: ...


class DirectoryWeights:
    """The weights directory of a run on this machine (`<run_dir>/weights`)."""

    def __init__(self, weights_dir: str | Path) -> None:
        self.weights_dir = Path(weights_dir)

    def latest(self) -> tuple[int, Path] | None:
        return latest_weights(self.weights_dir)

    def close(self) -> None:
        """Nothing to release: the run directory is the learner's."""

    def __str__(self) -> str:
        return str(self.weights_dir)


class WeightsHolder:
    """What the named Ray actor holds: the newest version and its bundle's object ref (wrapped in a
    list so Ray hands the ref over instead of the bytes; the publisher owns the object)."""

    def __init__(self) -> None:
        self.version = -1
        self.ref: list[Any] = []

    def publish(self, version: int, ref: list[Any]) -> int:
        if version > self.version:
            self.version, self.ref = version, ref
        return self.version

    def latest_version(self) -> int:
        return self.version

    def latest(self) -> tuple[int, list[Any]]:
        return self.version, self.ref


class RayWeights:
    """Picklable: the actor side of a `WeightsHolder` named `name` in Ray namespace `namespace`.

    `latest()` asks the holder for its version (one small call per attempt) and, when it is newer
    than the cached one, fetches the bundle into `<cache_root>/<name>-<pid>/vNNNNNN` (the previous
    version is removed once the new one is in place: a loaded evaluator keeps its weights in memory).
    The run directory is never read."""

    def __init__(self, name: str, namespace: str, cache_root: str = "") -> None:
        self.name, self.namespace, self.cache_root = name, namespace, cache_root
        self._holder: Any = None
        self._cached: tuple[int, Path] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"name": self.name, "namespace": self.namespace, "cache_root": self.cache_root}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["name"], state["namespace"], state["cache_root"])  # type: ignore[misc]

    @property
    def cache_dir(self) -> Path:
        root = Path(self.cache_root or tempfile.gettempdir()) / "alphaprover-weights"
        return root / f"{self.name}-{os.getpid()}"

    def latest(self) -> tuple[int, Path] | None:
        import ray

        if self._holder is None:
            self._holder = ray.get_actor(self.name, namespace=self.namespace)
        version = ray.get(self._holder.latest_version.remote())
        if version < 0:
            return None
        if self._cached is not None and self._cached[0] == version:
            return self._cached
        version, wrapped = ray.get(self._holder.latest.remote())
        bundle = ray.get(wrapped[0])
        previous = self._cached
        self._cached = version, unpack(bundle, self.cache_dir / f"v{version:06d}")
        if previous is not None and previous[1] != self._cached[1]:
            shutil.rmtree(previous[1], ignore_errors=True)
        return self._cached

    def close(self) -> None:
        """Remove this process's cache directory."""
        shutil.rmtree(self.cache_dir, ignore_errors=True)
        self._cached = None

    def __str__(self) -> str:
        return f"ray:{self.namespace}/{self.name}"


__all__ = ["Bundle", "DirectoryWeights", "RayWeights", "WeightsHolder", "WeightsSource", "pack", "unpack",
           "write_version"]
