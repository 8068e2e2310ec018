"""Test oracles: independent reimplementations the tests (and the benchmarks that time the
same computation) compare the package against; not part of the package.

* :mod:`.forces` — the force-based swarm's inertial step with all-pairs forces;
* :mod:`.foraging` — one foraging step in whole-array NumPy on the full distance matrix;
* :mod:`.dragon_agents` — the bench-dragon article's right-hand side as its loop.

``tests/conftest.py`` puts ``tests/oracles`` on ``sys.path``; a benchmark inserts it itself.
"""
