"""Stage *simulate*: runs of a model → ``results/<study>/runs/<point>/rep<k>.nc``.

:func:`run_simulation` writes one run file; :func:`run_point` runs a pipeline job: the
replicates of one parameter point one after another in this process
(:mod:`flocklab.pipeline.jobs`), so the process's start-up is paid once per point.
``python -m flocklab.stages.simulate SPEC [THREADS]`` is the job's command (``SPEC``: the
job as one JSON document).

The file layout is the same for every model (:mod:`flocklab.core.record`): each declared
observable on ``time``, each snapshot variable on (``frame``, entity), run-level extra
outputs, and attributes with every parameter (and all as JSON in ``parameters``), the run
controls, ``dt``, ``time_units``, derived quantities, ``study``, ``point`` and
``replicate`` (pipeline), ``flocklab_version`` and ``git_commit``.

This path imports neither xarray nor pandas: a pipeline job pays only for numpy, the
model's kernel and netCDF4.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flocklab.core.registry import get_model
from flocklab.core.time import RunControl

log = logging.getLogger("flocklab.stages.simulate")  # also when run as __main__


def run_simulation(model: str, params: Mapping[str, Any],
                   control: Mapping[str, Any] | RunControl, out: str | os.PathLike, *,
                   threads: int | None = None, extra_attrs: Mapping[str, Any] | None = None,
                   progress: bool | None = None, checkpoint_every: int = 0,
                   checkpoint_file: str | os.PathLike | None = None) -> None:
    """Simulate and write the run file atomically.

    Parameters
    ----------
    model : str
        Registered model name.
    params : mapping
        Model parameters.
    control : RunControl or mapping with its fields
        Seed, run length and recording schedule (model time units).
    out : path
        Output netCDF file.
    threads : int, optional
        Threads of the model's kernels (results do not depend on it); models without
        parallel kernels ignore it.
    extra_attrs : mapping, optional
        Added to the file's attributes (study, point, replicate).
    progress : bool or None
        Progress bar (``None``: only on a terminal).
    checkpoint_every : int
        Save the state every this many steps (0: never) to ``checkpoint_file`` (default: a
        hidden file beside ``out``), and resume from it if it exists and belongs to this
        run. It is removed once ``out`` is written.
    """
    from flocklab.core.driver import prepare, run

    if not isinstance(control, RunControl):
        control = RunControl(**control)
    instance = get_model(model)
    prepared = prepare(instance, params, control)  # the run's one parameter resolution
    previous = _set_threads(None)
    used = _set_threads(threads)
    log.info("simulating %s %s with %s on %s thread(s)", model, dict(params), control, used)
    started = time.perf_counter()
    from flocklab.core.checkpoint import Checkpoint, checkpoint_path, run_fingerprint

    identity = run_fingerprint(model, prepared.public, control.as_attrs())
    checkpoint = (Checkpoint(Path(checkpoint_file or checkpoint_path(out)), checkpoint_every,
                             identity) if checkpoint_every else None)
    try:
        record = run(instance, prepared, control, progress=progress, checkpoint=checkpoint)
    finally:
        if isinstance(previous, int):
            _set_threads(previous)  # leave the caller's thread count as it was
    elapsed = time.perf_counter() - started
    record.write(out, {**(extra_attrs or {}), "run_fingerprint": identity})
    if checkpoint is not None:
        checkpoint.remove()
    updates = record.entities * record.grid.steps
    log.info("wrote %s: %d steps in %.3f s, time loop %.3f s (%.3g entity-updates/s)", out,
             record.grid.steps, elapsed, record.loop_seconds,
             updates / max(record.loop_seconds, 1e-12))


def _set_threads(threads: int | None) -> int | str:
    """Set the numba thread count if numba is in use (it is imported by the model's kernels,
    so a model without numba never pays for importing it here); ``None`` only reports it."""
    import sys

    if "numba" not in sys.modules:
        return "default"
    from flocklab.core.threads import set_threads

    return set_threads(threads)


def run_point(spec: Mapping[str, Any], threads: int | None = None,
              checkpoint_every: int = 0) -> None:
    """Run the replicates of one parameter point (:func:`flocklab.pipeline.jobs.point_spec`)
    in order.

    Each file is written atomically as soon as its run ends; a run saves its state beside
    its file every ``checkpoint_every`` steps (0: never) and resumes from it after an
    interruption.
    """
    params = spec["params"]
    started = time.perf_counter()
    for replicate, run in enumerate(spec["runs"]):
        log.info("run %d of %d: %s", replicate + 1, len(spec["runs"]), run["out"])
        run_simulation(spec["model"], params, run["control"], run["out"], threads=threads,
                       extra_attrs={"study": spec["study"], "point": spec["point"],
                                    "replicate": replicate}, progress=False,
                       checkpoint_every=checkpoint_every)
    log.info("point of %d runs in %.3f s", len(spec["runs"]), time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    """``python -m flocklab.stages.simulate SPEC [THREADS [CHECKPOINT_EVERY]]``: run a point
    (the job entry)."""
    import json
    import sys

    args = sys.argv[1:] if argv is None else argv
    threads = int(args[1]) if len(args) > 1 else None
    if threads is not None and "numba" not in sys.modules:
        # numba is imported later, by the model's kernels: tell it now how many threads the
        # job has, or it starts one per core and the parallel kernels of jobs running side
        # by side spin against each other (set_threads alone cannot act before the import).
        os.environ["NUMBA_NUM_THREADS"] = str(threads)
    handler = logging.StreamHandler(sys.stderr)  # the rule sends stderr to the job's log
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("flocklab")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    run_point(json.loads(args[0]), threads=threads,
              checkpoint_every=int(args[2]) if len(args) > 2 else 0)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
