"""The force-based swarm's tasks: the sub-leader verdicts on hand-made turn times (each
verdict can hold and fail), the task options, and a small hierarchy run drawn."""

from __future__ import annotations

import json

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import flocklab
from flocklab.core.parameters import ParameterError
from flocklab.models.forces import hierarchy


def _rows(turn_time, counts=(0, 2, 4, 8, 16), taus=(0.0, 1.0, 3.0), seeds=10):
    """Turn times with noise of s.d. 0.3; the runs without sub-leaders made once per seed and
    listed under every prediction step, as :func:`hierarchy.turn_times` lists them."""
    rng = np.random.default_rng(0)
    zero = {s: float(turn_time(0, 0.0) + 0.3 * rng.standard_normal()) for s in range(seeds)}
    return [{"subleaders": c, "prediction_step": t, "seed": s,
             "turn_time": zero[s] if c == 0 else
             float(turn_time(c, t) + 0.3 * rng.standard_normal()), "turned": 1}
            for t in taus for c in counts for s in range(seeds)]


def _verdicts(rows):
    return [v["verdict"] for v in hierarchy.verdicts(rows)]


def test_saturating_turn_times_independent_of_tau():
    """Faster with more sub-leaders until 8, then no gain; tau plays no part: no effect of tau
    shown is inconclusive, not a failure; 16 against 8 sub-leaders (30 runs each, noise
    0.3) bounds the gain well inside the 10 % margin (0.22)."""
    rows = _rows(lambda c, t: 20.0 / (1.0 + min(c, 8)))
    verdicts = hierarchy.verdicts(rows)
    assert [v["verdict"] for v in verdicts] == ["holds", "inconclusive", "holds"]
    # the 10 runs without sub-leaders count once, not once per prediction step
    assert verdicts[0]["n"] == 10 + 4 * 3 * 10
    assert verdicts[1]["n"] == 4 * 3 * 10 and verdicts[1]["p"] >= 0.05
    assert verdicts[1]["detectable"] > 0 and verdicts[2]["high"] < 0.1 * 20.0 / 9


def test_turn_times_falling_all_the_way_and_rising_with_tau():
    rows = _rows(lambda c, t: 30.0 - c + 2.0 * t)
    assert _verdicts(rows) == ["holds", "holds", "fails"]


def test_sub_leaders_that_slow_the_group_fail_the_first_verdict():
    rows = _rows(lambda c, t: 5.0 + c)
    assert _verdicts(rows)[0] == "fails"


def test_groups_that_never_turn_count_as_censored_in_the_first_verdict():
    """Without sub-leaders no group turns within the run (censored at 35, not a time of 35);
    with them the turn time falls: the log-rank trend test holds and says how many runs
    were censored."""
    rows = _rows(lambda c, t: 35.0 if c == 0 else 20.0 / (1.0 + min(c, 8)))
    for row in rows:
        if row["subleaders"] == 0:
            row["turn_time"], row["turned"] = 35.0, 0
    first = hierarchy.verdicts(rows)[0]
    assert first["verdict"] == "holds" and "log-rank" in first["test"]
    assert "10 censored" in first["evidence"] and first["effect"] > 1.0


def test_summary_table_medians():
    rows = _rows(lambda c, t: 10.0 + c)
    table = hierarchy.summary_table(rows)
    assert len(table) == 15 and all(row["runs"] == 10 for row in table)
    by_count = {row["subleaders"]: row["turn_time_median"] for row in table
                if row["prediction_step"] == 1.0}
    assert by_count[16] - by_count[0] == pytest.approx(16.0, abs=1.0)


def test_a_median_beyond_the_censoring_is_not_made_up():
    """Four runs, two turned (at 1 and 2), two censored at 5: the lower quartile (1.75) and
    nothing above it is known; a mean would have averaged the censoring time in."""
    rows = [{"subleaders": 2, "prediction_step": 0.0, "seed": s, "turn_time": t,
             "turned": int(t < 5.0)} for s, t in enumerate((1.0, 2.0, 5.0, 5.0))]
    row = hierarchy.summary_table(rows)[0]
    assert row["turn_time_q25"] == pytest.approx(1.75)
    assert np.isnan(row["turn_time_median"]) and row["turn_time_median_censored"]
    assert row["turned_share"] == 0.5


def test_hierarchy_options_are_checked():
    model = flocklab.get_model("forces")
    task = model.task("hierarchy")
    params = model.resolve({"N": 20})
    with pytest.raises(ParameterError, match="exceed N = 20"):
        task.resolve(params, {"subleaders": [0, 30]})
    with pytest.raises(ParameterError, match="turn_angle"):
        task.resolve(params, {"subleaders": [0, 4], "turn_angle": 0.0})


def test_a_small_hierarchy_task_runs_and_draws(tmp_path):
    """Three sub-leader counts, two prediction steps, two seeds on 20 agents: a table, the
    turn times within the censoring, three verdicts, CSV tables and a figure."""
    model = flocklab.get_model("forces")
    task = model.task("hierarchy")
    params = model.resolve({"N": 20, "alpha": 1.0, "C_r": 2.0, "l_r": 0.5, "r_cut": 4.0,
                            "r_align": 2.0, "w_alignment": 1.0, "initial": "aligned",
                            "start_radius": 3.0})
    options = task.resolve(params, {"subleaders": [0, 3, 6], "prediction_steps": [0.0, 2.0],
                                    "seeds": 2, "leaders": 2, "turn_time": 1.0,
                                    "t_max": 12.0})
    result = task.run(model, params, options, tmp_path)
    assert len(result["table"]) == 6
    assert all(0.0 < row["turn_time_q25"] <= 11.0 or row["turned_share"] <= 0.5
               for row in result["table"])
    assert len(result["verdicts"]) == 3
    assert (tmp_path / "turn_times.csv").exists()
    fig = plt.figure()
    task.draw(fig, json.loads(json.dumps({"result": result})), {})
    assert fig.axes[0].get_xlabel() == "number of sub-leaders"
    plt.close(fig)
