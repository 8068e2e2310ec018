"""Shared test helpers (fixtures; test modules never import each other).

``tests/plugins`` holds test-only models and the ``.dist-info`` that registers them in the
``flocklab.models`` entry-point group; it is put on ``sys.path`` here (and on ``PYTHONPATH``
for subprocesses, such as Snakemake's jobs) before any model is looked up. Tests under
``tests/pipeline`` carry the ``pipeline`` marker.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PLUGINS = REPO / "tests" / "plugins"

sys.path.insert(0, str(PLUGINS))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(PLUGINS), *filter(None, [os.environ.get("PYTHONPATH")])])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent.name == "pipeline":
            item.add_marker(pytest.mark.pipeline)


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository's root directory."""
    return REPO


def _snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"),
               "--directory", str(workdir), *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture(scope="session")
def snakemake() -> Callable[..., subprocess.CompletedProcess]:
    """``snakemake(workdir, *args, check=True)``: the repository's workflow run in
    ``workdir`` with the test environment's interpreter (an AssertionError with its output
    when it fails and ``check`` is true)."""
    return _snakemake
