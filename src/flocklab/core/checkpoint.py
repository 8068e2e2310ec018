"""Checkpoints of a running simulation, so a killed job resumes instead of starting over.

A checkpoint holds a model's whole state at a step (arrays in a NumPy ``.npz`` file) and a
*fingerprint* of the run (model, parameters, run controls). A checkpoint whose fingerprint
differs from the run's is ignored, so a changed parameter never resumes a stale state.
Files are written under a temporary name and renamed, so a job killed while writing
leaves the previous checkpoint intact. Because the Vicsek noise is a counter-based
function of (seed, step, particle), a resumed run produces exactly the file an
uninterrupted run would.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from flocklab.core.io import atomic_output

log = logging.getLogger(__name__)


def fingerprint(model: str, params: dict[str, Any], control: dict[str, Any]) -> str:
    """SHA-256 of the run's identity (model, parameters, run controls)."""
    text = json.dumps({"model": model, "params": params, "control": control}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def run_fingerprint(model: str, params: dict[str, Any], control: dict[str, Any]) -> str:
    """The identity of a run: :func:`fingerprint` of its model, resolved parameters and run
    controls (seed included; normalised through :class:`~flocklab.core.time.RunControl`, so
    omitted defaults count as given). Written into every run file as the attribute
    ``run_fingerprint``."""
    from flocklab.core.time import RunControl

    return fingerprint(model, dict(params), RunControl(**control).as_attrs())


@dataclass(frozen=True)
class Checkpoint:
    """Where and how often a simulation saves its state.

    Parameters
    ----------
    path : path
        The checkpoint file (``.npz``).
    every : int
        Steps between checkpoints (>= 1).
    identity : str
        The run's :func:`fingerprint`.
    """

    path: Path
    every: int
    identity: str

    def next_step(self, step: int) -> int:
        """The first checkpoint step after ``step``."""
        return (step // self.every + 1) * self.every

    def save(self, step: int, arrays: dict[str, np.ndarray]) -> None:
        """Write the state at ``step`` atomically."""
        with atomic_output(self.path) as temporary, open(temporary, "wb") as stream:
            np.savez(stream, step=np.int64(step), identity=np.str_(self.identity), **arrays)
        log.info("checkpoint at step %d: %s", step, self.path)

    def load(self) -> tuple[int, dict[str, np.ndarray]] | None:
        """``(step, arrays)`` of a matching checkpoint, or None (none, unreadable, other run)."""
        if not self.path.exists():
            return None
        try:
            with np.load(self.path) as data:
                if str(data["identity"]) != self.identity:
                    log.warning("ignoring checkpoint %s: it belongs to another run", self.path)
                    return None
                arrays = {name: data[name] for name in data.files
                          if name not in ("step", "identity")}
                step = int(data["step"])
        except (OSError, ValueError, KeyError) as error:
            log.warning("ignoring unreadable checkpoint %s: %s", self.path, error)
            return None
        log.info("resuming from checkpoint at step %d: %s", step, self.path)
        return step, arrays

    def remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def checkpoint_path(out: str | os.PathLike) -> Path:
    """Default checkpoint file of a run written to ``out``: a hidden file beside it."""
    out = Path(out)
    return out.with_name(f".{out.name}.checkpoint.npz")
