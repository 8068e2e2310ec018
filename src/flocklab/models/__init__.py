"""The models: one package per model (``flocklab.models.<name>``).

Each package's ``__init__`` holds the light model class and its declarations; the
registry (:mod:`flocklab.core.registry`) finds them through the ``flocklab.models``
entry-point group.
"""
