"""AND-OR search over tactics: AlphaProof's MCTS, best-first search and the automation portfolio.

Pure code: the prover (`lean_interface.api.ProofEnv`) and the policy/value
(`search.evaluator.Evaluator`) come in as arguments; nothing here imports torch or a network.

Modules, one job each:
  config          MCTSConfig, BestFirstConfig, PortfolioConfig, Budget (every constant once)
  tree            the AND-OR graph: OR nodes, tactic edges, status propagation, invariants, and
                  proof extraction (the smallest proof of a solved graph as a ProofStep tree)
  selection       AlphaProof's PUCT, AND-node choice, progressive-sampling test (pure formulas)
  expansion       statistics, budget clock, one batched evaluator + prover round (shared)
  mcts            run_mcts: parallel simulations with virtual loss, backup
  best_first      run_best_first: ReProver-style best-first by cumulative log-prob (AND-aware)
  portfolio       run_portfolio: decision procedures tried in turn
  solve           solve(): start, search, extract, render, verify; the Method registry
  fixed_evaluator a no-network evaluator (fixed tactics + the goal's hypothesis names)
  tree_html       the graph as a self-contained HTML page
"""
