"""
Force-based swarm: a mill from a Morse potential
================================================

Self-propelled agents with a Morse pair potential (D'Orsogna et al., "Self-propelled particles
with soft-core interactions: patterns, stability, and collapse", Phys. Rev. Lett. 96, 104302,
2006) spread from a small rotating start into a ring that keeps rotating (a mill): the
mill regime of the paper, C = C_r/C_a = 2 and l = l_r/l_a = 0.25.
"""

import flocklab
from flocklab.figures.plotting import series_figure, snapshot_figure

run = flocklab.simulate("forces", N=60, alpha=1.0, beta=0.5, C_a=0.5, l_a=2.0, C_r=1.0, l_r=0.5,
                        initial="rotating", t_end=40.0, seed=2, snapshot_every=40.0)
snapshot_figure([run, run], ["first", "last"], ["(a)", "(b)"], trail=0)

# %%
# The observables the model declares, against time.
series_figure([run], [o.name for o in flocklab.get_model("forces").observables[:2]], ["run"])
