"""The import graph keeps its layers: no model imports another model, and the lower layers
(core, geometry, analysis, then config, then figures) import nothing above them, so config
and figures do not import each other both ways. Walks every module's imports (deferred ones
inside functions too, and those for type checking only) with :mod:`ast`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "flocklab"
#: What each lower layer may import from the package besides itself.
ALLOWED = {
    "core": {"references"},
    "geometry": {"core"},
    "analysis": {"core"},
    "config": {"core", "analysis"},
    "figures": {"core", "analysis", "config", "references"},
    "pipeline": {"core", "analysis", "config", "figures"},
}


def imports(path: Path) -> set[str]:
    """The ``flocklab.*`` modules ``path`` imports, absolute imports only."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name for name in names if name.startswith("flocklab.")}


def modules(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("model", sorted(p.name for p in (PACKAGE / "models").iterdir()
                                         if (p / "__init__.py").is_file()))
def test_no_model_imports_another(model):
    for path in modules(f"models/{model}"):
        others = {name for name in imports(path) if name.startswith("flocklab.models.")
                  and name.split(".")[2] != model}
        assert not others, f"{path.relative_to(PACKAGE)} imports {sorted(others)}"


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_lower_layers_import_nothing_above_them(layer):
    for path in modules(layer):
        where = path.relative_to(PACKAGE).as_posix()
        above = {name.split(".")[1] for name in imports(path)} - {layer} - ALLOWED[layer]
        assert not above, f"{where} imports the layer(s) {sorted(above)}"


def test_the_walk_sees_a_model_importing_another(tmp_path):
    """The check can fail: a module importing another model is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from flocklab.models.zonal import metrics\n")
    assert imports(bad) == {"flocklab.models.zonal"}
