"""The bench dragon of the 2024 CUMCM problem A: chain solver, collisions, questions, tables.

Modules: :mod:`~flocklab.dragon.geometry` (bench sizes), :mod:`~flocklab.dragon.chain`
(handles on a path, rigid-bench speeds), :mod:`~flocklab.dragon.compiled` (numba kernels),
:mod:`~flocklab.dragon.collision` (boards, separating axes, first contact),
:mod:`~flocklab.dragon.questions` (Q1-Q5), :mod:`~flocklab.dragon.tables` (result tables),
:mod:`~flocklab.dragon.cli` (command line). Paths live in :mod:`flocklab.paths`.
"""
