"""The Hydra config tree of alphaprover (YAML files beside this module).

`alphaprover.config.load_config(name, overrides)` composes it; every run saves the resolved tree
as `config.yaml` in its run directory.
"""

from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent
