"""The bench-dragon contest questions as pipeline tasks (flocklab.stages.tasks.run_task)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from flocklab.core.parameters import ConfigError, ParameterError
from flocklab.core.registry import get_model
from flocklab.pipeline import load_config, validate_config
from flocklab.stages.tasks import run_task

#: Contest answers (README, "The questions: reading, method, answers"), six decimals.
Q2_TIME, Q3_PITCH, Q4_LENGTH, Q5_SPEED = 412.473838, 0.450337, 13.621245, 1.246266


def _strict(text: str) -> Any:
    def reject(constant: str) -> None:
        raise ValueError(f"non-strict JSON constant {constant}")

    return json.loads(text, parse_constant=reject)


def _task(tmp_path: Path, task: str, params: dict | None = None,
          options: dict | None = None) -> dict:
    out = tmp_path / task / "result.json"
    entry = {"model": "dragon_chain", "task": task, "params": params or {},
             "options": options or {}}
    document = run_task(entry, out)
    on_disk = _strict(out.read_text(encoding="utf-8"))
    assert on_disk["result"] == _strict(json.dumps(document["result"]))
    assert on_disk["model"] == "dragon_chain" and on_disk["task"] == task
    for name in on_disk["result"]["files"]:
        assert (out.parent / name).is_file()
    return on_disk["result"]


def _rows(path: Path) -> list[list[str]]:
    """The CSV's rows; the file must start with a UTF-8 byte-order mark."""
    assert path.read_bytes().startswith(b"\xef\xbb\xbf"), f"{path.name}: no byte-order mark"
    with path.open(encoding="utf-8-sig") as stream:
        return list(csv.reader(stream))


def _six(value: float) -> bool:
    return value == round(value, 6)


def test_model_declares_the_five_questions() -> None:
    assert [task.name for task in get_model("dragon_chain").tasks] == \
        ["positions", "collision", "min_pitch", "turnaround", "max_speed"]


def test_positions_task_tables_and_checks(tmp_path: Path) -> None:
    result = _task(tmp_path, "positions", {"pitch": 0.55},
                   {"t_start": 0, "t_end": 3, "t_step": 1, "paper_every": 1})
    assert result["answer"]["times"] == 4 and result["answer"]["handles"] == 224
    head = result["answer"]["at_t_end"]["head"]
    assert head["speed"] == 1.0 and _six(head["x"]) and _six(head["y"])
    # 3 m of arc from A = (8.8, 0) at radius ~8.8 m: chord 2 R sin(1.5 / R) ~ 2.9855 m
    chord = math.hypot(head["x"] - 8.8, head["y"])
    assert 2.98 < chord < 3.0
    assert result["check"]["chord_residual_max_m"] < 1e-9
    assert result["check"]["speed_vs_central_difference_max_m_per_s"] < 1e-6
    rows = _rows(tmp_path / "positions" / "result1_positions.csv")
    assert rows[0] == ["", "0 s", "1 s", "2 s", "3 s"] and len(rows) == 1 + 2 * 224
    assert rows[1][1] == "8.800000" and rows[2][1] == "0.000000"  # the head starts at A
    paper = _rows(tmp_path / "positions" / "paper1_speeds.csv")
    # the contest's paper table: head, body benches 1, 51, 101, 151, 201, tail rear
    assert [row[0] for row in paper[1:]] == ["龙头 (m/s)", "第1节龙身  (m/s)", "第51节龙身  (m/s)",
                                             "第101节龙身  (m/s)", "第151节龙身  (m/s)",
                                             "第201节龙身  (m/s)", "龙尾（后） (m/s)"]
    assert paper[1][1:] == ["1.000000"] * 4


def test_collision_task_finds_the_contest_time_and_brackets_it(tmp_path: Path) -> None:
    result = _task(tmp_path, "collision", {"pitch": 0.55})
    answer, check = result["answer"], result["check"]
    assert answer["time"] == Q2_TIME
    assert check["bracketed"] and check["separation_before_m"] > 0 >= check["separation_after_m"]
    assert any(0 in pair["benches"] for pair in answer["touching"])  # the head bench
    rows = _rows(tmp_path / "collision" / "result2.csv")
    assert len(rows) == 1 + 224 and rows[1][0] == "龙头"
    assert float(rows[1][3]) == 1.0
    assert len(_rows(tmp_path / "collision" / "paper2.csv")) == 1 + 7


def test_turnaround_task_s_curve_cannot_be_shortened(tmp_path: Path) -> None:
    result = _task(tmp_path, "turnaround", {"pitch": 1.7},
                   {"t_start": -2, "t_end": 2, "paper_every": 2})
    answer = result["answer"]
    assert answer["s_curve_length"] == Q4_LENGTH
    assert not answer["shorter_by_changing_ratio"]
    assert math.isclose(answer["radii"][0], 2 * answer["radii"][1], abs_tol=2e-6)
    lengths = list(result["s_curve"]["length_vs_ratio"].values())
    assert np.ptp(lengths) < 1e-9
    assert result["check"]["chord_residual_max_m"] < 1e-9
    assert result["check"]["speed_vs_central_difference_max_m_per_s"] < 1e-5
    rows = _rows(tmp_path / "turnaround" / "result4_positions.csv")
    assert rows[0] == ["", "-2 s", "-1 s", "0 s", "1 s", "2 s"]
    assert _rows(tmp_path / "turnaround" / "paper4_positions.csv")[0] == ["", "-2 s", "0 s",
                                                                          "2 s"]


def test_max_speed_task_binds_at_the_limit(tmp_path: Path) -> None:
    result = _task(tmp_path, "max_speed", {"pitch": 1.7},
                   {"limit": 2.0, "t_start": -20, "step": 1.0})
    assert result["answer"]["max_head_speed"] == Q5_SPEED
    assert result["check"]["limit_reached"]
    assert result["check"]["refined_max_ratio"] >= result["check"]["grid_max_ratio"]
    assert result["files"] == []


@pytest.mark.slow
def test_max_speed_task_default_scan(tmp_path: Path) -> None:
    assert _task(tmp_path, "max_speed", {"pitch": 1.7})["answer"]["max_head_speed"] == Q5_SPEED


@pytest.mark.slow
def test_min_pitch_task_full(tmp_path: Path) -> None:
    result = _task(tmp_path, "min_pitch")
    assert result["answer"]["min_pitch"] == Q3_PITCH
    assert result["check"]["all_free_above"]
    assert result["check"]["contact_radius_below_m"] > 4.5  # just below: contact outside


@pytest.mark.parametrize(("task", "options", "key"), [
    ("positions", {"t_stop": 3}, "t_stop"),
    ("positions", {"t_step": 0}, "t_step"),
    ("positions", {"t_start": 5, "t_end": 3}, "t_end"),
    ("positions", {"t_end": 1000}, "t_end"),            # the head would pass the centre
    ("positions", {"t_end": 300, "t_step": 1e-3}, "t_step"),
    ("turnaround", {"paper_every": -1}, "paper_every"),
    ("min_pitch", {"p_low": 0.5, "p_high": 0.45}, "p_high"),
    ("max_speed", {"limit": 0}, "limit"),
    ("collision", {"step": "x"}, "step"),
])
def test_check_task_errors_name_the_option(task: str, options: dict, key: str) -> None:
    model = get_model("dragon_chain")
    params = model.resolve({"pitch": 0.55})
    with pytest.raises(ParameterError) as error:
        model.task(task).resolve(params, options)
    assert error.value.name == key and f"'{key}'" in str(error.value)


CONFIG = Path(__file__).resolve().parents[3] / "config" / "dragon.yaml"


def _dragon_config(task: str, entry: dict) -> dict:
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    config["tasks"][task].update(entry)
    return config


def test_shipped_dragon_config_validates() -> None:
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    studies = validate_config(config)
    assert {entry["task"] for entry in config["tasks"].values()} == \
        {task.name for task in get_model("dragon_chain").tasks}
    assert set(studies) == {"dragon_spiral", "dragon_collision", "dragon_pitch",
                            "dragon_turnaround"}


def test_default_config_includes_the_dragon() -> None:
    config, studies = load_config(CONFIG.with_name("config.yaml"))
    dragon = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    for section in ("studies", "figures", "tasks"):
        assert set(dragon[section]) <= set(config[section])
    assert set(dragon["studies"]) <= set(studies)


def test_config_names_the_bad_task_option() -> None:
    config = _dragon_config("dragon_q4_turnaround", {"options": {"t_step": -1}})
    with pytest.raises(ConfigError, match=r"tasks\.dragon_q4_turnaround\.options\.t_step"):
        validate_config(config)


def test_config_names_the_bad_task_parameter() -> None:
    config = _dragon_config("dragon_q3_min_pitch", {"params": {"turn_diameter": 0}})
    with pytest.raises(ConfigError, match=r"tasks\.dragon_q3_min_pitch\.params\.turn_diameter"):
        validate_config(config)
