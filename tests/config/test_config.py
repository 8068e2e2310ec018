"""Config validation: one clear message naming the key, before anything runs."""

from __future__ import annotations

import copy

import pytest
import yaml

from flocklab.config import (
    ConfigError,
    expand_values,
    format_value,
    load_config,
    validate_config,
)


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
