"""Figure kinds refer to their drawing functions directly, and importing the kinds imports no
matplotlib."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from flocklab.figures import plotting
from flocklab.figures.kinds import KINDS
from flocklab.figures.kinds.analysis import AnalysisKind, SensitivityKind

DRAWN_BY_ONE_FUNCTION = [name for name, kind in KINDS.items()
                         if isinstance(kind, AnalysisKind | SensitivityKind)
                         and type(kind).draw in (AnalysisKind.draw, SensitivityKind.draw)]


@pytest.mark.parametrize("name", DRAWN_BY_ONE_FUNCTION)
def test_kind_names_an_existing_plotting_function(name):
    """The kind's ``plot`` imports one function of :mod:`flocklab.figures.plotting` by name
    (an import that fails if the function is renamed) and passes the title on."""
    kind = type(KINDS[name])
    assert kind.plot is not AnalysisKind.plot and kind.plot is not SensitivityKind.plot
    source = inspect.getsource(kind.plot)
    imported = source.split("from flocklab.figures.plotting import ")[1].split()[0]
    assert callable(getattr(plotting, imported))
    assert "title=title" in source


def test_importing_the_kinds_imports_no_matplotlib():
    code = "import sys, flocklab.figures.kinds; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
