"""
Bench dragon as agents: following a circle
==========================================

The bench dragon as an agent ODE (alignment, cohesion, path following, damping and penalty
links, integrated by ``solve_ivp`` with Radau): twenty units start in a straight line behind
a circular path and the head leads them onto it.
"""

import flocklab
from flocklab.figures.plotting import series_figure, snapshot_figure

run = flocklab.simulate("dragon_agents", N=20, t_end=20.0, dt=0.1, seed=1, snapshot_every=10.0)
snapshot_figure([run, run], ["first", "last"], ["(a)", "(b)"], trail=0)

# %%
# The declared observables against time.
series_figure([run], [o.name for o in flocklab.get_model("dragon_agents").observables[:2]],
              ["run"])
