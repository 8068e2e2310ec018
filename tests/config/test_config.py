"""Config validation: one clear message naming the key, before anything runs."""

from __future__ import annotations

import copy

import pytest
import yaml

from flocklab.config import expand_values, format_value
from flocklab.core.parameters import ConfigError
from flocklab.pipeline import load_config, validate_config


@pytest.fixture
def test_config(repo):
    with open(repo / "config" / "test.yaml") as stream:
        return yaml.safe_load(stream)


def test_shipped_configs_are_valid(repo):
    """Every config in config/ (the default with its includes, the tiny test ones, the large
    ones) validates."""
    paths = sorted((repo / "config").glob("*.yaml"))
    assert len(paths) >= 10
    for path in paths:
        config, studies = load_config(path)
        assert studies, path
        assert config["plot"]["dpi"] > 0


def test_defaults_are_filled(test_config):
    del test_config["studies"]["density"]["replicates"]
    studies = validate_config(test_config)
    assert studies["density"].replicates == 1
    assert test_config["studies"]["density"]["snapshots"] == {"every": 0, "start": 0}


def _mutate(config, path, value):
    node = config
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value


@pytest.mark.parametrize(("path", "value", "expected"), [
    (["studies", "noise", "colour"], "red", "studies.noise.colour"),
    (["studies", "noise", "replicates"], "two", "studies.noise.replicates"),
    (["studies", "noise", "steps"], 0, "studies.noise.steps"),
    (["studies", "snapshots", "params", "N"], 0, "studies.snapshots.params.N"),
    (["studies", "density", "params", "L"], 0.0, "studies.density.params.L"),
    (["studies", "density", "params", "L"], -3.0, "studies.density.params.L"),
    (["studies", "noise", "params", "r"], 0.0, "studies.noise.params.r"),
    (["studies", "noise", "params", "v0"], -0.1, "studies.noise.params.v0"),
    (["studies", "noise", "sweep", 1, "eta"], [1.0, 7.0], "studies.noise.sweep[1].eta[1]"),
    (["studies", "noise", "params", "noise"], "vectorial", "studies.noise.sweep[1].eta"),
    (["studies", "noise", "sweep", 1, "eta"], {"start": 0, "stop": 1},
     "studies.noise.sweep[1].eta"),
    (["studies", "noise", "params", "speed"], 1.0, "studies.noise.params.speed"),
    (["studies", "noise", "burn_in"], 300, "studies.noise.burn_in"),
    (["studies", "noise", "burn_in"], 500, "studies.noise.burn_in"),
    (["studies", "noise", "model"], "boids", "studies.noise.model"),
    (["studies", "noise", "sweep", 0, "L"], [2.2], "studies.noise.sweep[0]"),
    (["figures", "fig2a", "study"], "nothing", "figures.fig2a.study"),
    (["figures", "fig2a", "x"], "temperature", "figures.fig2a.x"),
    (["figures", "fig1", "panels", 0, "point"], {"L": 4.0, "eta": 2.0},
     "figures.fig1.panels[0].point"),
    (["plot", "dpi"], 5, "plot.dpi"),
    (["studies", "noise", "critical", "control"], "temperature", "studies.noise.critical.control"),
    (["studies", "noise", "critical", "reduced_min"], 0.9, "studies.noise.critical.reduced_min"),
    (["studies", "noise", "critical", "select"], {"M": 3}, "studies.noise.critical.select.M"),
    (["studies", "density", "critical"], {"control": "eta"}, "studies.density.critical.control"),
    (["studies", "noise", "fss", "size"], "r", "studies.noise.fss.size"),
    (["studies", "noise", "sweep", 0], {"N": [40], "L": [3.2]}, "studies.noise.fss.size"),
    (["studies", "noise", "replicates"], 1, "studies.noise.replicates"),
    (["studies", "noise", "fss", "select"], {"M": 3}, "studies.noise.fss.select.M"),
    (["studies", "noise", "fss", "resamples"], 19, "studies.noise.fss.resamples"),
    (["studies", "noise", "fss", "bootstrap"], 3, "studies.noise.fss.bootstrap"),
    (["studies", "noise", "fss", "dimension"], 0, "studies.noise.fss.dimension"),
    (["studies", "noise", "fss", "collapse_window"], 0, "studies.noise.fss.collapse_window"),
    (["figures", "fig2b", "kind"], "collapse", "figures.fig2b"),
])
def test_bad_values_name_the_key(test_config, path, value, expected):
    config = copy.deepcopy(test_config)
    _mutate(config, path, value)
    with pytest.raises(ConfigError) as error:
        validate_config(config)
    message = str(error.value)
    assert f"config key '{expected}':" in message, message
    assert "\n" not in message


def test_eta_range_message_gives_the_allowed_range(test_config):
    test_config["studies"]["noise"]["sweep"][1]["eta"] = [7.0]
    with pytest.raises(ConfigError, match=r"<= 6.28"):
        validate_config(test_config)


def test_range_values_are_exact_decimals():
    assert expand_values({"start": 0.0, "stop": 1.0, "num": 11})[3] == 0.3
    assert expand_values({"start": 0.0, "stop": 5.0, "step": 0.25})[-1] == 5.0
    assert len(expand_values({"start": 0.0, "stop": 5.0, "step": 0.25})) == 21
    assert [format_value(v) for v in expand_values({"start": 0.1, "stop": 0.3, "step": 0.1})] \
        == ["0.1", "0.2", "0.3"]
    assert format_value(7.0) == "7.0" and format_value(400) == "400"


def test_point_labels_and_seeds_are_stable_when_points_are_added(test_config):
    before = validate_config(copy.deepcopy(test_config))["noise"]
    test_config["studies"]["noise"]["sweep"][1]["eta"] = [0.5 * k for k in range(13)] + [6.25]
    after = validate_config(test_config)["noise"]
    old = {p.label: [before.seed(p, k) for k in range(2)] for p in before.points()}
    new = {p.label: [after.seed(p, k) for k in range(2)] for p in after.points()}
    assert "N=40_L=3.2_eta=2.0" in old and len(new) == len(old) + 2
    for label, seeds in old.items():
        assert new[label] == seeds
    all_seeds = [s for seeds in new.values() for s in seeds]
    assert len(set(all_seeds)) == len(all_seeds)


# --------------------------------------------------------------------------- nested axes


def _study(sweep, **extra):
    """A one-study config (Vicsek) with the given sweep."""
    return {"studies": {"scan": {"model": "vicsek", "params": {"v0": 0.03},
                                 "sweep": sweep, "replicates": 2, "steps": 100,
                                 "burn_in": 50, **extra}}}


def test_a_nested_axis_gives_each_entry_its_own_values():
    # each size (N, L paired) with its own noise grid, the second one a range; 2.2 in both
    sweep = [{"N": [40, 100], "L": [3.2, 5.0],
              "eta": {"each": [[1.0, 2.2], {"start": 2.2, "stop": 3.0, "num": 3}]}},
             {"r": [1.0, 1.5]}]
    study = validate_config(_study(sweep))["scan"]
    axis = study.axes[0]
    assert axis.dim == "N_eta" and axis.nested == "eta" and len(axis) == 5
    assert axis.coords == {"N": [40, 40, 100, 100, 100], "L": [3.2, 3.2, 5.0, 5.0, 5.0],
                           "eta": [1.0, 2.2, 2.2, 2.6, 3.0]}
    points = list(study.points())
    assert len(points) == 5 * 2
    labels = [point.label for point in points]
    assert len(set(labels)) == len(labels)   # eta = 2.2 twice, at different sizes
    assert "N=40_L=3.2_eta=2.2_r=1.0" in labels and "N=100_L=5.0_eta=2.2_r=1.0" in labels
    seeds = [study.seed(point, k) for point in points for k in range(2)]
    assert len(set(seeds)) == len(seeds)
    # finite-size scaling over that axis: size and control on the same (nested) axis
    validate_config(_study(sweep, fss={"control": "eta", "size": "L"}))
    # ... or on one paired axis
    paired = [{"N": [40, 100, 160], "L": [3.2, 5.0, 6.0], "eta": [1.0, 2.0, 3.0]}]
    validate_config(_study(paired, fss={"control": "eta", "size": "L"}))


@pytest.mark.parametrize(("sweep", "expected", "words"), [
    ([{"N": [40, 100], "L": {"each": [[3.2], [5.0]]}, "eta": {"each": [[1.0], [2.0]]}}],
     "studies.scan.sweep[0].eta", "one parameter of an axis may be nested ('L' is already)"),
    ([{"N": [40, 100], "eta": {"each": [[1.0, 2.0]]}}],
     "studies.scan.sweep[0]", "equal length"),
    ([{"N": [40, 100], "eta": {"each": [[1.0, 1.0], [2.0]]}}],
     "studies.scan.sweep[0].eta", "the values of each entry must be distinct"),
    ([{"N": [40, 40], "eta": {"each": [[1.0], [1.0]]}}],
     "studies.scan.sweep[0].eta", "the values of each entry must be distinct"),
    ([{"N": [40]}, {"eta": {"each": [[1.0, 2.0]]}}],
     "studies.scan.sweep[1]", "a nested parameter needs paired parameters"),
    ([{"N": [40, 100], "eta": {"each": [[1.0], [2.0, 7.0]]}}],
     "studies.scan.sweep[0].eta.each[1][1]", "out of range"),
    ([{"N": [40, 100], "eta": {"each": []}}], "studies.scan.sweep[0].eta.each", "non-empty"),
])
def test_nested_axis_mistakes_name_the_key(sweep, expected, words):
    with pytest.raises(ConfigError) as error:
        validate_config(_study(sweep))
    message = str(error.value)
    assert f"config key '{expected}':" in message and words in message, message
    assert "\n" not in message


def test_finite_size_scaling_needs_two_sizes_replicates_and_known_selections():
    sweep = [{"L": [3.2, 5.0], "eta": {"each": [[1.0, 2.0], [1.5, 2.5]]}}, {"r": [1.0, 1.5]}]
    fss = {"control": "eta", "size": "L", "select": {"r": 1.0}}
    validate_config(_study(sweep, params={"N": 40}, fss=fss))
    for change, expected, words in (
            ({"sweep": [{"L": [3.2], "eta": {"each": [[1.0, 2.0]]}}, {"r": [1.0, 1.5]}]},
             "studies.scan.fss.size", "at least two values of 'L', got 1"),
            ({"replicates": 1}, "studies.scan.replicates", "needs at least 2, got 1"),
            ({"fss": {**fss, "select": {"rho": 1.0}}}, "studies.scan.fss.select.rho",
             "not a swept dimension; allowed: L_eta, r"),
            ({"fss": {**fss, "size": "N"}}, "studies.scan.fss.size", "'N' is not swept")):
        config = _study(sweep, params={"N": 40}, fss=fss)
        config["studies"]["scan"].update(change)
        with pytest.raises(ConfigError) as error:
            validate_config(config)
        message = str(error.value)
        assert f"config key '{expected}':" in message and words in message, message
        assert "\n" not in message


def test_every_mistake_is_reported_at_once():
    """A schema mistake in one study, a parameter out of range in another and a figure naming
    an unknown study: three lines from one check, not three runs; the study with the schema
    mistake is not checked further (its defaults may be missing)."""
    config = {
        "studies": {
            "a": {"model": "vicsek", "params": {"N": -5, "L": 4.0}, "steps": 100},
            "b": {"model": "vicsek", "params": {"eta": 99.0}, "steps": 100, "replicatez": 3},
        },
        "figures": {"f": {"kind": "curve", "study": "nope", "x": "eta",
                          "y": "order_parameter"}},
    }
    with pytest.raises(ConfigError) as error:
        validate_config(config)
    lines = str(error.value).splitlines()
    assert len(lines) == 3, lines
    assert "studies.b.replicatez': unknown key; did you mean 'replicates'" in lines[0]
    assert "studies.a.params.N'" in lines[1] and "figures.f.study': unknown study" in lines[2]


def test_a_broken_section_stops_after_the_schema():
    with pytest.raises(ConfigError, match="config key 'studies'"):
        validate_config({"studies": ["not", "a", "mapping"]})


# --------------------------------------------------------------- order-parameter statistics


def _springs(**extra):
    """A one-study springs config: the tip distance, the primary observable, is no order
    parameter."""
    sweep = [{"stiffness": [40.0, 50.0]}, {"n_points": [4, 6]}]
    study = {"model": "springs", "params": {"structure": "chain"}, "sweep": sweep,
             "replicates": 2, "t_end": 0.5, "dt": 0.01, "record_every": 0.02, **extra}
    return {"studies": {"chain": study}}


@pytest.mark.parametrize(("change", "expected"), [
    ({"critical": {"control": "stiffness"}}, "studies.chain.critical"),
    ({"fss": {"control": "stiffness", "size": "n_points"}}, "studies.chain.fss"),
])
def test_critical_and_fss_need_an_order_parameter(change, expected):
    validate_config(_springs())
    with pytest.raises(ConfigError) as error:
        validate_config(_springs(**change))
    message = str(error.value)
    assert f"config key '{expected}': needs an order parameter" in message, message
    assert "'tip_distance' of model 'springs'" in message and "\n" not in message


@pytest.mark.parametrize("quantity", ["binder_cumulant", "time_to_order"])
def test_a_figure_of_an_order_statistic_needs_an_order_parameter(quantity):
    figure = {"kind": "curve", "study": "chain", "x": "stiffness", "y": "tip_distance"}
    validate_config({**_springs(), "figures": {"f": figure}})
    with pytest.raises(ConfigError) as error:
        validate_config({**_springs(), "figures": {"f": {**figure, "y": quantity}}})
    message = str(error.value)
    assert f"config key 'figures.f.y': '{quantity}' is not one of" in message, message
    assert "\n" not in message
