"""Shared test helpers.

``tests/plugins`` holds test-only models and the ``.dist-info`` that registers them in the
``flocklab.models`` entry-point group; it is put on ``sys.path`` here (and on ``PYTHONPATH``
for subprocesses, such as Snakemake's jobs) before any model is looked up.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PLUGINS = REPO / "tests" / "plugins"

sys.path.insert(0, str(PLUGINS))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(PLUGINS), *filter(None, [os.environ.get("PYTHONPATH")])])


@pytest.fixture
def repo() -> Path:
    return REPO
