"""Stage *simulate*: one run of a model → ``results/<study>/runs/<point>/rep<k>.nc``.

Output fields (Vicsek; every model provides at least ``order_parameter`` and the attribute ``N``):

=================  =================  ======  ==========================================
variable           dimensions         units   meaning
=================  =================  ======  ==========================================
order_parameter    time               1       v_a(t) = abs(sum_i e(theta_i)) / N, t = 0..steps
x, y               frame, particle    length  snapshot positions (frame 0 = initial state)
theta              frame, particle    rad     snapshot headings
=================  =================  ======  ==========================================

Attributes: every model parameter (and all of them as JSON in ``parameters``),
the run controls (``steps``, ``seed``, ``snapshot_every``, ``snapshot_start``),
derived quantities (``density``), ``study``, ``point``, ``replicate`` when run by the
pipeline, ``flocklab_version`` and ``git_commit``.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flocklab.checkpoint import Checkpoint, checkpoint_path, fingerprint
from flocklab.io import write_netcdf
from flocklab.models import RunControl, get_model
from flocklab.provenance import netcdf_attrs
from flocklab.threads import set_threads

log = logging.getLogger(__name__)


def run_simulation(model: str, params: Mapping[str, Any], control: Mapping[str, int] | RunControl,
                   out: str | os.PathLike, *, threads: int | None = None,
                   extra_attrs: Mapping[str, Any] | None = None,
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
        Steps, seed, snapshot schedule.
    out : path
        Output netCDF file.
    threads : int, optional
        numba threads (results do not depend on it).
    extra_attrs : mapping, optional
        Added to the file's attributes (study, point, replicate).
    progress : bool or None
        Progress bar (``None``: only on a terminal).
    checkpoint_every : int
        Save the state every this many steps (0: never) to ``checkpoint_file`` (default: a
        hidden file beside ``out``), and resume from it if it exists and belongs to this
        run. It is removed once ``out`` is written.
    """
    if not isinstance(control, RunControl):
        control = RunControl(**control)
    used = set_threads(threads)
    log.info("simulating %s %s with %s on %d thread(s)", model, dict(params), control, used)
    started = time.perf_counter()
    checkpoint = None
    if checkpoint_every:
        resolved = get_model(model).resolve(params)
        checkpoint = Checkpoint(Path(checkpoint_file or checkpoint_path(out)), checkpoint_every,
                                fingerprint(model, resolved, control.as_attrs()))
    ds = get_model(model).simulate(params, control, progress=progress, checkpoint=checkpoint)
    elapsed = time.perf_counter() - started
    ds.attrs.update(netcdf_attrs(extra_attrs or {}))
    write_netcdf(ds, out)
    if checkpoint is not None:
        checkpoint.remove()
    updates = ds.attrs["N"] * control.steps
    log.info("wrote %s: %d steps in %.2f s (%.3g particle-updates/s)", out, control.steps,
             elapsed, updates / max(elapsed, 1e-12))
