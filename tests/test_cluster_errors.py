"""Attaching to a Ray cluster that is not there is one line and exit 2 (docs/ARCHITECTURE.md §On a
cluster): a malformed `ray_address`, or one where no head listens, through the CLI's `main`."""

from __future__ import annotations

import socket

import pytest

from alphaprover.cli import main
from selfplay.ray_cluster import ClusterError, init_ray


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # free once closed: nothing listens there


@pytest.mark.parametrize("command", [
    ["eval", "minif2f-rocq-valid", "--methods", "portfolio", "--limit", "1", "--workers", "2"],
    ["train", "loop=selfplay", "actors=1", "sources=[minif2f-rocq-train]", "max_minutes=1"],
])
def test_no_head_at_the_address_is_one_line_and_exit_2(command: list[str], tmp_path, capsys) -> None:
    port = _closed_port()
    where = ["--out", str(tmp_path / "r.jsonl"), f"runs_dir={tmp_path}"] if command[0] == "eval" else \
        [f"run_dir={tmp_path}/run", "supervised_file=", "library_file="]
    code = main([*command, f"ray_address=127.0.0.1:{port}", *where])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("alphaprover: error: no Ray head answers at 127.0.0.1:") and "Traceback" not in "".join(err)


def test_a_malformed_address_says_what_it_expects() -> None:
    with pytest.raises(ClusterError, match="expected host:port or auto"):
        init_ray("not-an-address", 1)


def test_a_ray_this_process_already_holds_does_not_hide_a_wrong_address(tmp_path, capsys) -> None:
    """An earlier command (or test) in the same process left a local Ray running: asking for another
    address must still attach there — and fail as one line — not run on the Ray it happens to hold."""
    import ray

    ray.init(num_cpus=1, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
    try:
        port = _closed_port()
        code = main(["eval", "minif2f-rocq-valid", "--methods", "portfolio", "--limit", "1", "--workers", "2",
                     f"ray_address=127.0.0.1:{port}", "--out", str(tmp_path / "r.jsonl"), f"runs_dir={tmp_path}"])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2
        assert err[-1].startswith("alphaprover: error: no Ray head answers at 127.0.0.1:")
        assert not (tmp_path / "r.jsonl").exists() or not (tmp_path / "r.jsonl").read_text().strip()
    finally:
        ray.shutdown()
