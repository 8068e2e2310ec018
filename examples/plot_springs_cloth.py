"""
Hanging cloth: explicit against implicit Euler
==============================================

A 10 × 10 cloth pinned at its two top corners falls under gravity. Semi-implicit Euler needs a
time step below its stability limit; implicit Euler (Baraff and Witkin, "Large steps in cloth
simulation", Proc. SIGGRAPH '98, 1998) takes a step ten times larger and stays stable, at the
price of numerical damping.
"""

import flocklab
from flocklab.figures.plotting import series_figure, snapshot_figure

cases = {"semi_implicit_euler": 0.001, "implicit_euler": 0.01}
runs = [flocklab.simulate("springs", structure="cloth", gravity=9.81, stiffness=500.0,
                          integrator=name, t_end=1.0, dt=dt, seed=0, snapshot_every=1.0)
        for name, dt in cases.items()]
labels = [f"{name}, dt = {dt:g} s" for name, dt in cases.items()]
snapshot_figure(runs, ["last", "last"], ["(a)", "(b)"], trail=0)

# %%
# The model's observables against time for both integrators.
series_figure(runs, [o.name for o in flocklab.get_model("springs").observables[:2]], labels)
