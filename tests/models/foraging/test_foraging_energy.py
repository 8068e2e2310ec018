"""The energy budget against closed forms.

Without food an agent at constant speed v loses mu = k v + b per unit time and dies at
t* = E0 / (k v + b); on a uniform field F that is not depleted it gains gamma F, so
E(t) = E0 + (gamma F - mu) t until E_max, where the intake stops. The death time is the
zero of the energy, linear within a step, so it is exact for any dt, not rounded to steps.
"""

from __future__ import annotations

import numpy as np
import pytest

import flocklab

NO_FOOD = {"patches": 0, "food_background": 0.0}


def _run(t_end, dt, **params):
    return flocklab.simulate("foraging", **params, t_end=t_end, dt=dt, seed=7,
                             record_every=dt, snapshot_every=dt)


@pytest.mark.parametrize(("speed", "k", "b", "e0", "dt"), [
    (1.0, 0.1, 0.1, 15.0, 0.2),      # t* = 75 s, a whole number of steps
    (0.7, 0.3, 0.05, 10.0, 0.3),     # t* = 38.46... s, inside a step
    (2.0, 0.0, 0.25, 5.0, 0.1),      # basal rate only: t* = 20 s
    (0.5, 0.4, 0.0, 3.0, 0.25),      # distance cost only: t* = 15 s
])
def test_an_isolated_agent_without_food_dies_at_e0_over_kv_plus_b(speed, k, b, e0, dt):
    expected = e0 / (k * speed + b)
    t_end = dt * (int(expected / dt) + 5)
    run = _run(t_end, dt, N=1, speed=speed, flee_speed=speed, k_metabolic=k, b_metabolic=b,
               E0=e0, E_max=e0, Lx=20.0, Ly=20.0, **NO_FOOD)
    death = float(run["death_time"].values[0])
    assert int(run["cause"].values[0]) == 1  # starved
    assert abs(death - expected) <= 1e-9 * expected
    # it swam at v until the end of the step it died in
    travelled = float(run["travelled"].values[0])
    assert speed * death - 1e-9 <= travelled <= speed * (death + dt) + 1e-9
    # the energy falls on the straight line E0 - mu t while alive (frames every step)
    time = run["frame"].values
    alive = run["alive"].values[:, 0].astype(bool)
    line = (e0 - (k * speed + b) * time[alive]) / e0
    np.testing.assert_allclose(run["energy"].values[alive, 0], line, rtol=0, atol=1e-12)
    assert not alive[time >= expected + 1e-9].any()


@pytest.mark.parametrize(("food", "gamma"), [(0.6, 0.5), (0.2, 0.5), (1.3, 0.1)])
def test_on_a_uniform_field_the_intake_is_gamma_f(food, gamma):
    """20 agents on F everywhere, no depletion: every agent's energy follows
    E0 + (gamma F - mu) t (rising or falling) until E_max, and eaten = gamma F t."""
    k, b, speed, e0, e_max = 0.1, 0.1, 1.0, 10.0, 20.0
    mu = k * speed + b
    run = _run(40.0, 0.2, N=20, food_background=food, feeding_rate=gamma, patches=0,
               depletion=False, k_metabolic=k, b_metabolic=b, E0=e0, E_max=e_max,
               group_size=1)
    time = run["frame"].values
    expected = np.minimum(e0 + (gamma * food - mu) * time, e_max) / e_max
    energy = run["energy"].values
    np.testing.assert_allclose(energy, np.repeat(expected[:, None], 20, axis=1), atol=1e-12)
    if gamma * food - mu < 0 or e0 + (gamma * food - mu) * 40.0 < e_max:  # never capped
        np.testing.assert_allclose(run["eaten"].values, gamma * food * 40.0, rtol=1e-12)
    # energy balance in every case: E(T) = E0 - mu T + eaten
    np.testing.assert_allclose(energy[-1] * e_max, e0 - mu * 40.0 + run["eaten"].values,
                               atol=1e-10)


@pytest.mark.parametrize("depletion", [False, True])
def test_energy_never_exceeds_e_max(depletion):
    """A rich field (intake 5 per s against a cost of 0.2): everyone reaches E_max within
    a few seconds and stays exactly there; the intake only replaces what was spent."""
    run = _run(30.0, 0.2, N=40, food_background=10.0, patches=0, depletion=depletion,
               group_size=4)
    energy = run["energy"].values
    assert energy.max() == 1.0  # S = E / E_max, never above
    mu = 0.1 * 1.0 + 0.1
    if depletion:  # grazed cells feed less: below the cap at times, never above
        assert np.mean(energy[50:] == 1.0) > 0.5
        return
    assert np.all(energy[50:] == 1.0)  # from t = 10 s on, at the cap
    # after the cap each agent eats exactly what it spends: eaten = E_max - E0 + mu T
    np.testing.assert_allclose(run["eaten"].values, 20.0 - 15.0 + mu * 30.0, rtol=1e-9)


def test_eaten_food_leaves_the_field():
    """Without regrowth, the energy eaten equals the food removed: sum(F0 - F) h^2."""
    run = _run(60.0, 0.2, N=60, group_size=6, patches=20, patch_radius=4.0, food_cell=0.5)
    food = run["food"].values.astype(float)
    removed = (food[0].sum() - food[-1].sum()) * 0.5 * 0.5
    assert run["eaten"].values.sum() > 10.0
    # float32 frames: 2^-24 relative on each of the 40 000 cells
    assert run["eaten"].values.sum() == pytest.approx(removed, rel=1e-5)


def test_regrowth_relaxes_the_field_exactly():
    from flocklab.models.foraging.kernels import regrow

    rng = np.random.default_rng(3)
    initial = rng.uniform(0.0, 2.0, 500)
    field = initial * rng.uniform(0.0, 1.0, 500)
    start = field.copy()
    rate, dt, steps = 0.05, 0.2, 300
    for _ in range(steps):
        regrow(field, initial, np.exp(-rate * dt))
    np.testing.assert_allclose(field, initial - (initial - start) * np.exp(-rate * dt * steps),
                               rtol=1e-12)
