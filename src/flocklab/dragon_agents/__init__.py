"""The bench dragon as agents: N units joined by penalty links, steered by local rules.

Engine of the ``dragon_agents`` model (see :mod:`flocklab.dragon_agents.dynamics` for
the equations, :mod:`~flocklab.dragon_agents.solve` for the integration and
:mod:`~flocklab.dragon_agents.metrics` for the per-run measures). Reference: the
bench-dragon article (seed 000).
"""

from flocklab.dragon_agents.dynamics import DragonSystem
from flocklab.dragon_agents.engine import (
           PARAMETERS,
           build_system,
           initial_state,
           resolve,
           simulate_dragon,
)
from flocklab.dragon_agents.solve import METHODS, Solution, integrate, integrate_delayed

__all__ = ["METHODS", "PARAMETERS", "DragonSystem", "Solution", "build_system",
           "initial_state", "integrate", "integrate_delayed", "resolve", "simulate_dragon"]
