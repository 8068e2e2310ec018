"""
Foraging: schools on a food field
=================================

Agents on an energy budget forage on food patches with the artificial fish-swarm behaviours
(Li, Shao and Qian, "An optimizing method based on autonomous animats: fish-swarm algorithm",
Systems Engineering — Theory & Practice 22(11), 32, 2002): the start and the field after the
schools have fed.
"""

import flocklab
from flocklab.figures.plotting import snapshot_figure

run = flocklab.simulate("foraging", N=40, Lx=60.0, Ly=60.0, patches=6, t_end=40.0, seed=4,
                        snapshot_every=40.0)
snapshot_figure([run, run], ["first", "last"], ["(a)", "(b)"], trail=0)
