"""``flocklab stability springs`` and ``flocklab accuracy springs``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from flocklab.cli.main import main
from flocklab.models.springs.tasks import LIMIT_STATES, limit_state


def test_limit_states_tell_inf_from_nan_and_zero() -> None:
    assert limit_state(math.inf, measured=True) == "stable_at_every_dt_tried"
    assert limit_state(math.inf, measured=False) == "unconditionally_stable"
    assert limit_state(math.nan, measured=True) == "not_measured"
    assert limit_state(0.0, measured=True) == "unstable_at_every_dt_tried"
    assert limit_state(0.0, measured=False) == "unstable_at_every_dt"
    assert limit_state(0.0376, measured=True) == "measured"
    assert {limit_state(v, m) for v in (math.inf, math.nan, 0.0, 1.0)
            for m in (True, False)} <= set(LIMIT_STATES)


def test_stability_table_measured_theory_ratio_with_progress(
        capsys: pytest.CaptureFixture) -> None:
    assert main(["stability", "springs", "--integrator", "semi_implicit_euler",
                 "--integrator", "implicit_euler_diagonal"]) == 0
    out, err = capsys.readouterr()
    header, first, second = out.splitlines()[:3]
    assert header.split()[:4] == ["configuration", "integrator", "measured", "[s]"]
    assert "ratio" in header
    # tongue defaults: 0.03756 s measured against 0.03767 s in theory
    assert first.split()[3:7] == ["semi_implicit_euler", "0.03756", "0.03767", "0.997"]
    assert second.split()[3:7] == ["implicit_euler_diagonal", "inf", "inf", "both"]
    assert "semi_implicit_euler: dt_max" in err and "implicit_euler_diagonal: dt_max" in err


def test_stability_json_states_stable_everywhere_apart_from_null(tmp_path: Path,
                                                                   capsys) -> None:
    assert main(["stability", "springs", "--integrator", "implicit_euler_diagonal",
                 "--integrator", "semi_implicit_euler", "--out-dir", str(tmp_path)]) == 0
    document = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    rows = {row["method"]: row for row in document["result"]["table"]}
    implicit, explicit = rows["implicit_euler_diagonal"], rows["semi_implicit_euler"]
    assert implicit["dt_measured"] is None and implicit["dt_theory"] is None
    assert implicit["dt_measured_state"] == "stable_at_every_dt_tried"
    assert implicit["dt_theory_state"] == "unconditionally_stable"
    assert explicit["dt_measured_state"] == explicit["dt_theory_state"] == "measured"
    assert document["git_commit"] and document["flocklab_version"]
    assert (tmp_path / "stability.csv").is_file()


def test_cloth_preset_hangs_under_gravity(tmp_path: Path, capsys) -> None:
    assert main(["stability", "springs", "--preset", "cloth", "--nx", "3", "--ny", "3",
                 "--integrator", "semi_implicit_euler", "--json",
                 "--out-dir", str(tmp_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["table"][0]["configuration"].startswith("cloth 3x3")
    document = json.loads((tmp_path / "result.json").read_text())
    params = document["parameters"]
    assert params["structure"] == "cloth" and params["gravity"] == pytest.approx(9.80665)
    assert params["mass"] == 0.01 and params["stiffness"] == 1000.0
    assert document["options"]["run_time"] == 0.25
    # the hanging cloth moves: semi-implicit Euler has a finite limit near the theory's
    row = result["table"][0]
    assert row["dt_measured_state"] == "measured"
    assert row["dt_measured"] == pytest.approx(row["dt_theory"], rel=0.05)


def test_accuracy_gives_the_orders(capsys: pytest.CaptureFixture) -> None:
    assert main(["accuracy", "springs", "--integrator", "explicit_euler",
                 "--integrator", "rk4", "--json"]) == 0
    orders = json.loads(capsys.readouterr().out)["orders"]
    assert orders["explicit_euler"] == pytest.approx(1.0, abs=0.2)
    assert orders["rk4"] == pytest.approx(4.0, abs=0.2)


@pytest.mark.parametrize(("args", "words"), [
    (["stability", "springs", "--integrator", "scipy_RK45"], ("--integrator", "rk4")),
    (["stability", "springs", "--rate", "2"], ("'rate'", "<= 1")),
    (["accuracy", "springs", "--zeta", "1.5"], ("'zeta'", "< 1")),
    (["stability", "vicsek"], ("invalid choice", "springs")),
])
def test_bad_input_is_one_line_naming_the_option(args: list[str], words: tuple[str, ...],
                                                 capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as code:
        main(args)
    assert code.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(err) and all(w in err[-1] for w in words)


def test_a_cloth_that_would_never_move_is_refused(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as code:
        main(["simulate", "springs", "--structure", "cloth", "--t-end", "0.1", "--seed", "1",
              "--out", str(tmp_path / "run.nc")])
    assert code.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'gravity'" in err and "never moves" in err
    assert not (tmp_path / "run.nc").exists()
