"""A Ray cluster of three nodes on this machine, started as the README's "On a cluster" says
(`ray start --head`, `ray start --address`), with token authentication on and a token of its own;
for tests/integration/test_cluster.py and benchmarks/cluster_throughput.py (docs/ARCHITECTURE.md
§On a cluster).

The head has no CPUs (drivers attach to it); `node_b` and `node_c` have `cpus` each. It is stopped
by killing the processes whose command line names its temporary directory: `ray stop` would stop
every Ray on the machine, other users' included.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
REPO = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _processes_of(root: Path) -> list[int]:
    """Processes whose command line names `root`, or that hold a file under it open (Ray's agents
    rewrite their command line to `ray::…`, but keep their logs in the session directory open)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if str(root).encode() in (entry / "cmdline").read_bytes() or any(
                    os.readlink(fd).startswith(str(root)) for fd in (entry / "fd").iterdir()):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


class LoopbackCluster:
    """`ray start --head` + `ray start --address` ×2 under a temporary directory of its own."""

    def __init__(self, cpus: int = 1) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="apc-", dir="/tmp"))
        self.token = self.root / "token"
        self.token.write_text(secrets.token_hex(32))
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(self.token),
                    "RAY_USAGE_STATS_ENABLED": "0"}
        self._ray("start", "--head", "--node-ip-address=127.0.0.1", f"--port={self.port}", "--num-cpus=0",
                  f"--temp-dir={self.root}/ray", "--include-dashboard=false", "--disable-usage-stats")
        self.nodes: dict[str, set[int]] = {}  # a worker node's processes (its raylet and agents)
        for name in ("node_b", "node_c"):
            before = set(_processes_of(self.root))
            self._ray("start", f"--address={self.address}", "--node-ip-address=127.0.0.1", f"--num-cpus={cpus}",
                      f"--resources={json.dumps({name: 1})}")
            self.nodes[name] = set(_processes_of(self.root)) - before

    def _ray(self, *args: str) -> None:
        done = subprocess.run([RAY, *args], env=self.env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]

    def driver_env(self, token: Path | None = None) -> dict[str, str]:
        """What a user's shell has: the token file's path, nothing else of Ray's."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        return {**env, "RAY_AUTH_TOKEN_PATH": str(token or self.token), "PYTHONPATH": str(REPO)}

    def kill_node(self, name: str) -> None:
        assert self.nodes[name]
        for pid in self.nodes[name]:
            with contextlib.suppress(ProcessLookupError):  # already gone
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in _processes_of(self.root):
                with contextlib.suppress(ProcessLookupError):  # already gone
                    os.kill(pid, sig)
            time.sleep(2)


__all__ = ["LoopbackCluster"]
