"""
Bench dragon: the contest questions in pictures
===============================================

Questions 2, 4 and 5 of the 2024 contest problem A (China Undergraduate Mathematical Contest
in Modeling), drawn from runs of ``dragon_chain``: the chain when two boards first touch on the
spiral of pitch 0.55 m (the time is the answer of the task ``collision``), the turnaround of
pitch 1.7 m through the S-curve in the 9 m circle, and the largest handle speed along the
turnaround with the head at 1 m/s (the task ``max_speed`` scales the head speed so that this
peak is 2 m/s).
"""

import flocklab
from flocklab.figures.plotting import series_figure, snapshot_figure

# %%
# Question 2: the last frame is the first contact (touching boards drawn in red).
contact = flocklab.simulate("dragon_chain", pitch=0.55, start_turn=16, t0=402.473838,
                            t_end=10.0, dt=0.1, seed=0, snapshot_every=10.0)
snapshot_figure([contact], ["last"], ["(a)"], trail=0, columns=1)

# %%
# Question 4: the turnaround path, 100 s before and 100 s after the head enters the S-curve.
turn = flocklab.simulate("dragon_chain", path="turnaround", pitch=1.7, turn_diameter=9.0,
                         ratio=2.0, t0=-100.0, t_end=200.0, dt=0.5, seed=0,
                         snapshot_every=200.0)
snapshot_figure([turn, turn], ["first", "last"], ["(a)", "(b)"], trail=0)

# %%
# Question 5: the largest handle speed along the turnaround (run time = contest time + 100 s).
series_figure([turn], ["max_speed"], ["head speed 1 m/s"])
