"""Saving a live run: its parameters as a study for a config, and the run as a run file.

The study entry is checked against the config schema and the model before it is written;
the run file is the run of the current parameters from ``t = 0`` with the live run's seed,
simulated and written by the pipeline's own stage
(:func:`flocklab.stages.simulate.run_simulation`: the driver, the usual attributes and
provenance, the atomic writer). Where no parameter changed during the live run, that file
holds exactly what was shown (same kernels, same seed, chunking does not change results).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flocklab.core.io import write_text

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.explore.live import LiveRun


def study_name(live: LiveRun) -> str:
    """``explore_<model>_<time>``: a name the schema accepts for the saved study."""
    return re.sub(r"[^A-Za-z0-9_]", "_", f"explore_{live.model.name}_{live.step}")


def study_entry(live: LiveRun) -> dict[str, Any]:
    """The live run's parameters and length as one study of a config (one run, no sweep)."""
    model = live.model
    defaults = {spec.name: spec.default for spec in model.parameters}
    params = {name: value for name, value in live.params.items() if defaults[name] != value}
    control = live.control()
    entry: dict[str, Any] = {
        "model": model.name,
        "description": f"saved from flocklab explore at {live.time_text()}",
        "params": params,
        "replicates": 1,
    }
    if model.time_mode == "steps":
        entry["steps"] = control.steps
    else:
        entry["t_end"] = float(control.steps * live.dt)
        entry["dt"] = live.dt
    entry["record_every"] = control.record_every
    entry["snapshots"] = {"every": control.snapshot_every}
    return entry


def snippet(live: LiveRun) -> str:
    """The study as a YAML config (``studies: {name: entry}``), checked against the schema
    and the model, with comments on how to reproduce the run file."""
    import yaml

    from flocklab.pipeline import validate_config

    name = study_name(live)
    document = {"studies": {name: study_entry(live)}}
    validate_config(yaml.safe_load(yaml.safe_dump(document)))
    header = (f"# Saved by flocklab explore ({live.model.name}, {live.time_text()}, seed "
              f"{live.seed}).\n# The pipeline derives its own seeds from base_seed; the run "
              f"file saved beside this one\n# used seed {live.seed}.\n")
    if live.changes:
        header += ("# Parameters were changed during the live run; the run file is the run "
                   "of these\n# parameters from t = 0.\n")
    return header + yaml.safe_dump(document, sort_keys=False, default_flow_style=None)


def save(live: LiveRun, directory: str | Path) -> tuple[Path, Path]:
    """Write ``<name>.yaml`` (:func:`snippet`) and ``<name>.nc`` (the run so far) into
    ``directory``; returns both paths.

    Raises
    ------
    flocklab.core.parameters.ConfigError
        If the study entry does not validate (nothing is written).
    """
    from flocklab.stages.simulate import run_simulation

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    name = study_name(live)
    text = snippet(live)
    run_file = directory / f"{name}.nc"
    run_simulation(live.model.name, live.params, live.control(), run_file, threads=1,
                   extra_attrs={"source": "flocklab explore"}, progress=False)
    config = write_text(text, directory / f"{name}.yaml")
    return config, run_file
