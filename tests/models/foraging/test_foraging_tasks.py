"""The grouping task: the paired verdict, and a tiny run that writes its table and figure."""

from __future__ import annotations

import json

import numpy as np
import pytest

import flocklab
from flocklab.analysis.verdicts import VERDICTS
from flocklab.models.foraging.tasks import paired_verdict


@pytest.mark.parametrize(("shift", "better", "verdict"), [
    (0.2, "higher", "holds"), (-0.2, "higher", "fails"), (0.0, "higher", "untestable"),
    (0.2, "lower", "fails"), (-0.2, "lower", "holds")])
# (shift 0: every difference zero, which no test can judge: untestable)
def test_the_paired_verdict_follows_the_sign_of_a_clear_difference(shift, better, verdict):
    rng = np.random.default_rng(1)
    solitary = rng.uniform(0.2, 0.6, 12)
    noise = rng.normal(0.0, 0.02, 12) if shift else np.zeros(12)
    got = paired_verdict("c", solitary + shift + noise, solitary, better=better)
    assert got.verdict == verdict and got.n == 12


def test_a_small_difference_among_noisy_seeds_is_inconclusive():
    rng = np.random.default_rng(2)
    solitary = rng.uniform(0.2, 0.6, 12)
    grouped = solitary + rng.normal(0.0, 0.2, 12)
    verdict = paired_verdict("c", grouped, solitary, alpha=0.01)
    assert verdict.verdict == "inconclusive" and verdict.detectable > 0.05


def test_twelve_pairs_in_one_direction_give_the_exact_smallest_p():
    """All 12 differences positive: 2 of the 2^12 sign patterns are as extreme, p = 1/2048
    (exact, every pattern enumerated)."""
    verdict = paired_verdict("c", np.arange(1.0, 13.0), np.zeros(12))
    assert verdict.verdict == "holds" and verdict.p == pytest.approx(2 / 2 ** 12)


def test_the_grouping_task_runs_both_conditions_on_the_same_seeds(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from flocklab.stages.tasks import run_task

    entry = {"model": "foraging", "task": "grouping",
             "params": {"N": 20, "Lx": 40.0, "Ly": 40.0, "patches": 3, "E0": 5.0},
             "options": {"replicates": 6, "t_end": 30.0, "record_every": 1.0}}
    document = run_task(entry, tmp_path / "result.json")
    result = json.loads((tmp_path / "result.json").read_text())["result"]
    assert [claim["output"] for claim in result["verdicts"]] == ["survival", "food_time"]
    assert all(claim["verdict"] in VERDICTS for claim in result["verdicts"])
    assert result["verdict"] == result["verdicts"][0]["verdict"]
    assert len(result["survival"]["grouped"]) == len(result["survival"]["solitary"]) == 6
    assert len(result["time"]) == 31
    rows = (tmp_path / "grouping.csv").read_text().splitlines()
    assert len(rows) == 13 and rows[0].startswith("condition,seed,survival")
    fig = plt.figure()
    flocklab.get_model("foraging").task("grouping").draw(fig, document, {})
    plt.close(fig)


def test_the_budget_task_meets_its_closed_forms(tmp_path):
    from flocklab.stages.tasks import run_task

    entry = {"model": "foraging", "task": "budget",
             "options": {"speeds": [0.5, 3.0], "densities": [0.1, 1.0], "dt": 0.3,
                         "t_end": 30.0}}
    result = run_task(entry, tmp_path / "result.json")["result"]
    assert len(result["rows"]) == 4 and result["largest_error"] < 1e-9
    assert (tmp_path / "budget.csv").read_text().startswith("check,value,measured")
