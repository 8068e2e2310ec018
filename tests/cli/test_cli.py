"""The flocklab command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from flocklab.cli.main import main


def test_simulate_writes_a_complete_file(tmp_path):
    out = tmp_path / "run.nc"
    main(["simulate", "vicsek", "--N", "60", "--L", "4", "--eta", "2.0", "--steps", "50",
          "--seed", "1", "--snapshot-every", "10", "--noise", "vectorial", "--eta", "0.3",
          "--out", str(out)])
    with xr.open_dataset(out) as ds:
        assert ds.sizes == {"time": 51, "frame": 6, "particle": 60}
        assert ds.attrs["noise"] == "vectorial" and ds.attrs["eta"] == 0.3
        assert ds.attrs["L"] == 4.0 and ds.attrs["seed"] == 1
        assert np.all((ds["order_parameter"] >= 0) & (ds["order_parameter"] <= 1 + 1e-12))


def test_metrics_command(tmp_path):
    run = tmp_path / "run.nc"
    main(["simulate", "vicsek", "--N", "50", "--L", "3", "--steps", "100", "--seed", "2",
          "--out", str(run)])
    out = tmp_path / "metrics.nc"
    main(["metrics", str(run), "--burn-in", "20", "--out", str(out)])
    with xr.open_dataset(out) as ds:
        assert int(ds["samples"]) == 80
        assert 0 < float(ds["order_parameter_mean"]) <= 1


@pytest.mark.parametrize(("args", "name"), [
    (["--eta", "7"], "eta"), (["--N", "0"], "N"), (["--L", "-1"], "L"), (["--r", "0"], "r"),
    (["--noise", "vectorial", "--eta", "2"], "eta"),
])
def test_bad_options_fail_with_the_parameter_name(tmp_path, capsys, args, name):
    out = tmp_path / "run.nc"
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "vicsek", *args, "--steps", "5", "--seed", "1", "--out", str(out)])
    assert exit_info.value.code == 2
    assert f"parameter '{name}'" in capsys.readouterr().err
    assert not out.exists()


def test_help_lists_units_and_defaults():
    result = subprocess.run([sys.executable, "-m", "flocklab.cli.main", "simulate", "vicsek",
                             "--help"],
                            capture_output=True, text=True, check=True)
    for text in ("--v0", "--noise", "--update", "--snapshot-every",
                 "default 0.03", "interaction radius"):
        assert text in result.stdout
    springs = subprocess.run([sys.executable, "-m", "flocklab.cli.main", "simulate", "springs",
                              "--help"], capture_output=True, text=True, check=True).stdout
    assert "spring stiffness k [N m-1]" in springs and "[kg]" in springs


def test_check_config(repo, capsys):
    main(["check-config", str(repo / "config" / "test.yaml")])
    assert "noise: model vicsek, 104 runs of 300 steps" in capsys.readouterr().out


def test_simulate_command_takes_the_api_names_and_validates_them(tmp_path, capsys):
    out = tmp_path / "osc.nc"
    main(["simulate", "oscillator", "--N", "2", "--zeta", "0.1", "--t-end", "1.0", "--dt",
          "0.01", "--record-every", "0.1", "--seed", "3", "--out", str(out)])
    with xr.open_dataset(out) as run:
        assert run["time"].values[-1] == pytest.approx(1.0) and run.sizes["time"] == 11
        assert run.attrs["time_units"] == "s"
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "oscillator", "--t-end", "1.0", "--dt", "0.03", "--seed", "3",
              "--out", str(out)])
    assert exit_info.value.code == 2
    assert "'t_end' = 1.0 is not a whole number of time steps" in capsys.readouterr().err


def test_fit_command_on_a_synthetic_summary(tmp_path, capsys):
    eta = np.round(np.arange(1.0, 4.01, 0.1), 10)
    truth = np.maximum(0.95 * np.clip((3.0 - eta) / 3.0, 0, None) ** 0.45, 0.04)
    rng = np.random.default_rng(0)
    samples = truth[None, :, None] + 0.01 * rng.normal(size=(2, eta.size, 6))
    summary = xr.Dataset(
        {"order_parameter_mean": (("N", "eta", "seed"), samples),
         "order_parameter_sem": (("N", "eta", "seed"), np.full(samples.shape, 0.01)),
         "replicate_order_parameter": (("N", "eta"), samples.mean(-1)),
         "replicate_order_parameter_err": (("N", "eta"), samples.std(-1, ddof=1) / np.sqrt(6))},
        coords={"N": [400, 4000], "eta": eta, "seed": np.arange(6)},
        attrs={"model": "vicsek", "primary_observable": "order_parameter"})
    path = tmp_path / "summary.nc"
    summary.to_netcdf(path)
    out = tmp_path / "fit.json"
    main(["fit", str(path), "--control", "eta", "--select", "N=400", "--bootstrap", "30",
          "--out", str(out)])
    import json

    document = json.loads(out.read_text())
    assert abs(document["eta_c"]["value"] - 3.0) < 0.05
    assert abs(document["beta"]["value"] - 0.45) < 0.05
    assert len(document["eta_c"]["ci"]) == 2 and document["n_points"] >= 4
    assert document["select"] == {"N": 400}
    said = capsys.readouterr().out
    assert said.startswith(f"wrote {out}; ") and f"eta_c = {document['eta_c']['value']:.4g}" in said
    # an effective fit, with what limits it (the tags of critical.json) said in a few words
    limits = document["limits"]
    assert "quotable" not in said
    assert (f" (effective; limits: {', '.join(limits)})" if limits else " (effective)") in said
    with pytest.raises(SystemExit) as exit_info:
        main(["fit", str(path), "--control", "eta", "--select", "N=5", "--out", str(out)])
    assert exit_info.value.code == 1


def test_library_imports_change_no_global_state(tmp_path):
    """Importing the plotting module keeps matplotlib's backend; running a simulation with
    a thread count leaves the caller's numba thread count as it was."""
    code = (
        "import matplotlib; matplotlib.use('svg')\n"
        "import flocklab.figures.plotting\n"
        "assert matplotlib.get_backend() == 'svg', matplotlib.get_backend()\n"
        "import numba; from flocklab.stages.simulate import run_simulation\n"
        "before = numba.get_num_threads()\n"
        f"run_simulation('vicsek', {{'N': 10, 'L': 3.0}}, {{'steps': 5, 'seed': 1}}, "
        f"r'{tmp_path / 'run.nc'}', threads=1)\n"
        "assert numba.get_num_threads() == before, numba.get_num_threads()\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


def test_the_config_schema_ships_inside_the_package():
    import flocklab
    from flocklab.config import DEFAULT_SCHEMA, load_schema

    assert DEFAULT_SCHEMA.parent == Path(flocklab.__file__).parent / "config"
    assert load_schema()["title"].startswith("Flocklab")
