"""Compose the Hydra config tree for a command, and save it with the run.

The CLI uses Hydra's compose API (not `@hydra.main`) so that ordinary flags (`--backend`,
`--json`, …) and Hydra overrides (`search.max_simulations=400`) live side by side on one command
line, and so that a bad override becomes a one-line error with exit code 2.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Sequence

from omegaconf import DictConfig, OmegaConf

from configs import CONFIG_DIR


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


def register_defaults() -> None:
    """Put the dataclass defaults into Hydra's ConfigStore, so every constant is written once:
    in its dataclass (search/config.py, networks/model.py, networks/train.py,
    lean_interface/problems/factory/build.py, alphaprover/policy_config.py, selfplay/loop_config.py,
    ttrl/config.py)."""
    from dataclasses import asdict

    from hydra.core.config_store import ConfigStore

    from alphaprover.policy_config import PolicyConfig
    from lean_interface.problems.factory.build import FactoryConfig
    from networks.model import ProverModelConfig
    from networks.train import PretrainConfig
    from search.config import BestFirstConfig, Budget, MCTSConfig, PortfolioConfig

    store = ConfigStore.instance()
    store.store(name="search_defaults", node={
        "budget": asdict(Budget()),
        "mcts": asdict(MCTSConfig()),
        "best_first": asdict(BestFirstConfig()),
        "portfolio": {"tactics": list(PortfolioConfig().tactics)},
    })
    store.store(name="policy_defaults", node=asdict(PolicyConfig()))
    from selfplay.actor import ActorConfig
    from selfplay.loop_config import ExpertIterationConfig, RunConfig, SelfPlayConfig

    defaults = asdict(SelfPlayConfig(run_dir="???", checkpoint="???"))
    defaults["actor"] = asdict(ActorConfig())
    # expert iteration reads RunConfig's keys from the top level, the rest of its own under `iteration:`
    defaults["iteration"] = {key: value for key, value in asdict(ExpertIterationConfig(run_dir="", checkpoint="")).items()
                             if key not in RunConfig.keys()}
    store.store(name="selfplay_defaults", node=defaults)
    from ttrl.config import TTRLConfig

    store.store(name="ttrl_defaults", node=asdict(TTRLConfig()))
    pretrain = asdict(PretrainConfig(train_file="???", valid_file="???", out_dir="???"))
    pretrain["model"] = asdict(ProverModelConfig())
    store.store(name="pretrain_defaults", node=pretrain)
    factory = asdict(FactoryConfig())
    factory["families"] = list(factory["families"])
    store.store(name="factory_defaults", node=factory)


def load_config(config_name: str, overrides: Sequence[str]) -> DictConfig:
    """Compose `configs/<config_name>.yaml` with `overrides` (Hydra override syntax)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    register_defaults()
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    for override in overrides:
        if "=" not in override:
            raise UsageError(f"unexpected argument {override!r} (config overrides look like key=value)")
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(version_base=None, config_dir=str(CONFIG_DIR)):
            cfg = compose(config_name=config_name, overrides=list(overrides))
    except (HydraException, OmegaConfBaseException, ValueError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UsageError(f"bad config override: {first_line}") from None
    finally:
        GlobalHydra.instance().clear()
    return cfg


def load_run_config(config_name: str, overrides: Sequence[str]) -> DictConfig:
    """The config of a resumable run command (`train`): `configs/<config_name>.yaml` with
    `overrides`, except that when `run_dir` already holds a `config.yaml` and `resume` is on, the
    run's saved settings are the base and only the keys the overrides name take new values — so
    rerunning `alphaprover train run_dir=X` continues X as it was configured, not with today's
    defaults. Keys the saved tree lacks (added to the code since) come from the defaults; keys the
    code no longer has are dropped."""
    cfg = load_config(config_name, overrides)
    saved_path = Path(str(cfg.get("run_dir", ""))) / "config.yaml"
    if not cfg.get("resume", True) or not saved_path.is_file():
        return cfg
    try:
        saved = OmegaConf.load(saved_path)
    except Exception as error:  # noqa: BLE001 - omegaconf/yaml raise several kinds
        raise UsageError(f"{saved_path}: unreadable saved config ({str(error).splitlines()[0]})") from None
    named = [override.split("=", 1)[0].lstrip("+~") for override in overrides]
    merged = load_config(config_name, [o for o in overrides if o.split("=", 1)[0] in ("run_dir", "+run_dir")])
    _overlay(merged, OmegaConf.to_container(saved, resolve=True))
    for key in named:
        OmegaConf.update(merged, key, OmegaConf.select(cfg, key), merge=False, force_add=True)
    print(f"resuming {saved_path.parent} with its saved config"
          + (f" (given now: {', '.join(k for k in named if k != 'run_dir')})" if set(named) - {"run_dir"} else ""))
    return merged


def _overlay(node: DictConfig, saved: object) -> None:
    """Set every leaf of the plain tree `saved` that `node` has (recursively); others are dropped."""
    if not isinstance(saved, dict):
        return
    for key, value in saved.items():
        if key not in node:
            continue
        if isinstance(value, dict) and isinstance(node[key], DictConfig):
            _overlay(node[key], value)
        else:
            node[key] = value


def to_plain(cfg: DictConfig | None) -> dict:
    """A resolved plain dict (raises UsageError on a missing mandatory `???` value)."""
    from omegaconf.errors import MissingMandatoryValue, OmegaConfBaseException

    if cfg is None:
        return {}
    try:
        return OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)  # type: ignore[return-value]
    except MissingMandatoryValue as error:
        raise UsageError(f"missing config value: {str(error).splitlines()[0]}") from None
    except OmegaConfBaseException as error:
        raise UsageError(f"bad config: {str(error).splitlines()[0]}") from None


def new_run_dir(root: str | Path, command: str) -> Path:
    """`<root>/<command>-<UTC timestamp>`, created; unique even for runs started in the same second."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    base = Path(root) / f"{command}-{stamp}"
    base.parent.mkdir(parents=True, exist_ok=True)
    path, n = base, 1
    while True:  # mkdir itself is the test: two processes started in one second cannot both win a name
        try:
            path.mkdir()
            return path
        except FileExistsError:
            n += 1
            path = Path(f"{base}-{n}")


def save_config(cfg: DictConfig, run_dir: Path) -> Path:
    """Write the resolved config tree beside the run's outputs. A resumed run started with other
    settings keeps the tree it ran under before as `config.history/<n>.yaml` (n = 1, 2, …) and
    says which keys changed, so every round of a long run can be traced to the settings it had."""
    path = run_dir / "config.yaml"
    text = OmegaConf.to_yaml(cfg, resolve=True)
    if path.is_file():
        before = path.read_text(encoding="utf-8")
        if before != text:
            history = run_dir / "config.history"
            history.mkdir(exist_ok=True)
            number = 1 + max((int(p.stem) for p in history.glob("*.yaml") if p.stem.isdigit()), default=0)
            (history / f"{number}.yaml").write_text(before, encoding="utf-8")
            changed = changed_keys(OmegaConf.create(before), cfg)
            print(f"config changed since the last start ({', '.join(changed) or 'formatting only'}); "
                  f"the previous one is kept as {history / f'{number}.yaml'}")
    path.write_text(text, encoding="utf-8")
    return path


def changed_keys(before: DictConfig, after: DictConfig) -> list[str]:
    """Dotted keys whose value differs between two config trees (added and removed keys included)."""
    def flat(node, prefix: str = "") -> dict[str, object]:
        if isinstance(node, dict):
            out: dict[str, object] = {}
            for key, value in node.items():
                out.update(flat(value, f"{prefix}{key}."))
            return out
        return {prefix.rstrip("."): node}

    old = flat(OmegaConf.to_container(before, resolve=True))
    new = flat(OmegaConf.to_container(after, resolve=True))
    return sorted(key for key in old.keys() | new.keys() if old.get(key, "<absent>") != new.get(key, "<absent>"))
