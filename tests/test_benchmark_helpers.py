"""The pure helpers of benchmark scripts whose tables the docs quote: how they classify steps,
split demonstrations and name families decides what the numbers mean."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.digit_tokens import KINDS, copyable, has_number, split_demonstrations
from benchmarks.heldout_by_family import by_count, read_eval, read_rounds, round_changes
from benchmarks.script_step_ranks import names_existing_hypothesis, without_new_name
from networks.dataset import Example


def test_steps_are_classified_by_the_numbers_they_need() -> None:
    goal = "f : R -> R\nh0 : forall x : R, f (x + 4) = -1 / 2 * f x\nh1 : f 6 = 20\n⊢ f 14 = 5"
    copy = Example(goal, "pose proof (h0 6) as h2.", 3, "")
    compute = Example(goal, "replace ((6 + 4) + 4) with 15 in h3 by ring.", 2, "")
    plain = Example(goal, "lra.", 1, "")
    named = Example(goal, "apply Rplus_0_r in h1.", 1, "")  # digits inside identifiers are not numbers
    assert has_number(copy.tactic) and copyable(copy)
    assert has_number(compute.tactic) and not copyable(compute)  # 15 is nowhere in the goal
    assert not has_number(plain.tactic) and not has_number(named.tactic)
    kinds = {name: [e.tactic for e in (copy, compute, plain, named) if kind(e)] for name, kind in KINDS.items()}
    assert kinds == {"number, copyable": [copy.tactic], "number, computed": [compute.tactic],
                     "without a number": [plain.tactic, named.tactic]}


def test_demonstrations_split_by_whole_items(tmp_path: Path) -> None:
    scripts = tmp_path / "scripts.jsonl"
    rows = [{"goal": f"g{i}{s}", "tactic": "lra.", "steps": 1, "lemma": f"fam_x_{i:05d}"} for i in range(200) for s in range(3)]
    scripts.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    split_demonstrations(scripts, tmp_path / "out", heldout_percent=10)
    lemmas = {side: [json.loads(line)["lemma"] for line in (tmp_path / "out" / f"{side}.jsonl").open()]
              for side in ("train", "valid")}
    assert len(lemmas["train"]) + len(lemmas["valid"]) == 600
    assert not set(lemmas["train"]) & set(lemmas["valid"])  # an item's steps all land on one side
    assert 0 < len(set(lemmas["valid"])) < 60


def test_heldout_rounds_are_read_in_order(tmp_path: Path) -> None:
    for index, proved in enumerate([[True, False], [True, True]]):
        directory = tmp_path / "rounds" / f"r{index:03d}"
        directory.mkdir(parents=True)
        (directory / "heldout.jsonl").write_text("".join(
            json.dumps({"problem": f"heldout/fam_a_{n}", "proved": p}) + "\n" for n, p in enumerate(proved)))
    assert read_rounds(tmp_path) == [{"heldout/fam_a_0": True, "heldout/fam_a_1": False},
                                     {"heldout/fam_a_0": True, "heldout/fam_a_1": True}]


def test_round_changes_count_lost_and_gained_items_by_family_and_eval_files_line_up(tmp_path: Path) -> None:
    rounds = [{"heldout/fam_vieta_1": True, "heldout/fam_vieta_2": True, "heldout/fam_divides_1": False},
              {"heldout/fam_vieta_1": False, "heldout/fam_vieta_2": False, "heldout/fam_divides_1": True},
              {"heldout/fam_vieta_1": False, "heldout/fam_vieta_2": False, "heldout/fam_divides_1": True}]
    assert round_changes(rounds) == [({"vieta": 2}, {"divides": 1}), ({}, {})]
    assert by_count({"divides": 1, "vieta": 2}) == "vieta 2, divides 1" and by_count({}) == "-"
    results = tmp_path / "eval.jsonl"
    records = [{"problem": name, "method": f"mcts-network@runs/x/weights/v00000{v}", "status": status}
               for v, outcome in ((1, "failed"), (0, "proved")) for name, status in
               (("fam_vieta_1", outcome), ("fam_divides_1", "proved"))]
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    labels, columns = read_eval(results)
    assert labels == ["v000000", "v000001"]  # version order, whatever the file's order
    assert columns == [{"heldout/fam_vieta_1": True, "heldout/fam_divides_1": True},
                       {"heldout/fam_vieta_1": False, "heldout/fam_divides_1": True}]
    assert round_changes(columns) == [({"vieta": 1}, {})]


def test_two_runs_versions_of_one_name_stay_apart(tmp_path: Path) -> None:
    """One results file with run A's and run B's `v000006`: two columns, not one merged."""
    results = tmp_path / "both.jsonl"
    records = [{"problem": "fam_vieta_1", "method": f"mcts-network@runs/{run}/weights/v000006", "status": status}
               for run, status in (("a", "proved"), ("b", "failed"))]
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    labels, columns = read_eval(results)
    assert labels == ["runs/a/weights/v000006", "runs/b/weights/v000006"]
    assert columns == [{"heldout/fam_vieta_1": True}, {"heldout/fam_vieta_1": False}]


def test_copy_scale_arms_differ_only_in_what_they_name(tmp_path: Path) -> None:
    from benchmarks.copy_scale import arm_config

    shipped = json.loads(Path("checkpoints/alphaprover-coq-small/config.json").read_text())["model"]
    configs = {arm: arm_config(tmp_path, arm, arm, 128, 1) for arm in ("shipped", "slots", "wide")}
    assert configs["shipped"].model.d_model == shipped["d_model"] and configs["shipped"].number_placeholders == 0
    assert configs["slots"].number_placeholders == 16 and configs["slots"].model == configs["shipped"].model
    assert configs["wide"].model.d_model == 384 and configs["wide"].number_placeholders == 0
    assert {c.train_file for c in configs.values()} == {str(tmp_path / "train.jsonl")}
    assert {c.batch_size for c in configs.values()} == {128} and configs["slots"].out_dir == str(tmp_path / "slots")


def test_average_weights_is_the_parameter_mean_and_refuses_another_tokenizer(tmp_path: Path) -> None:
    import subprocess
    import sys

    import torch

    from benchmarks.average_weights import average_checkpoints
    from networks.checkpoint import load_checkpoint, save_checkpoint
    from networks.model import ProverModel, ProverModelConfig
    from networks.tokenizer import ProofTokenizer

    texts = ["x : R\n⊢ x + 1 > x", "lra.", "n : nat\n⊢ n + 0 = n", "lia."] * 4
    tokenizer = ProofTokenizer.train(texts, vocab_size=300)
    config = ProverModelConfig(vocab_size=tokenizer.vocab_size, d_model=32, d_ff=64, num_heads=2, encoder_layers=1,
                               decoder_layers=1, dropout=0.0, max_goal_tokens=32, max_tactic_tokens=16)
    paths = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        paths.append(save_checkpoint(tmp_path / f"c{seed}", ProverModel(config), tokenizer))
    average_checkpoints(paths, tmp_path / "mean")
    (a, _, _), (b, _, _), (mean, _, metadata) = (load_checkpoint(p) for p in (*paths, tmp_path / "mean"))
    for (name, p), q, m in zip(a.named_parameters(), b.parameters(), mean.parameters()):
        assert torch.allclose(m, (p + q) / 2, atol=1e-6), name
    assert metadata["averaged"] == [str(p) for p in paths]
    other = ProofTokenizer.train(texts + ["nra."] * 8, vocab_size=301)
    torch.manual_seed(2)
    odd = save_checkpoint(tmp_path / "odd", ProverModel(ProverModelConfig.from_dict(
        {**config.to_dict(), "vocab_size": other.vocab_size})), other)
    done = subprocess.run([sys.executable, "benchmarks/average_weights.py", str(tmp_path / "bad"), str(paths[0]), str(odd)],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "another tokenizer" in done.stderr, done.stderr


def test_budget_table_counts_each_version_at_each_budget() -> None:
    from benchmarks.curve_budgets import budget_table

    records = [{"method": "mcts-network@/r/weights/v000000", "budget_simulations": 8, "status": "proved"},
               {"method": "mcts-network@/r/weights/v000000", "budget_simulations": 8, "status": "failed"},
               {"method": "mcts-network@/r/weights/v000001", "budget_simulations": 8, "status": "proved"},
               {"method": "mcts-network@/r/weights/v000001", "budget_simulations": 32, "status": "proved"}]
    assert budget_table(records, ["v000000", "v000001"], [8, 32]) == [["v000000", "1/2", "-"],
                                                                      ["v000001", "1/1", "1/1"]]


def test_repeat_rows_give_each_versions_spread_and_the_change_of_its_mean() -> None:
    from benchmarks.curve_repeats import format_rows, repeat_rows

    def records(proved: dict[str, list[str]]) -> list[dict]:
        return [{"method": f"mcts-network@/r/weights/{version}", "problem": problem,
                 "status": "proved" if problem in names else "failed"}
                for version, names in proved.items() for problem in ("a", "b", "c", "d")]

    repeats = [records({"v0": ["a"], "v1": ["a", "b"], "v2": ["a", "b", "c", "d"]}),
               records({"v0": ["a", "b"], "v1": ["a", "c"], "v2": ["a", "b", "c", "d"]})]
    rows = repeat_rows(repeats, ["v0", "v1", "v2", "v9"])
    assert [r["version"] for r in rows] == ["v0", "v1", "v2"]  # v9 was never searched
    assert [r["counts"] for r in rows] == [[1, 2], [2, 2], [4, 4]]
    assert [(r["always"], r["ever"]) for r in rows] == [(1, 2), (1, 3), (4, 4)]
    assert [r["change"] for r in rows] == [None, 0.5, 2.0]
    assert [r["apart"] for r in rows] == [None, False, True]
    assert format_rows(rows)[3] == "v2\t4,4 /4\t4.00\t4-4\t4/4\t+2.00\tyes"


def test_a_version_missing_from_one_repeat_is_left_out() -> None:
    from benchmarks.curve_repeats import repeat_rows

    one = [{"method": "m@/w/v0", "problem": "a", "status": "proved"}]
    assert repeat_rows([one, []], ["v0"]) == []


def test_slice_evals_search_as_the_run_did() -> None:
    """A run's held-out search uses its own `mcts` block (train.yaml: 16 beams) and held-out decoding;
    `eval` alone would use its defaults (32 beams) and measure something else."""
    from benchmarks.curve_budgets import search_overrides

    run = {"decoding": "sample", "heldout_decoding": "beam", "mcts": {"num_samples": 16, "c_and": 1.0}}
    assert search_overrides(run) == ("decoding=beam", "mcts.c_and=1.0", "mcts.num_samples=16")
    assert search_overrides({"decoding": "sample"}) == ("decoding=sample",)


def test_script_step_misses_are_told_apart_by_the_new_name() -> None:
    goal = "f : R -> R\nh0 : forall x : R, f (x + 4) = f x + 2\nh1 : f 6 = 20\nh2 : f (6 + 4) = f 6 + 2\n⊢ f 14 = 24"
    reference, renamed = "pose proof (h0 (6 + 4)) as h3.", "pose proof (h0 (6 + 4)) as h2."
    assert without_new_name(reference) == without_new_name(renamed) != without_new_name("pose proof (h0 6) as h3.")
    assert names_existing_hypothesis(renamed, goal) and not names_existing_hypothesis(reference, goal)
    assert not names_existing_hypothesis("lra.", goal)


def test_value_label_replay_applies_the_actors_rules_to_tree_records() -> None:
    """benchmarks/value_labels.py rewrites records written under `tree`; its `root` and `none`
    must give what an actor with that rule writes, on a failed search and on a proved one."""
    from benchmarks.value_labels import kept_records
    from lean_interface.api import Goal
    from search.tree import SearchTree
    from selfplay.episode import Episode, Outcome
    from selfplay.targets import episode_records

    def goal(text: str) -> Goal:
        return Goal(text, ref=text)

    failed = SearchTree(goal("A"))
    failed.add_edge(0, "intro.", -1.0, 1.0, [goal("B")])
    failed.root.visits, failed.nodes[1].visits = 5, 4
    proved = SearchTree(goal("A"))
    proved.add_edge(0, "bad.", -2.0, 1.0, [goal("E")])
    proved.nodes[1].visits = 3
    proved.add_edge(0, "lra.", -0.5, 1.0, [])
    for tree, outcome in ((failed, Outcome.FAILED), (proved, Outcome.PROVED)):
        episode = Episode("p", "s", False, outcome, records=tuple(episode_records(tree, "s", unproved="tree")))
        assert kept_records(episode, "as-written") == episode.records
        for rule in ("root", "none"):
            assert list(kept_records(episode, rule)) == episode_records(tree, "s", unproved=rule)
    assert [len(episode_records(tree, "s", unproved="tree")) for tree in (failed, proved)] == [2, 2]  # both rewritten


def test_value_fixed_goals_scores_one_runs_weights_on_another_runs_goals(tmp_path: Path, capsys) -> None:
    import torch

    from benchmarks.policy_baselines import value_auc
    from benchmarks.value_fixed_goals import main as value_fixed_goals
    from networks.checkpoint import save_checkpoint
    from networks.model import ProverModel, ProverModelConfig
    from networks.tokenizer import ProofTokenizer

    goals = [("x : R\n⊢ x + 1 > x", True), ("n : nat\n⊢ n + 0 = n", True), ("x : R\n⊢ x * x < 0", False),
             ("f : R -> R\n⊢ f 3 = 7", False)]
    tokenizer = ProofTokenizer.train([g for g, _ in goals] + ["lra.", "lia."] * 4, vocab_size=300)
    config = ProverModelConfig(vocab_size=tokenizer.vocab_size, d_model=32, d_ff=64, num_heads=2, encoder_layers=1,
                               decoder_layers=1, dropout=0.0, max_goal_tokens=32, max_tactic_tokens=16)
    torch.manual_seed(0)
    weights = save_checkpoint(tmp_path / "a" / "weights" / "v000000", ProverModel(config), tokenizer)
    (tmp_path / "a" / "rounds").mkdir()  # run a: weights, no goal files of its own
    heldout = tmp_path / "b" / "rounds" / "r000" / "heldout.jsonl"
    heldout.parent.mkdir(parents=True)
    heldout.write_text(json.dumps({"problem": "p", "proved": True, "goals": [[g, label] for g, label in goals]}) + "\n",
                       encoding="utf-8")
    assert value_fixed_goals([str(tmp_path / "a"), "--goals", "r000"]) == 2  # not in run a
    assert "r000" in capsys.readouterr().err
    assert value_fixed_goals([str(tmp_path / "a"), "--goals-from", str(tmp_path / "b"), "--goals", "r000"]) == 0
    row = capsys.readouterr().out.strip().splitlines()[-1]
    assert row == f"| v000000 | {value_auc(str(weights), heldout):.3f} |"
