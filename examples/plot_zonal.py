"""
Zonal model: swarm, torus and parallel group
============================================

Couzin et al. ("Collective memory and spatial sorting in animal groups", J. Theor. Biol. 218,
1, 2002): the width of the zone of orientation Δr_o switches a group between a swarm, a
rotating torus and a parallel group. Three 2-D runs of 60 agents after 120 s: a loose swarm
(a), groups that split and mill (b) and one polarised group travelling far (c).
"""

import flocklab
from flocklab.figures.plotting import snapshot_figure

widths = (0.0, 2.0, 12.0)
runs = [flocklab.simulate("zonal", N=60, dim=2, delta_o=width, delta_a=12.0, t_end=120.0,
                          seed=3, snapshot_every=120.0) for width in widths]
labels = [f"({letter}) Δr_o = {width:g}" for letter, width in zip("abc", widths, strict=True)]
snapshot_figure(runs, ["last"] * 3, labels, trail=0, columns=3)
