"""AND-OR search over tactics: AlphaProof's MCTS, best-first search and the automation portfolio.

Pure code: the prover (`lean_interface.api.ProofEnv`) and the policy/value (`search.evaluator.Evaluator`)
come in as arguments; nothing here imports torch or the network.
"""
