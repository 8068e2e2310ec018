"""``flocklab fss``: finite-size scaling of a summary file from the command line.

The summary is a small sweep of the 2-D Ising test model (tests/plugins; conftest puts it on
the path): L = 6 and 8, each on its own grid of T around T_c (a nested sweep axis), three
replicates of 600 Wolff steps. The numbers are not tested here (tests/analysis/test_fss.py
and the pipeline's ising_fss study do that), only what the command writes and says.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import xarray as xr

import flocklab
from flocklab.cli.main import main

#: Exact critical temperature of the square-lattice Ising model (Onsager).
ISING_TC = 2.0 / math.log(1.0 + math.sqrt(2.0))
#: Each size's grid T_c (1 + s / L), s = -1.5 ... 3.
OFFSETS = np.linspace(-1.5, 3.0, 8)
HEADLINE = ("x_c", "nu", "inverse_nu", "beta_over_nu", "gamma_over_nu", "hyperscaling")


@pytest.fixture(scope="module")
def ising_summary(tmp_path_factory):
    """``summary.nc`` of the Ising sweep (nested axis L_T)."""
    grid = [{"L": [6, 8], "T": {"each": [np.round(ISING_TC * (1 + OFFSETS / size), 6).tolist()
                                         for size in (6, 8)]}}]
    summary = flocklab.sweep("ising", grid, replicates=3, steps=600, seed=3)
    path = tmp_path_factory.mktemp("fss_cli") / "summary.nc"
    summary.to_netcdf(path)
    return path


def _strict_json(text: str):
    def refuse(constant):
        raise ValueError(f"non-standard JSON constant {constant}")
    return json.loads(text, parse_constant=refuse)


def _fails(capsys, argv: list[str], code: int = 2) -> str:
    """Run ``flocklab argv``: it must exit with ``code`` and one error line, no traceback."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == code, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flocklab: error: "), err
    return lines[0]


def test_fss_writes_strict_json_and_netcdf_and_prints_the_verdict(ising_summary, tmp_path,
                                                                   capsys):
    with xr.open_dataset(ising_summary) as summary:   # the nested sweep: one point dimension
        assert summary["magnetization_mean"].dims == ("L_T", "replicate")
        assert sorted(set(summary["L"].values.tolist())) == [6, 8]
    out, out_nc = tmp_path / "fss.json", tmp_path / "fss.nc"
    code = main(["fss", str(ising_summary), "--control", "T", "--size", "L", "--resamples",
                 "20", "--seed", "2", "--out", str(out), "--out-nc", str(out_nc)])
    assert code == 0
    document = _strict_json(out.read_text())
    for name in HEADLINE:   # each a value with its interval, or refused with a reason
        entry = document[name]
        assert (entry["value"] is None) == ("refused" in entry), (name, entry)
        if entry["value"] is not None:
            assert entry["ci"] is None or len(entry["ci"]) == 2
    assert document["x_c"]["value"] is not None
    assert document["control"] == "T" and document["size"] == "L"
    assert document["sizes"] == [6.0, 8.0] and document["replicates"] == 3
    assert document["bootstrap"]["resamples"] == 20
    assert {"peaks", "binder_crossings", "discontinuity", "collapse", "verdict"} <= set(document)
    said = capsys.readouterr().out
    assert said.strip() == f"wrote {out} and {out_nc}; {document['verdict']}"
    assert document["verdict"].startswith("L = 6, 8, 3 replicates: T_c = ")
    with xr.open_dataset(out_nc) as fss:
        assert float(fss["x_c"]) == document["x_c"]["value"]
        assert fss["peak_location"].dims == ("size",) and fss.sizes["size"] == 2
        assert fss.attrs["control"] == "T" and fss.attrs["verdict"] == document["verdict"]
    # the same seed gives the same numbers; --no-collapse leaves the collapse out
    again = tmp_path / "again.json"
    main(["fss", str(ising_summary), "--control", "T", "--size", "L", "--resamples", "20",
          "--seed", "2", "--no-collapse", "--out", str(again)])
    second = _strict_json(again.read_text())
    assert second["x_c"] == document["x_c"] and "collapse" not in second
    assert capsys.readouterr().out.strip() == f"wrote {again}; {second['verdict']}"


@pytest.mark.parametrize(("options", "expected"), [
    (["--resamples", "5"], "'--resamples' must be >= 20, got 5"),
    (["--dimension", "0"], "'--dimension' must be a number > 0"),
    (["--correction-exponent", "-1"], "'--correction-exponent' must be a number > 0"),
    (["--collapse-window", "nan"], "'--collapse-window' must be a number > 0"),
    (["--select", "foo"], "--select 'foo': expected DIM=VALUE"),
])
def test_bad_options_end_in_one_line_before_anything_is_read(ising_summary, tmp_path, capsys,
                                                             options, expected):
    out = tmp_path / "fss.json"
    line = _fails(capsys, ["fss", str(ising_summary), "--control", "T", "--size", "L",
                           "--out", str(out), *options])
    assert expected in line
    assert not out.exists()


def test_summaries_the_analysis_cannot_use_are_named_in_one_line(ising_summary, tmp_path,
                                                                  capsys):
    out = tmp_path / "fss.json"
    with xr.open_dataset(ising_summary) as summary:
        summary.load()
    # another simulator's summary: no model declares the control's ordered side
    foreign = summary.assign_attrs(model="none")
    foreign.to_netcdf(tmp_path / "foreign.nc")
    line = _fails(capsys, ["fss", str(tmp_path / "foreign.nc"), "--control", "T", "--size",
                           "L", "--resamples", "20", "--out", str(out)])
    assert "--side" in line and not out.exists()
    # given the side, the same file is analysed
    assert main(["fss", str(tmp_path / "foreign.nc"), "--control", "T", "--size", "L",
                 "--side", "below", "--resamples", "20", "--no-collapse", "--out",
                 str(out)]) == 0
    assert _strict_json(out.read_text())["sizes"] == [6.0, 8.0]
    capsys.readouterr()
    out.unlink()
    # one size: nothing to scale
    summary.isel(L_T=summary["L"].values == 6).to_netcdf(tmp_path / "one_size.nc")
    line = _fails(capsys, ["fss", str(tmp_path / "one_size.nc"), "--control", "T", "--size",
                           "L", "--resamples", "20", "--out", str(out)])
    assert "at least two sizes" in line and "one_size.nc" in line and not out.exists()
    # a control or size the summary does not have
    line = _fails(capsys, ["fss", str(ising_summary), "--control", "T", "--size", "M",
                           "--resamples", "20", "--out", str(out)])
    assert "no coordinate 'M'" in line
    line = _fails(capsys, ["fss", str(ising_summary), "--control", "eta", "--size", "L",
                           "--resamples", "20", "--out", str(out)])
    assert "eta" in line and not out.exists()
