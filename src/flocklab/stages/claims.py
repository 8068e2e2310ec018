"""Stage *claims*: every claim a model's studies and tasks tested, with its verdict, in one
table per model → ``results/claims/<model>.csv``.

Claims come from two places: the ``claims`` of one-at-a-time sensitivity studies
(``results/<study>/sensitivity.json``, :func:`flocklab.analysis.sensitivity.evaluate_claims`)
and the ``verdicts`` a task returns (``results/tasks/<task>/result.json``). The table has one
row per claim: where it was tested, the claim, the verdict (holds, fails, inconclusive) and
the evidence. I/O only.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from flocklab.core.io import write_text

COLUMNS = ("tested in", "claim", "verdict", "evidence")


def claim_rows(source: str, document: Mapping[str, Any]) -> list[dict[str, str]]:
    """The claims of one study's ``sensitivity.json`` (``claims``) or one task's document
    (``result.verdicts``), as table rows headed :data:`COLUMNS`."""
    found = document.get("claims") or document.get("result", {}).get("verdicts") or []
    return [{"tested in": source, "claim": entry["claim"], "verdict": entry["verdict"],
             "evidence": entry.get("evidence", "")} for entry in found]


def write_claims_table(sources: Sequence[tuple[str, str | os.PathLike]],
                       out: str | os.PathLike) -> int:
    """Write the claims of ``sources`` (``(heading, JSON path)`` pairs) as one CSV table.

    Returns
    -------
    int
        The number of claims written (a table with only its header when none).
    """
    rows: list[dict[str, str]] = []
    for heading, path in sources:
        with open(path, encoding="utf-8") as stream:
            rows += claim_rows(heading, json.load(stream))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_text(buffer.getvalue(), out)
    return len(rows)
