"""
Mass–spring tongue: integrators compared
========================================

The six-point tongue (springs of 50 N/m and 5 cm, damping 0.5 N s/m, a 1 N tip force) with
explicit Euler, semi-implicit Euler and RK4 at one step: the energy the model records shows
which integrator keeps the damped chain bounded (explicit Euler blows up and its run stops,
recorded as unstable).
"""

import flocklab
from flocklab.figures.plotting import series_figure, snapshot_figure

integrators = ("explicit_euler", "semi_implicit_euler", "rk4")
runs = [flocklab.simulate("springs", integrator=name, t_end=2.0, dt=0.01, seed=0,
                          on_blowup="record", snapshot_every=1.0) for name in integrators]
snapshot_figure(runs, ["last"] * 3, list(integrators), trail=0, columns=3)

# %%
# The energy against time for each integrator.
series_figure(runs, [flocklab.get_model("springs").primary_observable], list(integrators))
