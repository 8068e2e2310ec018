"""The ``springs`` model on the model contract (flocklab.models.springs)."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest

import flocklab
from flocklab.core.model import SimulationError
from flocklab.core.parameters import ParameterError
from flocklab.core.registry import register
from flocklab.figures.drawing import drawing_of
from flocklab.models.springs import Springs
from flocklab.models.springs.structure import chain, to_document

register(Springs)   # the entry point is added to pyproject by the lead

TONGUE = {"structure": "chain", "n_points": 6, "stiffness": 50.0, "damping": 0.5,
          "damping_kind": "spring", "rest_length": 0.05, "mass": 0.1, "tip_force": [0.0, 1.0]}


def test_issue_interface_runs_the_tongue():
    ds = flocklab.simulate("springs", **TONGUE, integrator="rk4", dt=0.01, t_end=20.0, seed=1,
                           snapshot_every=1.0)
    assert ds.sizes["time"] == 2001 and ds.sizes["point"] == 6 and ds.sizes["frame"] == 21
    assert ds.attrs["time_units"] == "s" and float(ds["stable"]) == 1.0
    assert np.all(ds["y"].values[:, 0] == 0.0) and np.all(ds["x"].values[:, 0] == 0.0)
    # the tip force's work goes into kinetic + elastic energy minus what the dampers take
    assert ds["total_energy"].values[0] == pytest.approx(0.0, abs=1e-12)
    assert np.all(np.diff(ds["total_energy"].values) <= 1e-9)   # dampers only remove energy
    metrics = Springs().metrics(ds, Springs().run_parameters(ds), 0.0)
    assert metrics["stable"] == 1.0 and math.isnan(metrics["t_blowup"])
    assert -1.0 < metrics["energy_drift"] < 0.0


def test_absolute_damping_settles_at_the_static_equilibrium():
    ds = flocklab.simulate("springs", **{**TONGUE, "damping_kind": "absolute"},
                           integrator="semi_implicit_euler", dt=0.005, t_end=20.0, seed=1,
                           record_every=0.05)
    metrics = Springs().metrics(ds, Springs().run_parameters(ds), 0.0)
    assert 0.0 < metrics["settling_time"] < 10.0
    assert ds["tip_distance"].values[-1] < 1e-6
    assert ds["tip_y"].values[-1] == pytest.approx(5 * (0.05 + 1.0 / 50.0), abs=1e-6)


def test_blow_up_raises_or_is_recorded():
    unstable = {**TONGUE, "mass": 0.01, "integrator": "explicit_euler"}
    with pytest.raises(SimulationError, match="blew up at t = "):
        flocklab.simulate("springs", **unstable, dt=0.05, t_end=5.0, seed=1)
    ds = flocklab.simulate("springs", **unstable, on_blowup="record", dt=0.05, t_end=5.0,
                           seed=1)
    metrics = Springs().metrics(ds, Springs().run_parameters(ds), 0.0)
    assert metrics["stable"] == 0.0 and 0.0 < metrics["t_blowup"] < 5.0
    after = ds["time"].values >= metrics["t_blowup"]
    assert np.all(np.isnan(ds["total_energy"].values[after]))
    assert np.all(np.isfinite(ds["total_energy"].values[~after]))


@pytest.mark.parametrize(("params", "key"), [
    ({"mass": 0.0}, "mass"), ({"stiffness": -1.0}, "stiffness"),
    ({"rest_length": 0.0}, "rest_length"), ({"integrator": "leapfrog"}, "integrator"),
    ({"tip_force": [1.0]}, "tip_force"), ({"structure": "network"}, "network"),
])
def test_bad_parameters_fail_before_running(params, key):
    with pytest.raises(ParameterError) as error:
        Springs().resolve(params)
    assert error.value.name == key


def test_bad_network_and_dt():
    document = to_document(chain(n_points=3))
    document["springs"][1]["j"] = 7
    with pytest.raises(ParameterError) as error:
        Springs().resolve({"structure": "network", "network": document})
    assert error.value.name == "network.springs[1].j"
    for point in document["points"]:
        point["fixed"] = True
    document["springs"][1]["j"] = 2
    with pytest.raises(ParameterError) as error:
        Springs().resolve({"structure": "network", "network": document})
    assert error.value.name == "network.points[*].fixed"
    with pytest.raises(ParameterError) as error:
        flocklab.simulate("springs", dt=-0.01, t_end=1.0, seed=1)
    assert error.value.name == "dt"


def test_network_and_cloth_runs_and_solver_statistics():
    document = to_document(chain(n_points=4, tip_force=(0.0, 0.0, 1.0)))
    ds = flocklab.simulate("springs", structure="network", network=document,
                           integrator="implicit_euler", dt=0.02, t_end=0.4, seed=1)
    assert ds.sizes["point"] == 4 and float(ds["newton_iterations_max"]) <= 20
    cloth = flocklab.simulate("springs", structure="cloth", nx=5, ny=4, stiffness=1000.0,
                              mass=0.01, damping=0.05, gravity=9.81,
                              integrator="implicit_euler_diagonal", dt=1 / 60, t_end=0.5,
                              seed=1, snapshot_every=0.25)
    assert cloth.sizes["point"] == 20 and np.all(cloth["z"].values[-1] <= 1e-12)
    assert float(cloth["fixed"].sum()) == 2


def test_perturbed_start_depends_only_on_the_seed():
    runs = [flocklab.simulate("springs", **TONGUE, initial="perturbed", integrator="rk4",
                              dt=0.01, t_end=0.2, seed=seed) for seed in (3, 3, 4)]
    assert np.array_equal(runs[0]["tip_x"].values, runs[1]["tip_x"].values)
    assert not np.array_equal(runs[0]["tip_x"].values, runs[2]["tip_x"].values)
    assert runs[0]["tip_distance"].values[0] < 0.01 * 0.05 * math.sqrt(2) + 1e-12


CLOTH = {"structure": "cloth", "nx": 4, "ny": 3, "gravity": 9.81}


def _small_runs() -> tuple:
    return tuple(flocklab.simulate("springs", **params, dt=0.01, t_end=0.1, seed=1,
                                   snapshot_every=0.05) for params in (TONGUE, CLOTH))


def test_draw_chain_on_ordinary_axes_and_cloth_in_3d():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mpl_toolkits.mplot3d.axes3d import Axes3D

    chain_run, cloth_run = _small_runs()
    model = Springs()
    drawing = drawing_of(model)
    assert drawing.projection(chain_run) is None and drawing.projection(cloth_run) == "3d"
    figure, ax = plt.subplots()
    drawing_of(model).draw(ax, chain_run, 1, label="test")
    assert not isinstance(ax, Axes3D) and len(ax.collections) == 1
    assert "t = 0.05 s" in ax.get_title() and ax.get_ylabel() == "$y$ (m)"
    segments = ax.collections[0].get_segments()
    system = model.build({**{p.name: p.default for p in model.parameters}, **TONGUE})
    x, y = chain_run["x"].values[1], chain_run["y"].values[1]
    assert np.allclose(segments, np.stack([np.column_stack([x[system.springs[:, k]],
                                                            y[system.springs[:, k]]])
                                           for k in (0, 1)], axis=1))
    plt.close(figure)

    figure = plt.figure()
    ax = figure.add_subplot(projection="3d")
    drawing_of(model).draw(ax, cloth_run, 2, label="test")
    assert isinstance(ax, Axes3D) and "t = 0.1 s" in ax.get_title()
    system = model.build({**{p.name: p.default for p in model.parameters}, **CLOTH})
    points = np.stack([cloth_run[c].values[2] for c in ("x", "y", "z")], axis=-1)
    lines = [c for c in ax.collections if hasattr(c, "_segments3d")]
    assert len(lines) == 1
    assert np.allclose(np.asarray(lines[0]._segments3d), points[system.springs])
    assert len(system.springs) == 4 * 2 + 3 * 3 + 2 * 3 * 2     # structural + shear
    # pinned points drawn as squares, at the pinned positions
    squares = [line for line in ax.lines if line.get_marker() == "s"]
    assert len(squares) == 1
    assert np.allclose(np.column_stack(squares[0].get_data_3d()), points[system.fixed])
    # fixed limits: the whole run's bounding box (plus the mean rest length) at every frame
    everything = np.stack([cloth_run[c].values for c in ("x", "y", "z")], axis=-1)
    pad = float(np.mean(system.rest_length))
    assert ax.get_zlim() == pytest.approx((everything[..., 2].min() - pad,
                                           everything[..., 2].max() + pad))
    before = (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())
    ax.clear()
    drawing_of(model).draw(ax, cloth_run, 0)
    assert (ax.get_xlim(), ax.get_ylim(), ax.get_zlim()) == before
    plt.close(figure)


@pytest.mark.filterwarnings("ignore:Animation was deleted")
def test_snapshot_figure_and_animation_use_the_model_projection():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mpl_toolkits.mplot3d.axes3d import Axes3D

    from flocklab.figures import plotting

    chain_run, cloth_run = _small_runs()
    figure = plotting.snapshot_figure([chain_run, cloth_run], ["last", "last"], ["a", "b"])
    kinds = [isinstance(ax, Axes3D) for ax in figure.axes if ax.get_visible()]
    assert kinds == [False, True]
    plt.close(figure)
    for run, three_d in ((chain_run, False), (cloth_run, True)):
        animation = plotting.animate_run(run)
        animation._func(1)
        assert isinstance(animation._fig.axes[0], Axes3D) == three_d
        plt.close(animation._fig)
        del animation
        gc.collect()   # the unsaved animation warns when collected: here, under the filter


def test_stability_task_from_the_command_line(tmp_path, capsys):
    """``flocklab task springs stability`` on the tongue with semi-implicit Euler: the
    linear-theory limit 0.03767 s (to 1e-3) and the measured limit within 3 % of it."""
    import json

    from flocklab.cli.main import main

    assert main(["task", "springs", "stability", "--methods", '["semi_implicit_euler"]',
                 "--run-time", "2", "--min-steps", "500", "--out-dir", str(tmp_path)]) == 0
    (row,) = json.loads((tmp_path / "result.json").read_text())["result"]["table"]
    assert row["dt_theory"] == pytest.approx(0.03767, rel=1e-3)
    assert row["dt_measured"] == pytest.approx(row["dt_theory"], rel=0.03)
    assert (tmp_path / "stability.csv").exists()
