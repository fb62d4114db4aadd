"""Attaching to Ray, and the weights channel of a run (docs/ARCHITECTURE.md §On a cluster).

`init_ray(address, num_cpus)` attaches to a cluster (`address` = `auto` or `host:port`) or starts
a local Ray on 127.0.0.1. Attaching either works or raises `ClusterError` with one line that says
why, in bounded time:
  - the head's port is probed first (`PROBE_SECONDS`): nothing listening is "no Ray head answers";
    Ray itself would retry for minutes;
  - Ray 2.60 turns token authentication on for every cluster `ray start` creates, but a driver
    whose `RAY_AUTH_MODE` is unset sends no token even when one is on disk; so when the mode is
    unset and a token is available (`RAY_AUTH_TOKEN`, `RAY_AUTH_TOKEN_PATH`, `~/.ray/auth_token`)
    the driver switches token mode on, as a node started with `ray start` does;
  - a refused token makes Ray give up after ~20 s with a bare `ConnectionError` (after a line of
    warnings per second on stderr): stderr is held back while `ray.init` runs and the error
    becomes "… rejected: set RAY_AUTH_TOKEN_PATH …".

`WeightsChannel` is the driver's end of weights through Ray: a run-scoped named `WeightsHolder`
actor, fed from the run directory's newest published version (`sync`), read by actors through
`selfplay.weights_store.RayWeights`.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any, Iterator

from selfplay.learner import latest_weights
from selfplay.weights_store import RayWeights, WeightsHolder, pack

#: how long the head's port may take to accept a connection before attaching is given up
PROBE_SECONDS = 5.0
NAMESPACE = "alphaprover"


class ClusterError(ValueError):
    """Attaching to a Ray cluster failed; the message is one line (the CLI prints it, exit 2)."""


def _token_available() -> bool:
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or str(Path.home() / ".ray" / "auth_token")
    return Path(path).is_file()


def _enable_token_mode() -> None:
    """Token mode for this process (and the processes it starts) when a token is available and the
    user did not choose a mode: what `ray start` does for its node."""
    if "RAY_AUTH_MODE" in os.environ or not _token_available():
        return
    os.environ["RAY_AUTH_MODE"] = "token"
    with contextlib.suppress(ImportError):  # Ray caches its config: refresh it (Ray ≥ 2.52)
        from ray._raylet import Config

        Config.initialize("")


def _head(address: str) -> tuple[str, int] | None:
    """(host, port) of `host:port`; None for `auto` (the head recorded by `ray start` here)."""
    if address == "auto":
        return None
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ClusterError(f"bad ray_address {address!r}: expected host:port or auto")
    return host.strip("[]"), int(port)


def _probe(host: str, port: int) -> None:
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS):
            return
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ClusterError(f"no Ray head answers at {host}:{port} ({reason}); start one with "
                           f"`ray start --head --port={port}` or fix ray_address") from None


@contextlib.contextmanager
def _stderr_held() -> Iterator[list[str]]:
    """Hold file descriptor 2 in a temporary file while the body runs (Ray's C++ core writes its
    connection retries there); yields a list that receives what was held."""
    sys.stderr.flush()
    saved = os.dup(2)
    held: list[str] = []
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield held
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            held.append(sink.read().decode("utf-8", "replace"))


#: the address `init_ray` last attached this process to ("" = the local Ray it started; None = none):
#: a second call for the same address (the weights channel, then the actor pool) reuses that Ray
_ATTACHED: str | None = None


def init_ray(address: str, num_cpus: int) -> None:
    """Attach to `address`, or start a local Ray bound to 127.0.0.1 with `num_cpus` slots."""
    import ray

    global _ATTACHED
    if ray.is_initialized():
        if not address or address == _ATTACHED or _attached_to(address):
            return
        # this process holds a Ray it did not attach here (a test's, a previous command's): attach where asked
        ray.shutdown()
    if not address:
        ray.init(num_cpus=num_cpus, include_dashboard=False, _node_ip_address="127.0.0.1",
                 ignore_reinit_error=True, log_to_driver=False)
        _ATTACHED = ""
        return
    head = _head(address)
    if head is not None:
        _probe(*head)
    _enable_token_mode()
    failure = ""
    with _stderr_held() as held:
        try:
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=True)
        except Exception as error:  # noqa: BLE001 - every way attaching fails becomes one line
            failure = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    text = held[0] if held else ""
    if not failure:
        sys.stderr.write(text)
        _ATTACHED = address
        return
    if "InvalidAuthToken" in text or "Authentication token" in text:
        raise ClusterError(f"the Ray cluster at {address} rejected this driver's token (none, or not the "
                           "cluster's): set RAY_AUTH_TOKEN_PATH to the head's token file "
                           "(`ray get-auth-token` on the head prints it)")
    raise ClusterError(f"cannot attach to the Ray cluster at {address}: {failure}")


def _attached_to(address: str) -> bool:
    """Whether this process's Ray is the cluster at `address` (its GCS address, as Ray reports it)."""
    import ray

    try:
        return str(ray.get_runtime_context().gcs_address) == address
    except Exception:  # noqa: BLE001 - a Ray too old or half shut down to say: treat as another cluster
        return False


def cluster_gpus() -> float:
    """GPUs the attached cluster reports (0 without Ray or without GPUs)."""
    import ray

    return float(ray.cluster_resources().get("GPU", 0.0)) if ray.is_initialized() else 0.0


class WeightsChannel:
    """The driver's end of weights through Ray: a named `WeightsHolder` for this run (it lives as
    long as the driver, its owner) fed from `weights_dir`, the run directory's published versions.

    `sync()` puts the newest version on disk into Ray's object store if the holder has an older
    one; the pools call it before each submission, so a version the learner just published reaches
    the next attempt. The driver keeps the object ref: its process owns the bundle."""

    def __init__(self, weights_dir: str | Path, address: str = "", num_cpus: int = 1) -> None:
        import ray

        init_ray(address, num_cpus)
        self.weights_dir = Path(weights_dir)
        self.name = f"weights-{uuid.uuid4().hex[:12]}"
        holder = ray.remote(num_cpus=0)(WeightsHolder)
        self.holder = holder.options(name=self.name, namespace=NAMESPACE).remote()
        self.version = -1
        self.ref: Any = None
        self.sync()

    def source(self) -> RayWeights:
        """What an actor is given instead of the weights directory."""
        return RayWeights(self.name, NAMESPACE)

    def sync(self) -> int:
        """Publish the newest version on disk through Ray if it is newer than the last one; its number."""
        import ray

        latest = latest_weights(self.weights_dir)
        if latest is None or latest[0] <= self.version:
            return self.version
        version, directory = latest
        self.ref = ray.put(pack(directory))
        self.version = ray.get(self.holder.publish.remote(version, [self.ref]))
        return self.version

    def close(self) -> None:
        import ray

        with contextlib.suppress(Exception):
            ray.kill(self.holder)
        self.ref = None


__all__ = ["ClusterError", "NAMESPACE", "WeightsChannel", "cluster_gpus", "init_ray"]
