"""The bench-dragon questions from the command line (``flocklab task dragon_chain TASK``)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from flocklab.cli.main import main


def test_turnaround_task_writes_the_document_and_the_contest_tables(tmp_path: Path,
                                                                     capsys) -> None:
    code = main(["task", "dragon_chain", "turnaround", "--pitch", "1.7", "--t-start", "-2",
                 "--t-end", "2",
                 "--out-dir", str(tmp_path)])
    assert code == 0
    answer = json.loads(capsys.readouterr().out.splitlines()[0])
    assert answer["s_curve_length"] == pytest.approx(13.621245, abs=1e-6)
    document = json.loads((tmp_path / "result.json").read_text())
    assert document["task"] == "turnaround" and document["options"]["t_end"] == 2
    rows = list(csv.reader((tmp_path / "result4_positions.csv").open(encoding="utf-8-sig")))
    assert rows[0] == ["", "-2 s", "-1 s", "0 s", "1 s", "2 s"]
    assert rows[1][0] == "龙头x (m)" and rows[-1][0] == "龙尾（后）y (m)" and len(rows) == 449
    assert all(len(cell.split(".")[1]) == 6 for cell in rows[1][1:])
    speeds = list(csv.reader((tmp_path / "result4_speeds.csv").open(encoding="utf-8-sig")))
    assert speeds[1][1:] == ["1.000000"] * 5


@pytest.mark.parametrize(("args", "key"), [
    (["turnaround", "--ratio", "0"], "'ratio'"),
    (["positions", "--t-end", "1000"], "'t_end'"),
    (["min_pitch", "--p-low", "0.5", "--p-high", "0.45"], "'p_high'"),
])
def test_bad_input_is_one_line_naming_the_key(capsys: pytest.CaptureFixture, tmp_path: Path,
                                              args: list[str], key: str) -> None:
    with pytest.raises(SystemExit) as code:
        main(["task", "dragon_chain", *args, "--out-dir", str(tmp_path)])
    assert code.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and key in err
    assert not (tmp_path / "result.json").exists()
