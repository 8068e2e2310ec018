"""Command line of the bench-dragon questions (``python -m flocklab.models.dragon_chain``)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from flocklab.core.io import open_dataset
from flocklab.models.dragon_chain.cli import main


def test_turnaround_verb_writes_netcdf_json_and_contest_csv(tmp_path: Path) -> None:
    out, geometry, stem = tmp_path / "q4.nc", tmp_path / "q4.json", tmp_path / "result4"
    code = main(["turnaround", "--t-start", "-2", "--t-end", "2", "--out", str(out),
                 "--json", str(geometry), "--csv", str(stem)])
    assert code == 0
    ds = open_dataset(out)
    assert ds["x"].dims == ("time", "handle") and ds.sizes["handle"] == 224
    np.testing.assert_allclose(ds["time"].values, [-2, -1, 0, 1, 2])
    document = json.loads(geometry.read_text())
    lengths = list(document["length_vs_ratio"].values())
    assert max(lengths) - min(lengths) < 1e-9
    rows = list(csv.reader((tmp_path / "result4_positions.csv").open(encoding="utf-8")))
    assert rows[0] == ["", "-2 s", "-1 s", "0 s", "1 s", "2 s"]
    assert rows[1][0] == "龙头x (m)" and rows[-1][0] == "龙尾（后）y (m)" and len(rows) == 449
    assert all(len(cell.split(".")[1]) == 6 for cell in rows[1][1:])
    speeds = list(csv.reader((tmp_path / "result4_speeds.csv").open(encoding="utf-8")))
    assert speeds[1][1:] == ["1.000000"] * 5


def test_bad_parameter_is_one_line_naming_the_key(capsys: pytest.CaptureFixture) -> None:
    assert main(["turnaround", "--ratio", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'ratio'" in err
