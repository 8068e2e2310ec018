"""Sensitivity designs generated once per specification (flocklab.config.design_cache)."""

from __future__ import annotations

import pytest


def test_a_design_is_sampled_once_per_specification(tmp_path, monkeypatch):
    from flocklab.analysis.sensitivity import Factor
    from flocklab.config import design_cache
    from flocklab.config.design import DesignSpec

    monkeypatch.setattr(design_cache, "CACHE", tmp_path / "designs")
    spec = DesignSpec("sobol", (Factor("eta", 0.1, 6.0), Factor("r", 0.5, 1.5)), {}, 8, 4, 3)
    first = spec.generate()
    monkeypatch.setattr(DesignSpec, "_sample", lambda self: pytest.fail("sampled again"))
    second = spec.generate()
    assert first.values.shape == (8 * 4, 2)
    for name in ("values", "oat_factor", "oat_level"):
        assert (getattr(first, name) == getattr(second, name)).all()
    other = DesignSpec("sobol", spec.factors, {}, 8, 4, 4)  # another seed: a new design
    monkeypatch.undo()
    monkeypatch.setattr(design_cache, "CACHE", tmp_path / "designs")
    assert not (other.generate().values == first.values).all()
