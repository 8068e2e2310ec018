"""
Bench dragon: the chain on its spiral
=====================================

The bench dragon of the 2024 contest problem A (China Undergraduate Mathematical Contest in
Modeling): 223 rigid benches whose handles follow an Archimedean spiral of pitch 0.55 m, the
head at 1 m/s. The chain at the start and after 300 s (question 1).
"""

import flocklab
from flocklab.figures.plotting import snapshot_figure

run = flocklab.simulate("dragon_chain", t_end=300.0, dt=1.0, seed=0, snapshot_every=300.0)
snapshot_figure([run, run], ["first", "last"], ["(a)", "(b)"], trail=0)
