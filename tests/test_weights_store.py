"""Weights as bundles (docs/ARCHITECTURE.md §On a cluster): a version directory survives pack →
unpack byte for byte, a bundle cannot write outside its directory, a version stored from a bundle
is what `latest_weights` reads, the holder keeps only the newest version, and the learner asks for
a GPU exactly when its device or the cluster says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfplay.learner import LearnerConfig, latest_weights
from selfplay.ray_learner import learner_gpus
from selfplay.weights_store import DirectoryWeights, WeightsHolder, pack, unpack, write_version


def _version_dir(root: Path) -> Path:
    (root / "ct2").mkdir(parents=True)
    (root / "config.json").write_text('{"d": 1}')
    (root / "model.safetensors").write_bytes(bytes(range(256)) * 4)
    (root / "ct2" / "model.bin").write_bytes(b"\x00\x01" * 100)
    return root


def test_pack_unpack_round_trip_and_stored_version_is_the_latest(tmp_path: Path) -> None:
    bundle = pack(_version_dir(tmp_path / "src"))
    assert set(bundle) == {"config.json", "model.safetensors", "ct2/model.bin"}
    copy = unpack(bundle, tmp_path / "copy")
    assert pack(copy) == bundle and not list(tmp_path.glob(".copy*"))
    target = write_version(tmp_path / "run" / "weights", 3, bundle)
    assert latest_weights(tmp_path / "run" / "weights") == (3, target)
    assert DirectoryWeights(tmp_path / "run" / "weights").latest() == (3, target)


def test_a_bundle_path_outside_its_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="outside"):
        unpack({"../escape": b"x"}, tmp_path / "target")
    assert not (tmp_path / "escape").exists()


def test_the_holder_keeps_the_newest_version_only() -> None:
    holder = WeightsHolder()
    assert holder.latest_version() == -1
    assert holder.publish(2, ["ref-2"]) == 2
    assert holder.publish(1, ["ref-1"]) == 2  # an older version arriving late changes nothing
    assert holder.latest() == (2, ["ref-2"])


@pytest.mark.parametrize("device, cluster, wanted", [("cuda", 0, 1.0), ("cuda:1", 4, 1.0), ("auto", 2, 1.0),
                                                     ("auto", 0, 0.0), ("cpu", 8, 0.0)])
def test_the_remote_learner_asks_for_a_gpu_when_its_device_or_the_cluster_says_so(device: str, cluster: float,
                                                                                   wanted: float) -> None:
    assert learner_gpus(LearnerConfig(device=device), cluster) == wanted


def test_an_unknown_learner_placement_is_refused() -> None:
    with pytest.raises(ValueError, match="placement"):
        LearnerConfig(placement="moon")
