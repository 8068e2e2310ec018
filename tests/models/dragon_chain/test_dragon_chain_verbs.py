"""``flocklab dragon all|q1..q5``: answers in the contest's words, workbooks in its templates."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest

from flocklab.cli.main import main

#: The contest answers (six decimals), as the task tests know them.
Q2_TIME, Q3_PITCH, Q5_SPEED = 412.473838, 0.450337, 1.246266
BOM = b"\xef\xbb\xbf"


def _csv(path: Path) -> list[list[str]]:
    assert path.read_bytes().startswith(BOM), f"{path.name}: no byte-order mark"
    with path.open(encoding="utf-8-sig", newline="") as stream:
        return list(csv.reader(stream))


def _sheet_rows(sheet) -> list[list[str]]:
    """A sheet's cells as the CSV spells them (empty corner, six-decimal numbers)."""
    return [["" if v is None else v if isinstance(v, str) else f"{v:.6f}" for v in row]
            for row in sheet.iter_rows(values_only=True)]


def _provenance(book) -> dict[str, str]:
    return {prop.name: prop.value for prop in book.custom_doc_props.props}


def test_q2_prints_the_contest_answer_and_writes_result2_in_the_template(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["dragon", "q2", "--out-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert f"舞龙队盘入到 {Q2_TIME:.6f} s 时板凳之间发生碰撞" in out
    # benches numbered from 1: the head bench is the first, body bench 8 the ninth
    assert "第1节板凳（龙头）与第9节板凳（第8节龙身）" in out
    assert "龙尾（后）" in out and "q2 done" in err
    book = openpyxl.load_workbook(tmp_path / "result2.xlsx")
    assert book.sheetnames == ["Sheet1"]
    rows = _sheet_rows(book["Sheet1"])
    assert rows[0] == ["", "横坐标x (m)", "纵坐标y (m)", "速度 (m/s)"]
    assert [r[0] for r in rows[1:3]] == ["龙头", "第1节龙身"] and rows[-1][0] == "龙尾（后）"
    assert len(rows) == 1 + 224 and rows == _csv(tmp_path / "result2.csv")
    provenance = _provenance(book)
    document = json.loads((tmp_path / "q2.json").read_text(encoding="utf-8"))
    assert provenance["git_commit"] == document["git_commit"] != ""
    assert provenance["flocklab_version"] == document["flocklab_version"]
    assert json.loads(provenance["parameters"])["pitch"] == 0.55
    assert document["result"]["answer"]["time"] == Q2_TIME
    paper = _csv(tmp_path / "paper2.csv")
    assert [r[0] for r in paper[1:]] == ["龙头", "第1节龙身", "第51节龙身", "第101节龙身",
                                         "第151节龙身", "第201节龙身", "龙尾（后）"]


def test_q1_workbook_has_the_position_and_speed_sheets_of_the_template(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["dragon", "q1", "--t-end", "2", "--paper-every", "1",
                 "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "paper1_positions.csv" in out and "第201节龙身x (m)" in out
    book = openpyxl.load_workbook(tmp_path / "result1.xlsx")
    assert book.sheetnames == ["位置", "速度"]
    positions, speeds = _sheet_rows(book["位置"]), _sheet_rows(book["速度"])
    assert positions[0] == ["", "0 s", "1 s", "2 s"]
    assert [r[0] for r in positions[1:4]] == ["龙头x (m)", "龙头y (m)", "第1节龙身x (m)"]
    assert [r[0] for r in positions[-4:]] == ["龙尾x (m)", "龙尾y (m)", "龙尾（后）x (m)",
                                              "龙尾（后）y (m)"]
    assert positions[1][1] == "8.800000" and positions[2][1] == "0.000000"
    # the template's speed labels: two spaces before the unit for body benches and tail front
    assert [r[0] for r in speeds[1:3]] == ["龙头 (m/s)", "第1节龙身  (m/s)"]
    assert [r[0] for r in speeds[-2:]] == ["龙尾  (m/s)", "龙尾（后） (m/s)"]
    assert positions == _csv(tmp_path / "result1_positions.csv")
    assert speeds == _csv(tmp_path / "result1_speeds.csv")


def test_q5_answer_and_nothing_written_without_out_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["dragon", "q5", "--t-start", "-20", "--step", "1", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)  # strict JSON on stdout
    assert answer["q5"]["max_head_speed"] == Q5_SPEED
    assert list(tmp_path.iterdir()) == []


def test_every_verb_takes_the_bench_geometry(capsys: pytest.CaptureFixture) -> None:
    assert main(["dragon", "q2", "--n-benches", "40", "--pitch", "0.55"]) == 0
    out = capsys.readouterr().out
    # a shorter dragon: its paper table ends with its own tail, no body bench 51
    assert "第51节龙身" not in out and "龙尾（后）" in out


@pytest.mark.parametrize(("verb", "text"), [
    ("q1", "spiral pitch (distance between turns) [m]; a number > 0; default 0.55"),
    ("q4", "spiral pitch (distance between turns) [m]; a number > 0; default 1.7"),
    ("q3", "default 9.0"),
    ("all", "number of benches [1]; an integer >= 3; default 223"),
])
def test_help_shows_the_defaults(verb: str, text: str, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as code:
        main(["dragon", verb, "--help"])
    assert code.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert text in help_text and "--hole-offset" in help_text


@pytest.mark.parametrize(("args", "words"), [
    (["q1", "--pitch", "-1"], ("'pitch'", "> 0")),
    (["q2", "--n-benches", "2"], ("'n_benches'", ">= 3")),
    (["all", "--hole-offset", "2"], ("'hole_offset'", "[0, board/2)")),
    (["q1", "--t-end", "1000"], ("'t_end'", "centre")),
    (["q3", "--p-low", "0.5", "--p-high", "0.45"], ("'p_high'", "p_low")),
])
def test_bad_input_is_one_line_naming_the_option(args: list[str], words: tuple[str, ...],
                                                 tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as code:
        main(["dragon", *args, "--out-dir", str(tmp_path)])
    assert code.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(err)
    assert err[-1].startswith("flocklab: error:") and all(w in err[-1] for w in words)
    assert not list(tmp_path.glob("*.xlsx"))


@pytest.mark.slow
def test_all_writes_the_three_workbooks_and_answers_q2_q3_q5(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["dragon", "all", "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{Q2_TIME:.6f} s" in out and f"最小螺距为 {Q3_PITCH:.6f} m" in out
    assert f"龙头的最大行进速度为 {Q5_SPEED:.6f} m/s" in out
    for name, sheets, columns in (("result1", ["位置", "速度"], 1 + 301),
                                  ("result2", ["Sheet1"], 4),
                                  ("result4", ["位置", "速度"], 1 + 201)):
        book = openpyxl.load_workbook(tmp_path / f"{name}.xlsx", read_only=True)
        assert book.sheetnames == sheets
        assert book[sheets[0]].max_column == columns
        book.close()
    for name, table in (("result1", "result1_positions"), ("result2", "result2"),
                        ("result4", "result4_positions")):
        _converts_with_libreoffice(tmp_path / f"{name}.xlsx", tmp_path / f"{table}.csv")


def _converts_with_libreoffice(workbook: Path, table: Path) -> None:
    """Where LibreOffice is installed, it opens the workbook: the UTF-8 CSV export of its
    first sheet has our CSV's labels and numbers (elsewhere openpyxl read it back above)."""
    soffice = shutil.which("soffice")
    if soffice is None:
        return
    out_dir = workbook.parent / "soffice"
    profile = (workbook.parent / "soffice-profile").as_uri()
    subprocess.run([soffice, f"-env:UserInstallation={profile}", "--headless", "--convert-to",
                    "csv:Text - txt - csv (StarCalc):44,34,76", "--outdir", str(out_dir),
                    str(workbook)], check=True, capture_output=True, timeout=300)
    with (out_dir / f"{workbook.stem}.csv").open(encoding="utf-8-sig", newline="") as stream:
        converted = list(csv.reader(stream))
    expected = _csv(table)
    assert converted[0] == expected[0]
    assert [row[0] for row in converted] == [row[0] for row in expected]
    assert [[float(c) for c in row[1:]] for row in converted[1:]] == \
        [[float(c) for c in row[1:]] for row in expected[1:]]
