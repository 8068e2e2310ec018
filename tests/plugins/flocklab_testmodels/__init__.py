"""Test-only models that reach flocklab through its ``flocklab.models`` entry-point group.

The directory ``tests/plugins`` holds this package and its ``.dist-info`` (metadata and
``entry_points.txt``), so putting the directory on ``sys.path``/``PYTHONPATH`` installs the
plugin as far as :mod:`importlib.metadata` is concerned — no edit to flocklab, as an outside
package would do it. The models use only the public contract (:mod:`flocklab.models`).
"""
