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


def _figure_layouts(workdir: Path, config_path: Path) -> dict[str, list[str]]:
    """Every figure and animation of a finished run of ``config_path`` in ``workdir``,
    redrawn by its kind and checked (:func:`flocklab.figures.layout.layout_problems`):
    ``figure name -> problems`` (empty lists when the layout is clean)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from flocklab.config import load_config
    from flocklab.figures.kinds import KINDS, FigureContext
    from flocklab.figures.layout import layout_problems

    config, studies = load_config(config_path)
    found = {}
    old = os.getcwd()
    os.chdir(workdir)
    try:
        context = FigureContext(config, studies, "results")
        for name, spec in config["figures"].items():
            kind = KINDS[spec["kind"]]
            drawn = kind.draw(spec, kind.inputs(spec, context))
            fig = drawn._fig if kind.animation else drawn
            if kind.animation:
                drawn._func(0)
            found[name] = layout_problems(fig)
            plt.close(fig)
    finally:
        os.chdir(old)
    return found


@pytest.fixture(scope="session")
def figure_layouts() -> Callable[[Path, Path], dict[str, list[str]]]:
    """``figure_layouts(workdir, config_path)``: the layout problems of every figure of a
    finished pipeline run (an empty list per clean figure)."""
    return _figure_layouts
