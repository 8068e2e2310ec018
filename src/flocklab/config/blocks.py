r"""Simulation jobs sized to their work: the runs of a study still to do, in blocks.

A simulate job starts a Python process, imports numpy, numba and netCDF4 and loads the
compiled kernels: about a second before any physics. So a job runs a *block* of runs in one
process, sized so that this start-up is small against the block's physics.

Which runs need a job is decided here, once per workflow parse: a run whose file exists and
carries the fingerprint of its current identity (model, resolved parameters, run controls,
seed; :func:`run_fingerprint`) is done and is an input, not a job. Only the others are
grouped, in the study's run order (points, then replicates), into chunks of at most
:attr:`Block.size` consecutive run *positions*; a chunk's block holds the pending runs among
its positions. Consequently

* adding a point makes a block of that point's runs only (the other runs are done);
* a grown sensitivity design makes blocks of its new rows only;
* a changed parameter, seed or run length makes every affected run pending again;
* thread counts, ``--cores``, ``burn_in`` and analysis options never make a run pending;
* a block's membership does not depend on which other blocks have finished, so a workflow
  that is parsed again inside a cluster job sees the same block.

The fingerprints of existing files are cached (path, size, modification time) in
``.snakemake/flocklab/run_fingerprints.json`` so that a parse reads each file once.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flocklab.core.checkpoint import fingerprint

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.config.study import Study

#: Estimated physics per block (s) unless the config says otherwise (``job_seconds``): about
#: 20 times the start-up of a job.
TARGET_SECONDS = 20.0
#: Most runs in one block (keeps the job's argument and its memory bounded).
MAX_RUNS = 64
#: Where the fingerprints of existing run files are cached (relative to the work directory).
CACHE = Path(".snakemake") / "flocklab" / "run_fingerprints.json"


def run_fingerprint(model: str, params: Mapping[str, Any], control: Mapping[str, Any]) -> str:
    """The identity of a run: :func:`flocklab.core.checkpoint.fingerprint` of its model,
    resolved parameters and run controls (seed included; normalised through
    :class:`~flocklab.core.time.RunControl`, so omitted defaults count as given). Written
    into every run file as the attribute ``run_fingerprint``."""
    from flocklab.core.time import RunControl

    return fingerprint(model, dict(params), RunControl(**control).as_attrs())


@dataclass(frozen=True)
class Run:
    """One run of a study: where it goes and what it is."""

    label: str
    replicate: int
    path: str
    params: dict[str, Any]
    control: dict[str, Any]
    fingerprint: str
    seconds: float
    memory_bytes: int


@dataclass(frozen=True)
class Block:
    """Pending runs of one study that one job runs, in order.

    Attributes
    ----------
    study : str
        Study name.
    index : int
        Chunk number within the study (stable: chunk ``j`` covers run positions
        ``j * size ... (j + 1) * size - 1``).
    runs : tuple of Run
        The pending runs of the chunk.
    """

    study: str
    index: int
    runs: tuple[Run, ...] = field(repr=False)

    @property
    def name(self) -> str:
        """Snakemake rule name of the block's job."""
        return f"simulate_{_identifier(self.study)}_{self.index}"

    @property
    def outputs(self) -> list[str]:
        return [run.path for run in self.runs]

    @property
    def seconds(self) -> float:
        """Estimated physics of the block (s)."""
        return sum(run.seconds for run in self.runs)

    @property
    def memory_bytes(self) -> int:
        """Memory of the largest run (runs follow one another)."""
        return max(run.memory_bytes for run in self.runs)


def block_size(seconds: Sequence[float], target: float = TARGET_SECONDS) -> int:
    """Runs per chunk for runs of these estimated lengths (s): enough that a chunk of
    median runs holds about ``target`` seconds of physics, at least 1, at most
    :data:`MAX_RUNS`."""
    if not seconds:
        return 1
    typical = sorted(seconds)[len(seconds) // 2]
    return int(min(MAX_RUNS, max(1, math.ceil(target / max(typical, 1e-3)))))


def pending_blocks(study: str, runs: Sequence[Run], done: Mapping[str, str],
                   target: float = TARGET_SECONDS) -> list[Block]:
    """The blocks of the runs whose fingerprint is not among ``done`` (fingerprints of the
    existing files, by path), chunked by run position (see the module docstring) into about
    ``target`` seconds of estimated physics each."""
    size = block_size([run.seconds for run in runs], target)
    chunks: dict[int, list[Run]] = {}
    for position, run in enumerate(runs):
        if done.get(run.path) != run.fingerprint:
            chunks.setdefault(position // size, []).append(run)
    return [Block(study, index, tuple(members)) for index, members in sorted(chunks.items())]


def study_runs(study: Study, run_path: Callable[[str, str, int], str]) -> list[Run]:
    """Every run of ``study`` in order (points, then replicates), with its identity and the
    model's estimate of its cost; ``run_path(study, label, replicate)`` names its file."""
    from flocklab.core.registry import get_model

    model = get_model(study.model)
    runs = []
    for point in study.points():
        params = study.params(point)
        need = model.resources(params, study.grid(point))
        for replicate in range(study.replicates):
            control = study.control(point, replicate).as_attrs()
            runs.append(Run(point.label, replicate, run_path(study.name, point.label, replicate),
                            params, control, run_fingerprint(model.name, params, control),
                            need.seconds, need.memory_bytes))
    return runs


def block_spec(block: Block, model: str, checkpoint_every: int) -> dict[str, Any]:
    """The job's whole input as one JSON-ready document: the parameters and controls shared
    by the block's runs once, and per run only what differs."""
    base_params, base_control = block.runs[0].params, block.runs[0].control
    runs = []
    for run in block.runs:
        runs.append({
            "out": run.path,
            "params": {k: v for k, v in run.params.items() if base_params.get(k) != v},
            "control": {k: v for k, v in run.control.items() if base_control.get(k) != v},
            "attrs": {"study": block.study, "point": run.label, "replicate": run.replicate},
        })
    return {"model": model, "params": base_params, "control": base_control, "runs": runs,
            "checkpoint_every": checkpoint_every}


def existing_fingerprints(paths: Iterable[str], cache: Path = CACHE) -> dict[str, str]:
    """``path -> run_fingerprint`` of the run files that exist (unreadable ones left out),
    through the cache of (size, modification time)."""
    stored = _read_cache(cache)
    found: dict[str, str] = {}
    changed = False
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            continue
        key = [stat.st_size, stat.st_mtime_ns]
        entry = stored.get(path)
        if entry is not None and entry[:2] == key:
            found[path] = entry[2]
            continue
        value = _file_fingerprint(path)
        if value is not None:
            found[path] = value
            stored[path] = [*key, value]
            changed = True
    if changed:
        _write_cache(cache, stored)
    return found


def _file_fingerprint(path: str) -> str | None:
    import netCDF4

    try:
        with netCDF4.Dataset(path) as nc:
            return str(nc.getncattr("run_fingerprint"))
    except (OSError, AttributeError, RuntimeError):
        return None


def _read_cache(cache: Path) -> dict[str, list]:
    try:
        with open(cache, encoding="utf-8") as stream:
            data = json.load(stream)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(cache: Path, data: Mapping[str, list]) -> None:
    """Best effort: a cache that cannot be written only costs the next parse time."""
    from flocklab.core.io import write_text

    with contextlib.suppress(OSError):
        write_text(json.dumps(data, sort_keys=True), cache)


def _identifier(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)
