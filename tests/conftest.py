"""Shared test helpers (fixtures; test modules never import each other).

``tests/plugins`` holds test-only models and the ``.dist-info`` that registers them in the
``flocklab.models`` entry-point group; it is put on ``sys.path`` here (and on ``PYTHONPATH``
for subprocesses, such as Snakemake's jobs) before any model is looked up. ``tests/oracles``
holds ``flocklab_oracles``, independent reimplementations the tests compare models against
(on ``sys.path`` too). Tests under ``tests/pipeline`` carry the ``pipeline`` marker.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
PLUGINS = REPO / "tests" / "plugins"
ORACLES = REPO / "tests" / "oracles"

sys.path.insert(0, str(PLUGINS))
sys.path.insert(0, str(ORACLES))
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


@pytest.fixture(scope="session")
def run_config(tmp_path_factory) -> Callable[[Path], Path]:
    """``run_config(config_path)``: a copy of the config run to completion on 2 cores in a
    fresh directory; returns its ``results`` directory."""
    def run(config_path: Path) -> Path:
        workdir = tmp_path_factory.mktemp(config_path.stem)
        config = workdir / "config.yaml"
        shutil.copy(config_path, config)
        _snakemake(workdir, "--configfile", str(config), "--cores", "2")
        return workdir / "results"

    return run


@pytest.fixture(scope="session")
def test_yaml_run(tmp_path_factory, snakemake) -> tuple[Path, Path]:
    """``config/test.yaml`` run once through the workflow and its report, shared by the
    pipeline tests: ``(workdir, config_path)``, results under ``workdir / "results"``."""
    workdir = tmp_path_factory.mktemp("pipeline")
    config_path = workdir / "config.yaml"
    config_path.write_text((REPO / "config" / "test.yaml").read_text())
    snakemake(workdir, "--configfile", str(config_path), "--cores", "2")
    snakemake(workdir, "--configfile", str(config_path), "--report",
              str(workdir / "results" / "report.html"))
    keep = os.environ.get("FLOCKLAB_KEEP_RESULTS")
    if keep:  # .ci/run hands this local run to .ci/slurm-test for its comparison
        shutil.rmtree(keep, ignore_errors=True)
        shutil.copytree(workdir / "results", keep)
    return workdir, config_path


def _chromium_paths() -> tuple[str | None, str | None]:
    """The Chromium binary and its driver: ``FLOCKLAB_CHROMIUM`` and
    ``FLOCKLAB_CHROMEDRIVER``, else Debian's ``chromium`` and ``chromedriver`` on PATH."""
    binary = os.environ.get("FLOCKLAB_CHROMIUM") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    driver = os.environ.get("FLOCKLAB_CHROMEDRIVER") or shutil.which("chromedriver")
    return binary, driver


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """A headless Chromium driven by selenium (``selenium.webdriver.Chrome``), with the
    browser console log enabled (``driver.get_log("browser")``). Skipped, saying why, when
    selenium (the ``docs`` extra), the Chromium binary or its driver (Debian packages
    ``chromium`` and ``chromium-driver``) is missing. Nothing is downloaded: the driver is
    the one installed beside the browser. Requests to the network other than ``localhost``
    (the explorer's server) are refused (``--host-resolver-rules``), so a page behaves the
    same with and without internet."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium is not installed (pip install -e '.[docs]')")
    binary, driver_path = _chromium_paths()
    if binary is None or driver_path is None:
        pytest.skip("no Chromium binary or chromedriver: apt-get install chromium "
                    "chromium-driver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1400,1000",
                     "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _figure_layouts(workdir: Path, config_path: Path) -> dict[str, list[str]]:
    """Every figure and animation of a finished run of ``config_path`` in ``workdir``,
    redrawn by its kind and checked (:func:`flocklab.figures.layout.layout_problems`):
    ``figure name -> problems`` (empty lists when the layout is clean)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from flocklab.figures.kinds import KINDS, FigureContext
    from flocklab.figures.layout import layout_problems
    from flocklab.pipeline import load_config

    config, studies = load_config(config_path)
    found = {}
    old = os.getcwd()
    os.chdir(workdir)
    try:
        context = FigureContext(config, studies)
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
