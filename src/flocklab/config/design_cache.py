"""Sensitivity designs generated once per specification and kept beside the workflow state.

Planning the jobs of a sensitivity study needs its design rows, and generating them imports
SALib (and through it pandas and scipy.stats: about half a second) every time the workflow
is parsed. A design is a pure function of its specification (method, factors, baseline,
samples, levels, seed) and of the SALib version, so it is stored under that key in
``.snakemake/flocklab/designs/<sha256>.npz`` the first time and read back afterwards.
A missing, unreadable or foreign file is simply generated again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from flocklab.analysis.sensitivity import Design, Factor

#: Where designs are kept (relative to the work directory).
CACHE = Path(".snakemake") / "flocklab" / "designs"


def design_key(method: str, factors: tuple[Factor, ...], baseline: dict[str, float],
               samples: int, levels: int, seed: int) -> str:
    """SHA-256 of a design's specification and the installed SALib's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        salib = version("SALib")
    except PackageNotFoundError:  # pragma: no cover
        salib = "unknown"
    text = json.dumps({"method": method, "factors": [dataclasses.asdict(f) for f in factors],
                       "baseline": baseline, "samples": samples, "levels": levels,
                       "seed": seed, "salib": salib}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached_design(key: str, factors: tuple[Factor, ...], method: str,
                  generate: Callable[[], Design], cache: Path | None = None) -> Design:
    """The design stored under ``key`` in ``cache`` (default :data:`CACHE`), or
    ``generate()`` stored there (best effort)."""
    path = (CACHE if cache is None else cache) / f"{key}.npz"
    with contextlib.suppress(OSError, ValueError, KeyError), np.load(path) as stored:
        return Design(method, factors, stored["values"], stored["oat_factor"],
                      stored["oat_level"])
    design = generate()
    _store(path, design)
    return design


def _store(path: Path, design: Design) -> None:
    from flocklab.core.io import atomic_output

    with contextlib.suppress(OSError), atomic_output(path, suffix=".npz") as temporary:
        arrays: dict[str, Any] = {"values": design.values, "oat_factor": design.oat_factor,
                                  "oat_level": design.oat_level}
        np.savez(temporary, **arrays)
