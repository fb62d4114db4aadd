"""alphaprover: an open AlphaProof — AND-OR MCTS over tactics guided by a policy/value network.

This package is the command line (`alphaprover solve | play | eval | extract | pretrain | demo`);
the machinery lives in `lean_interface`, `networks`, `search`, `selfplay` and `ttrl`.
"""

__version__ = "0.1.0"
