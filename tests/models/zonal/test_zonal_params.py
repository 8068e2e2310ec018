"""Bad input is rejected before anything runs, with one error naming the key."""

from __future__ import annotations

import pytest

from flocklab.core.parameters import ParameterError
from flocklab.models.zonal.engine import ZonalSimulation
from flocklab.models.zonal.params import resolve

PRED = {"position": [-30.0, 0.0, 0.0]}


@pytest.mark.parametrize(("params", "key"), [
    ({"r_r": 0.0}, "r_r"),
    ({"r_r": -1.0}, "r_r"),
    ({"delta_o": -0.5}, "delta_o"),
    ({"delta_a": -2.0}, "delta_a"),
    ({"field_of_view": 0.0}, "field_of_view"),
    ({"field_of_view": 361.0}, "field_of_view"),
    ({"informed_fraction": 1.2}, "informed_fraction"),
    ({"informed_fraction": -0.1}, "informed_fraction"),
    ({"informed_fraction": 0.7, "subgroups": [{"fraction": 0.4, "direction": [1, 0, 0]}]},
     "informed_fraction"),
    ({"subgroups": [{"fraction": 0.5, "direction": [0, 0, 0]}]}, "subgroups[0].direction"),
    ({"dim": 4}, "dim"),
    ({"rule": "vicsek"}, "rule"),
    ({"dt": 0.5}, "dt"),                                  # 3 * 0.5 > r_r = 1
    ({"rule": "couzin2005", "speed": 1.0, "dt": 1.5}, "dt"),  # 1.5 > alpha = 1
    ({"predators": [{**PRED, "speed": 20.0}]}, "dt"),     # predator 2 per step > r_r
    ({"predators": [PRED], "escape_speed": 9.0}, "dt"),   # fleeing prey 1.08 per step
    ({"predators": [{"speed": 5.0}]}, "predators[0].position"),
    ({"predators": [{**PRED, "capture_radius": -1.0}]}, "predators[0].capture_radius"),
    ({"predators": [{**PRED, "c1": 2.0, "c2": 1.0}]}, "predators[0].c2"),
    ({"predators": [{**PRED, "target": "random"}]}, "predators[0].target"),
    ({"predators": [{**PRED, "colour": "grey"}]}, "predators[0].colour"),
    ({"predators": [{"position": [1.0, 2.0]}]}, "predators[0].position"),  # dim 3 needs 3
    ({"obstacles": [{"centre": [3.0, 0.0, 0.0], "radius": 1.0}]}, "obstacles[0]"),
    ({"obstacles": [{"centre": [30.0, 0.0, 0.0], "radius": -1.0}]}, "obstacles[0].radius"),
    ({"obstacles": [{"centre": [30.0, 0.0, 0.0], "radius": 2.0, "influence": 1.5}]},
     "obstacles[0].influence"),
    ({"obstacles": [{"centre": [30.0, 0.0, 0.0], "radius": 2.0},
                    {"centre": [32.0, 0.0, 0.0], "radius": 1.0}]}, "obstacles[1]"),
    ({"obstacles": [{"centre": [-30.0, 0.0, 0.0], "radius": 2.0}],
      "predators": [{"position": [-30.5, 0.0, 0.0]}]}, "predators[0].position"),
    ({"food": {"where": [1, 2, 3]}}, "food.where"),
    ({"box": 8.0, "start_radius": 5.0}, "start_radius"),
    ({"N": 0}, "N"),
    ({"noise": -0.1}, "noise"),
    ({"speed_spread": 1.0}, "speed_spread"),
    ({"unknown": 1.0}, "unknown"),
])
def test_bad_input_names_the_key(params, key):
    with pytest.raises(ParameterError) as info:
        resolve(params)
    assert info.value.name == key
    assert f"'{key}" in str(info.value) or f"'{key}'" in str(info.value)
    assert "\n" not in str(info.value)


def test_good_input_resolves_with_defaults_and_structured_values():
    p = resolve({"dim": 2, "predators": [{"position": [-30, 0], "target": "optimal"}],
                 "obstacles": [{"centre": [20, 0], "radius": 2}], "food": {"position": [50, 0]},
                 "subgroups": [{"fraction": 0.1, "direction": [0, 2]}]})
    assert p["rule"] == "couzin2002" and p["field_of_view"] == 270.0
    predator = p["predator_specs"][0]
    assert predator["speed"] == 8.0 and predator["target"] == "optimal"
    assert p["obstacle_rows"].shape == (1, 6) and p["obstacle_rows"][0, 4] == 4.0  # 2 a
    assert p["subgroup_directions"][0][1].tolist() == [0.0, 1.0]
    assert p["food_position"].tolist() == [50.0, 0.0, 0.0]
    # the declared values stay as given: they are what a run file records
    assert p["predators"] == [{"position": [-30, 0], "target": "optimal"}]
    assert p["food"] == {"position": [50, 0]}


def test_the_engine_validates_before_building_anything():
    with pytest.raises(ParameterError, match="'dt'"):
        ZonalSimulation.from_parameters({"dt": 1.0}, seed=0)


def test_predator_and_obstacle_scalars_are_the_defaults_of_the_structured_values():
    p = resolve({"predator_target": "optimal", "predator_w_v": 2.0, "obstacle_k": 0.5,
                 "predators": [PRED, {**PRED, "target": "nearest", "w_v": 0.0}],
                 "obstacles": [{"centre": [30.0, 0.0, 0.0], "radius": 2.0},
                               {"centre": [-30.0, 9.0, 0.0], "radius": 2.0, "k": 3.0}]})
    assert [(q["target"], q["w_d"], q["w_v"]) for q in p["predator_specs"]] == [
        ("optimal", 1.0, 2.0), ("nearest", 1.0, 0.0)]
    assert p["obstacle_rows"][:, 5].tolist() == [0.5, 3.0]


@pytest.mark.parametrize(("params", "key"), [
    ({"predator_target": "fastest"}, "predator_target"),
    ({"predator_w_v": -1.0}, "predator_w_v"),
    ({"obstacle_k": -0.1}, "obstacle_k"),
])
def test_bad_predator_and_obstacle_scalars_name_the_key(params, key):
    with pytest.raises(ParameterError) as info:
        resolve(params)
    assert info.value.name == key
