"""Light entry point of a pipeline simulate job: ``python -m flocklab.job SPEC``.

``SPEC`` is one JSON object (``model``, ``params``, ``control``, ``attrs``, ``threads``,
``checkpoint_every``, ``out``, ``log``), written by the workflow's ``simulate`` rule. Running
the stage this way rather than through Snakemake's ``script:`` directive saves the import of
Snakemake itself in each of thousands of jobs (≈ 0.15 s); the job imports numpy, the model's
kernels and netCDF4, nothing else.

With ``FLOCKLAB_JOB_SERVER=1`` in the environment (the workflow sets it from the config key
``job_server``) the job is handed to a warm fork server (:mod:`flocklab.jobserver`) and this
process only waits for it: it then imports nothing but the standard library. Where no server
can be used or reached, the job runs here, and its log says why.
"""

from __future__ import annotations

import json
import sys


def run_spec(spec: dict) -> None:
    """Run one simulate job described by ``spec`` in this process."""
    from flocklab.core.logs import log_to
    from flocklab.stages.simulate import run_simulation

    with log_to(spec.get("log")):
        run_simulation(spec["model"], spec["params"], spec["control"], spec["out"],
                       threads=spec.get("threads"), extra_attrs=spec.get("attrs"),
                       progress=False, checkpoint_every=spec.get("checkpoint_every", 0))


def main(argv: list[str] | None = None) -> int:
    spec = json.loads((argv if argv is not None else sys.argv[1:])[0])
    from flocklab import jobserver

    if jobserver.requested():
        reason = jobserver.usable()
        if reason is None:
            try:
                return jobserver.submit(spec)
            except ConnectionError as error:
                reason = str(error)
        sys.stderr.write(f"flocklab job: running in this process: {reason}\n")
    run_spec(spec)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
