"""
Mass–spring tongue: integrators compared
========================================

The six-point tongue (springs of 50 N/m and 5 cm, damping 0.5 N s/m, a 1 N tip force) with
explicit, semi-implicit and implicit Euler, velocity Verlet and RK4 at one step, dt = 0.01 s:
the tip's distance from its static equilibrium shows which integrator keeps the damped chain
bounded (explicit Euler blows up and its run stops, recorded as unstable).
"""

import flocklab
from flocklab.figures.plotting import series_figure, snapshot_figure

integrators = ("explicit_euler", "semi_implicit_euler", "implicit_euler", "velocity_verlet",
               "rk4")
runs = [flocklab.simulate("springs", integrator=name, t_end=2.0, dt=0.01, seed=0,
                          on_blowup="record", snapshot_every=1.0) for name in integrators]
snapshot_figure(runs, ["last"] * 5, list(integrators), trail=0, columns=5)

# %%
# The tip distance against time for each integrator: implicit Euler departs from RK4 (its
# numerical damping), the others follow RK4 until explicit Euler blows up.
series_figure(runs, [flocklab.get_model("springs").primary_observable], list(integrators))
