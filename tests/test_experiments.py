"""Every named experiment (configs/experiment/*.yaml) composes against today's config schema.

Each published number is reproduced by `alphaprover <command> +experiment=NAME`; a key renamed or
dropped in the code must fail here, not in a newcomer's rerun. For each file: it names its
command, every key it sets exists in that command's config tree (free maps such as
`source_weights` excepted), and the command's own validation accepts the composed tree.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import DictConfig, OmegaConf

from alphaprover.config import load_config, to_plain
from configs import CONFIG_DIR

EXPERIMENTS = sorted((CONFIG_DIR / "experiment").glob("*.yaml"))
#: the primary config each command composes
PRIMARY = {"eval": "eval", "solve": "config", "train": "train", "pretrain": "pretrain", "ttrl": "ttrl",
           "factory": "factory"}
#: maps whose keys are data (a source name → its weight), not schema: their entries are not checked
FREE_MAPS = ("source_weights",)
#: Hydra's own keys in a config file (an experiment may build on another through its defaults list)
HYDRA_KEYS = ("defaults",)


def _leaf_paths(node: DictConfig, base: DictConfig, prefix: str = "") -> list[str]:
    """Dotted paths of the experiment's keys, descending only where the base config has a non-empty map."""
    paths = []
    for key in node:
        if not prefix and key in HYDRA_KEYS:
            continue
        path = f"{prefix}{key}"
        paths.append(path)
        below = OmegaConf.select(base, path, default=None)
        if key in FREE_MAPS:
            continue
        if isinstance(node[key], DictConfig) and isinstance(below, DictConfig) and len(below):
            paths += _leaf_paths(node[key], base, f"{path}.")
    return paths


def _missing(base: DictConfig, path: str) -> bool:
    parent, _, key = path.rpartition(".")
    container = OmegaConf.select(base, parent) if parent else base
    return not isinstance(container, DictConfig) or key not in container


def test_there_are_experiments_for_the_headline_numbers() -> None:
    names = {path.stem for path in EXPERIMENTS}
    assert {"dev-eval", "test-eval", "train-eval", "proposers-train"} <= names


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_an_experiment_composes_against_its_commands_schema(path: Path) -> None:
    raw = OmegaConf.load(path)
    assert path.read_text(encoding="utf-8").startswith("# @package _global_"), "experiments set global keys"
    meta = raw.get("experiment")
    assert meta is not None and meta.get("name") == path.stem, "experiment.name is the file's name"
    command = str(meta.get("command"))
    assert command in PRIMARY, f"experiment.command {command!r} is not a command"
    base = load_config(PRIMARY[command], [])
    missing = [p for p in _leaf_paths(raw, base) if not p.startswith("experiment") and _missing(base, p)]
    assert not missing, f"{path.name} sets keys the {command} config does not have: {missing}"
    cfg = load_config(PRIMARY[command], [f"+experiment={path.stem}"])
    _validate(command, to_plain(cfg))


def _validate(command: str, plain: dict) -> None:
    """The checks the command itself makes before it runs anything."""
    from alphaprover.runtime import build_settings

    if command in ("eval", "solve"):
        build_settings(plain)
    if command == "eval":
        from alphaprover.eval_runner import parse_method_label, split_checkpoint
        from lean_interface.problems.benchmarks import load_benchmark

        settings = plain["eval"]
        assert settings["benchmark"] and load_benchmark(str(settings["benchmark"]))
        for label in str(settings["methods"]).split(","):
            parse_method_label(split_checkpoint(label.strip())[0])
        assert int(settings["workers"]) >= 1
    elif command == "pretrain":
        from networks.train import PretrainConfig

        PretrainConfig.from_dict({k: v for k, v in plain.items() if k != "experiment"})
    elif command == "train":
        from selfplay.actor import ActorConfig
        from selfplay.loop_config import ExpertIterationConfig

        ActorConfig.from_dict(plain.get("actor") or {})
        if plain.get("loop") == "expert_iteration":
            ExpertIterationConfig.from_train_config({**plain, "checkpoint": str(plain["checkpoint"])})
        build_settings({**plain, "method": "mcts"})
    elif command == "ttrl":
        from alphaprover.ttrl_cmd import _split_config

        _split_config(plain)
