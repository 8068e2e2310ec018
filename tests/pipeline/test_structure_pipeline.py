"""The structure stage through the Snakemake pipeline (config/structure_test.yaml).

Giant number fluctuations in the ordered Vicsek phase against normal ones in the disordered
phase and in the uniform control, the three neighbour rules side by side, the figures, and
the config checks that refuse a structure section before any job runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import xarray as xr

pytestmark = pytest.mark.pipeline

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "config" / "structure_test.yaml"


@pytest.fixture(scope="module")
def finished(run_config):
    return run_config(CONFIG)


def _points(results: Path, study: str) -> dict[str, dict]:
    document = json.loads((results / study / "structure.json").read_text())
    return {point["point"]: point for point in document["points"]}


def test_giant_fluctuations_only_in_the_ordered_phase(finished):
    """L = 24, 80 frames pooled: ordered alpha's 95 % interval above 0.65 (measured 0.79),
    disordered within 0.06 of 1/2, every control's interval within 0.03 of 1/2."""
    points = _points(finished, "gnf")
    ordered = points["eta=0.3"]["number_fluctuation_exponent"]
    disordered = points["eta=5.03"]["number_fluctuation_exponent"]
    assert ordered["ci"][0] > 0.65 and ordered["frames"] == 80
    assert abs(disordered["value"] - 0.5) < 0.06
    for point in points.values():
        low, high = point["control_exponent"]["ci"]
        assert low - 0.03 < 0.5 < high + 0.03
        assert point["band_fraction"] in (0.0, 0.5, 1.0)
        assert point["correlation_length"]["runs"] == 2
        assert point["flock_size"]["mean"] == 24.0
    # order correlates over longer distances than disorder
    assert (points["eta=0.3"]["correlation_length"]["mean"]
            > points["eta=5.03"]["correlation_length"]["mean"])
    claims = json.loads((finished / "gnf" / "structure.json").read_text())["claims"]
    assert [c["verdict"] for c in claims[:2]] == ["holds", "holds"]
    assert claims[0]["test"].startswith("least-squares slope") and claims[0]["n"] >= 5
    assert claims[0]["low"] > 0.6 and claims[0]["point"] == {"eta": 0.3}
    # one box size for both points: the exponent of r_0 against L is untestable
    assert claims[2]["verdict"] == "untestable"


def test_the_dataset_and_the_figures(finished):
    with xr.open_dataset(finished / "gnf" / "structure.nc") as ds:
        assert list(ds["point"].values) == ["eta=0.3", "eta=5.03"]
        assert ds["correlation_length"].dims == ("point", "replicate")
        for name in ("mean_count", "count_std", "velocity_correlation", "density_profile",
                     "pair_correlation", "structure_factor"):
            assert ds[name].dims[0] == "point" and ds[name].attrs["long_name"]
        assert "git_commit" in ds.attrs and ds.attrs["burn_in"] == 1000.0
    for name in ("gnf", "gnf_bands", "gnf_correlation", "neighbours"):
        assert (finished / "figures" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    rules = _points(finished, "neighbours")
    assert set(rules) == {f"neighbours={rule}" for rule in ("metric", "knn", "voronoi")}


@pytest.mark.parametrize(("edit", "message"), [
    ({"model": "springs", "params": {}, "sweep": [], "steps": None, "t_end": 1.0,
      "burn_in": 0.5, "snapshots": {"every": 0.1, "start": 0.5}},
     "declares no positions for a spatial analysis"),
    ({"snapshots": {"every": 0, "start": 0}}, "snapshot frames after burn_in"),
    ({"structure": {"claims": [{"claim": "c", "quantity": "control_exponent",
                                "point": {"eta": 0.4}, "above": 0.4}]}},
     "structure.claims[0].point.eta': 0.4 is not one of the swept values"),
    ({"structure": {"claims": [{"claim": "c", "quantity": "control_exponent", "above": 0.4}]}},
     "structure.claims[0].point'"),
])
def test_the_check_refuses_before_any_job(tmp_path, edit, message):
    import yaml

    config = yaml.safe_load(CONFIG.read_text())
    study = config["studies"]["gnf"]
    for key, value in edit.items():
        if value is None:
            study.pop(key, None)
        else:
            study[key] = value
    config["figures"] = {}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    done = subprocess.run([sys.executable, "-m", "flocklab.cli.main", "check-config", str(path)],
                          capture_output=True, text=True)
    assert done.returncode != 0 and message in done.stderr
    assert "Traceback" not in done.stderr and "studies.gnf" in done.stderr
