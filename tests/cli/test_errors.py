"""A user's mistake on the command line ends in one clear line, never a traceback."""

from __future__ import annotations

import pytest
import yaml

from flocklab.cli.main import main


def _fails(capsys, argv: list[str], code: int = 2) -> str:
    """Run ``flocklab argv``, check the exit code and return the error line(s)."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == code, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert lines, err
    return "\n".join(lines)


@pytest.fixture
def not_netcdf(tmp_path):
    path = tmp_path / "notes.nc"
    path.write_text("not a netCDF file\n")
    return path


@pytest.mark.parametrize("command", [["metrics", "{}", "--burn-in", "1", "--out", "m.nc"],
                                     ["fit", "{}", "--control", "eta", "--out", "f.json"],
                                     ["fss", "{}", "--control", "eta", "--size", "L", "--out",
                                      "f.json"]])
def test_missing_or_non_netcdf_inputs_are_named(capsys, tmp_path, not_netcdf, command):
    missing = [item.format(tmp_path / "none.nc") for item in command]
    assert "no file" in _fails(capsys, missing)
    wrong = [item.format(not_netcdf) for item in command]
    assert "is not a netCDF file" in _fails(capsys, wrong)


def test_config_file_problems_give_file_line_and_column(capsys, tmp_path, not_netcdf):
    assert "no config file" in _fails(capsys, ["check-config", str(tmp_path / "none.yaml")])
    bad = tmp_path / "bad.yaml"
    bad.write_text("studies:\n  a: [1,\n  b: 2\n")
    message = _fails(capsys, ["check-config", str(bad)])
    assert f"{bad}:4:1: YAML syntax error" in message
    binary = tmp_path / "run.nc"
    binary.write_bytes(b"\x89HDF\r\n\x1a\n\x00\xff\xfe" * 10)
    assert str(binary) in _fails(capsys, ["check-config", str(binary)])
    listed = tmp_path / "list.yaml"
    listed.write_text("- 1\n- 2\n")
    assert "a config is a mapping" in _fails(capsys, ["check-config", str(listed)])


def test_every_config_error_is_reported_with_the_nearest_names(capsys, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"studies": {
        "a": {"model": "vicsk", "steps": 10, "burn_in": 5},
        "b": {"model": "vicsek", "params": {"etaa": 1.0}, "steps": 10, "burn_in": 5}}}))
    lines = _fails(capsys, ["check-config", str(path)]).splitlines()
    assert len(lines) == 2
    assert "'studies.a.model': unknown model 'vicsk'; did you mean 'vicsek'?" in lines[0]
    assert "'studies.b.params.etaa': unknown parameter" in lines[1] and "'eta'" in lines[1]
    path.write_text(yaml.safe_dump({"base_sed": 1}))
    assert "'base_sed': unknown key; did you mean 'base_seed'" in _fails(
        capsys, ["check-config", str(path)])


def test_a_schedule_larger_than_memory_is_refused_before_allocating(capsys, tmp_path):
    message = _fails(capsys, ["simulate", "vicsek", "--steps", "100000000000", "--seed", "1",
                              "--out", str(tmp_path / "run.nc")])
    assert "'steps' = 100000000000" in message and "GiB" in message
    assert "record_every" in message


def test_unknown_options_show_the_subcommand_usage_and_the_nearest_option(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "vicsek", "--etaa", "1", "--steps", "5", "--out", "x.nc"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "Traceback" not in err
    assert err.startswith("usage: flocklab simulate vicsek")
    assert "unrecognized arguments: --etaa 1; did you mean --eta?" in err


def test_option_prefixes_are_not_abbreviations(capsys, tmp_path):
    out = tmp_path / "run.nc"
    _fails(capsys, ["simulate", "vicsek", "--step", "5", "--seed", "1", "--out", str(out)])
    _fails(capsys, ["metrics", str(out), "--burn", "1", "--out", str(out)])
    assert not out.exists()


def test_misspelt_names_get_the_nearest(capsys):
    assert "did you mean 'vicsek'?" in _fails(capsys, ["simulate", "vicsk"])
    assert "did you mean 'vicsek'?" in _fails(capsys, ["params", "vicsk"])


def test_a_model_without_tasks_says_so(capsys):
    message = _fails(capsys, ["task", "vicsek"])
    assert "model 'vicsek' offers no tasks; models with tasks:" in message
    assert "springs" in message and "()" not in message


def test_global_options_anywhere(capsys, repo):
    config = str(repo / "config" / "test.yaml")
    assert main(["check-config", config, "-v"]) == 0
    assert main(["-v", "check-config", config]) == 0
    assert main(["check-config", "--verbose", config]) == 0


def test_seed_is_optional_only_for_a_deterministic_run(capsys, tmp_path):
    out = tmp_path / "chain.nc"
    main(["simulate", "springs", "--t-end", "0.02", "--dt", "0.01", "--out", str(out)])
    said = capsys.readouterr().out
    assert out.exists() and said.startswith(f"wrote {out}; tip_distance = ")
    assert said.rstrip().endswith("at time 0.02")
    message = _fails(capsys, ["simulate", "vicsek", "--steps", "5", "--out",
                              str(tmp_path / "v.nc")])
    assert "'--seed' is required" in message


def test_messages_never_hold_an_empty_name(capsys, tmp_path):
    run = tmp_path / "run.nc"
    main(["simulate", "vicsek", "--N", "10", "--steps", "10", "--seed", "1", "--out", str(run)])
    message = _fails(capsys, ["metrics", str(run), "--burn-in", "50", "--out",
                              str(tmp_path / "m.nc")], code=1)
    assert "records of the run (its last time is 10)" in message
    message = _fails(capsys, ["fit", str(run), "--control", "eta", "--out",
                              str(tmp_path / "f.json")], code=1)
    assert "variables: order_parameter, x, y, theta" in message
    for text in ("run ;", "dimensions: \n", "variables: \n", "  "):
        assert text not in message
