"""Light entry point of a pipeline simulate job: ``python -m flocklab.job SPEC``.

``SPEC`` is one JSON object (``model``, ``params``, ``control``, ``attrs``, ``threads``,
``checkpoint_every``, ``out``, ``log``), written by the workflow's ``simulate`` rule. Running
the stage this way rather than through Snakemake's ``script:`` directive saves the import of
Snakemake itself in each of thousands of jobs (≈ 0.15 s); the job imports numpy, the model's
kernels and netCDF4, nothing else.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str] | None = None) -> int:
    spec = json.loads((argv if argv is not None else sys.argv[1:])[0])
    from flocklab.logs import log_to
    from flocklab.stages.simulate import run_simulation

    with log_to(spec.get("log")):
        run_simulation(spec["model"], spec["params"], spec["control"], spec["out"],
                       threads=spec.get("threads"), extra_attrs=spec.get("attrs"),
                       progress=False, checkpoint_every=spec.get("checkpoint_every", 0))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
