"""``--seed`` of ``flocklab simulate``: required only where the run depends on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from flocklab.cli.main import main


def test_a_deterministic_model_runs_without_a_seed(tmp_path: Path) -> None:
    out = tmp_path / "spiral.nc"
    assert main(["simulate", "dragon_chain", "--n-benches", "20", "--t-end", "2",
                 "--out", str(out)]) == 0
    assert out.is_file()


@pytest.mark.parametrize("args", [
    ["vicsek", "--N", "20", "--steps", "2"],
    ["springs", "--initial", "perturbed", "--t-end", "0.05"],
])
def test_a_random_run_without_a_seed_is_one_line_naming_it(args: list[str], tmp_path: Path,
                                                           capsys) -> None:
    with pytest.raises(SystemExit) as code:
        main(["simulate", *args, "--out", str(tmp_path / "run.nc")])
    assert code.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'--seed' is required" in err
    assert not (tmp_path / "run.nc").exists()
