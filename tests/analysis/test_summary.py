"""A study's summary from runs (flocklab.analysis.summary) against hand-computed cases."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr

from flocklab.analysis.summary import (
    HISTOGRAM_BINS,
    bin_centres,
    cell_index,
    run_metrics_dataset,
    run_statistics,
    summary_dataset,
)
from flocklab.core.registry import get_model

TIMES = np.arange(41.0)
BURN_IN = 20.0
L = 5.0


def _run(point: str, replicate: int, n: int, a: float, b: float, seed: int) -> xr.Dataset:
    """A Vicsek-like run: v_a = 0.1 for t < 10, then alternating a, b (a at even times)."""
    series = np.where(TIMES.astype(int) % 2 == 0, a, b)
    series[TIMES < 10] = 0.1
    return xr.Dataset(
        {"order_parameter": ("time", series)}, coords={"time": TIMES},
        attrs={"model": "vicsek", "point": point, "replicate": replicate, "seed": seed,
               "N": n, "L": L, "density": n / L**2,
               "parameters": json.dumps({"N": n, "L": L})})


def _moments(a: float, b: float) -> tuple[float, float, float]:
    """Moments of 20 post-burn-in records, half a and half b."""
    return (a + b) / 2, (a**2 + b**2) / 2, (a**4 + b**4) / 2


def test_run_statistics_of_a_two_valued_series():
    model = get_model("vicsek")
    values, histogram = run_statistics(_run("p", 0, 40, 0.85, 0.95, 1), model, BURN_IN)
    m1, m2, m4 = _moments(0.85, 0.95)
    assert values["samples"] == 20                      # times 21..40
    assert values["order_parameter_mean"] == pytest.approx(m1, rel=1e-12)
    assert values["order_parameter_m2"] == pytest.approx(m2, rel=1e-12)
    assert values["order_parameter_m4"] == pytest.approx(m4, rel=1e-12)
    # chi = N (<v^2> - <v>^2) = N ((a - b) / 2)^2, G = 1 - <v^4> / (3 <v^2>^2)
    assert values["susceptibility"] == pytest.approx(40 * 0.05**2, rel=1e-9)
    assert values["binder_cumulant"] == pytest.approx(1 - m4 / (3 * m2**2), rel=1e-12)
    # first record >= 0.8 over the whole run, burn-in included
    assert values["time_to_order"] == 10.0
    # half the records in the bin of 0.85, half in that of 0.95 (bins of width 1/50)
    assert histogram.shape == (HISTOGRAM_BINS,) and histogram.sum() == pytest.approx(1.0)
    assert histogram[42] == histogram[47] == 0.5
    assert bin_centres(0.0, 1.0)[42] == pytest.approx(0.85)
    with pytest.raises(ValueError, match="leaves 0 records"):
        run_statistics(_run("p", 0, 40, 0.85, 0.95, 1), model, 40.0)


def _study() -> dict:
    return {"name": "toy", "model": "vicsek", "labels": ["n40", "n100"],
            "axes": [{"dim": "N", "coords": {"N": [40, 100]}}], "design": False,
            "replicates": 2, "burn_in": BURN_IN, "order_threshold": 0.8,
            "fixed": {"L": L}, "description": "toy", "time": {"steps": 40}}


#: (point, replicate, N, a, b, seed) of the toy study's runs.
RUNS = [("n40", 0, 40, 0.85, 0.95, 11), ("n40", 1, 40, 0.75, 0.95, 12),
        ("n100", 0, 100, 0.5, 0.7, 13), ("n100", 1, 100, 0.3, 0.9, 14)]


def test_summary_places_runs_by_their_attributes_and_averages_replicates():
    runs = [_run(*spec) for spec in RUNS]
    summary = summary_dataset(runs[::-1], _study())      # any input order
    assert summary["order_parameter_mean"].dims == ("N", "replicate")
    np.testing.assert_array_equal(summary["rng_seed"], [[11, 12], [13, 14]])
    for _, replicate, n, a, b, _ in RUNS:
        cell = summary.sel(N=n, replicate=replicate)
        assert float(cell["order_parameter_mean"]) == pytest.approx(_moments(a, b)[0])
    # replicate averages: the mean of run means; chi and G from pooled moments
    # first passage to 0.8: 10, 11 (0.75 first at even times), 41 (never: t_end + one
    # record interval), 11
    for n, specs, passage in ((40, RUNS[:2], (10.0, 11.0)), (100, RUNS[2:], (41.0, 11.0))):
        pooled = np.mean([_moments(a, b) for *_, a, b, _ in specs], axis=0)
        cell = summary.sel(N=n)
        assert float(cell["replicate_order_parameter"]) == pytest.approx(pooled[0])
        assert float(cell["replicate_susceptibility"]) == pytest.approx(
            n * (pooled[1] - pooled[0] ** 2))
        assert float(cell["replicate_binder_cumulant"]) == pytest.approx(
            1 - pooled[2] / (3 * pooled[1] ** 2))
        # other quantities: mean and standard error across the two seeds, |x1 - x2| / 2
        assert float(cell["replicate_time_to_order"]) == np.mean(passage)
        assert float(cell["replicate_time_to_order_err"]) == pytest.approx(
            abs(passage[0] - passage[1]) / 2)
    # the derived density is a coordinate along N only
    assert summary["density"].dims == ("N",)
    np.testing.assert_allclose(summary["density"], [40 / 25, 100 / 25])
    np.testing.assert_allclose(summary["order_parameter_histogram"].sum("bin"), 1.0)
    assert summary.attrs["primary_observable"] == "order_parameter"
    assert json.loads(summary.attrs["base_parameters"]) == {"N": 100, "L": L}
    assert "git_commit" not in summary.attrs                # the stage stamps provenance


def test_runs_that_do_not_fill_the_grid_are_refused():
    runs = [_run(*spec) for spec in RUNS]
    names = [f"file{k}.nc" for k in range(4)]
    with pytest.raises(ValueError, match=r"file3\.nc: point 'n7'"):
        cell_index(["n40", "n100"], 2, [*runs[:3], _run("n7", 0, 7, 0.5, 0.5, 1)], names)
    with pytest.raises(ValueError, match="one run per point and replicate"):
        cell_index(["n40", "n100"], 2, [*runs[:3], runs[0]], names)
    assert cell_index(["n40", "n100"], 2, runs[::-1], names) == [3, 2, 1, 0]


def test_run_metrics_dataset_keeps_the_run_attributes():
    run = _run("n40", 0, 40, 0.85, 0.95, 11)
    ds = run_metrics_dataset(run, BURN_IN, order_threshold=0.9)
    assert float(ds["order_parameter_mean"]) == pytest.approx(0.9)
    assert float(ds["time_to_order"]) == 11.0              # first 0.95 (odd times)
    assert ds.attrs["seed"] == 11 and ds.attrs["burn_in"] == BURN_IN
    assert ds.attrs["order_threshold"] == 0.9
    assert ds["order_parameter_histogram"].dims == ("bin",)


def test_run_statistics_of_the_other_observables_and_the_model_metrics():
    """The test plugin's oscillator: primary ``energy`` (unbounded: no histogram), second
    observable ``x0`` and the metric ``decay_rate`` (slope of -ln E after burn-in). With
    E = exp(-0.1 t) and x0 alternating 0.3, -0.1 the 20 post-burn-in records (t = 21..40)
    have mean E = sum_{t=21}^{40} e^{-0.1 t} / 20 (closed geometric sum), mean x0 = 0.1,
    and the decay rate is 0.1 exactly."""
    from flocklab.analysis.timeseries import series_statistics

    model = get_model("oscillator")
    energy = np.exp(-0.1 * TIMES)
    x0 = np.where(TIMES.astype(int) % 2 == 0, 0.3, -0.1)
    run = xr.Dataset({"energy": ("time", energy), "x0": ("time", x0)},
                     coords={"time": TIMES}, attrs={"model": "oscillator"})
    values, histogram = run_statistics(run, model, BURN_IN)
    q = np.exp(-0.1)
    assert values["energy_mean"] == pytest.approx(q**21 * (1 - q**20) / (1 - q) / 20,
                                                  rel=1e-12)
    assert values["x0_mean"] == pytest.approx(0.1, rel=1e-12)
    assert values["x0_sem"] == series_statistics(x0[TIMES > BURN_IN], np.nan).sem
    assert values["decay_rate"] == pytest.approx(0.1, rel=1e-9)
    assert histogram is None and "susceptibility" not in values


def test_a_deterministic_model_gets_no_run_checks(monkeypatch):
    """Independent samples and burn-in drift are statistics of a random stationary series:
    for runs that depend on no seed the summary carries no short or drifting counts, so no
    figure draws its points open."""
    from flocklab.analysis.summary import flagged_points

    runs = [_run(*spec) for spec in RUNS]
    assert flagged_points(summary_dataset(runs, _study())) is not None
    monkeypatch.setattr(type(get_model("vicsek")), "uses_seed", lambda self, params: False)
    summary = summary_dataset(runs, _study())
    assert "short_runs" not in summary and "drifting_runs" not in summary
    assert flagged_points(summary) is None


#: Variables only a model whose primary observable is an order parameter gets.
ORDER_VARIABLES = {"binder_cumulant", "binder_cumulant_err", "time_to_order",
                   "order_parameter_histogram", "replicate_binder_cumulant",
                   "replicate_binder_cumulant_err", "replicate_time_to_order",
                   "replicate_time_to_order_err"}


def test_order_statistics_follow_the_declaration(monkeypatch):
    """The toy study with ``primary_is_order_parameter`` off: the Binder cumulant, the time
    to order and the histogram (and its ``bin``) are gone, and every other variable keeps
    its values bit for bit (χ stays: the size parameter gates it)."""
    runs = [_run(*spec) for spec in RUNS]
    ordered = summary_dataset(runs, _study())
    assert ORDER_VARIABLES <= set(ordered.data_vars)
    monkeypatch.setattr(type(get_model("vicsek")), "primary_is_order_parameter", False)
    plain = summary_dataset(runs, _study())
    assert set(ordered.data_vars) - set(plain.data_vars) == ORDER_VARIABLES
    assert "bin" not in plain.coords and "replicate_susceptibility" in plain
    for name in plain.data_vars:
        assert plain[name].values.tobytes() == ordered[name].values.tobytes(), name
    values, histogram = run_statistics(runs[0], get_model("vicsek"), BURN_IN)
    assert histogram is None and not ORDER_VARIABLES & set(values)


@pytest.mark.parametrize("name, order", [
    ("vicsek", True), ("zonal", True), ("forces", True), ("foraging", False),
    ("springs", False), ("dragon_chain", False), ("dragon_agents", False)])
def test_which_models_get_the_order_statistics(name, order):
    """Polar order (v_a, the polarisation P) is an order parameter on [0, 1]; a survival
    fraction, a clearance, a chain's alignment and a spring's tip distance are not."""
    from flocklab.analysis.timeseries import run_variables, summary_quantities

    model = get_model(name)
    assert model.primary_is_order_parameter is order
    assert ("binder_cumulant" in summary_quantities(model)) is order
    assert ({"binder_cumulant", "time_to_order"} <= set(run_variables(model))) is order
