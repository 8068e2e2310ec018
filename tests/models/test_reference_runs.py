"""Reference outputs of the pre-refactor flocklab (commit 48d463d), reproduced exactly.

``DATA_DIR`` holds ``cases.json`` and the reference files written by ``make_reference.py``
with the code as it was before the module layout changed. Each case is run again with
whatever ``flocklab`` is importable and compared:

* run cases (``flocklab.simulate``): every data variable and coordinate of the reference is
  present (with the same role: coordinate or data variable), with identical dtype, dims, shape
  and values (NaN equal to NaN), and the ``parameters`` global attribute (JSON of the
  resolved parameters) parses to the same document. Other attributes (units, long names,
  provenance, reference text) are *not* compared; new variables are allowed.
* task cases (the *task* stage, through the adapter :func:`run_task`): the ``result``
  document is equal key for key and value for value (floats exactly, ``int`` vs ``float`` vs
  ``bool`` distinguished, NaN equal to NaN), except the machine-dependent fields in
  :data:`MACHINE_DEPENDENT` (present, but not compared) and the prose of claim verdicts
  (:data:`CLAIM_TEXT` not compared, :data:`EVIDENCE_TEXT` compared by the numbers it
  quotes); the table files written into the task's directory are the same files with
  the same bytes (tables with timing columns: the same cells outside those columns).

The reference ``result.json`` files were written with ``json.dumps(..., allow_nan=True)``,
so NaN and infinities appear as the tokens ``NaN`` / ``Infinity`` (Python's json reads them).

Matrix products go through NumPy's bundled OpenBLAS, whose blocking, chosen for the CPU at
load time, fixes the order of the sums and so the last bit of every product. The references
were written with the kernels OpenBLAS selects under ``OPENBLAS_CORETYPE=SkylakeX``; a
process started without that setting (on an AMD EPYC with AVX-512, say) differs from them in
the last digit (relative 1e-16, amplified to a different step count where a run sits on a
stability threshold). The comparisons therefore run in a child process with that setting
(:func:`test_references_under_reference_blas`); on a CPU without AVX-512, which cannot run
those kernels, they are skipped, saying so.
"""

from __future__ import annotations

import copy
import csv
import fnmatch
import hashlib
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

#: Reference data: cases.json, runs/*.nc, tasks/<case>/{result.json, tables.json, tables}.
DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "reference"

#: Task cases too slow for the default run (seconds on 2 idle cores at 48d463d).
SLOW_TASKS = {
    "dragon_chain_min_pitch": 10.0,  # Q3, contest options: pitch grid + bisection, all pairs
}

#: Fields of task results that are timings or otherwise depend on the machine and its load:
#: present in both documents, values not compared. Paths are keys joined by "/", matched
#: with fnmatch ("*" any key or list index, "[234]" one of those indices).
MACHINE_DEPENDENT: dict[str, tuple[str, ...]] = {
    "dragon_agents_solvers": (
        # compare_solvers times every solve: time.process_time / time.perf_counter
        "rows/*/cpu_s",
        "rows/*/wall_s",
        # growth exponents fitted to those CPU times (log cpu_s against log k_penalty)
        "exponents/cpu_s",
        # "Radau / BDF / LSODA cope better than RK45": verdicts decided by the CPU-time ratio,
        # evidence quoting the CPU times. With methods [RK45, DOP853, Radau, BDF, LSODA] the
        # verdicts are: 0, 1 the explicit methods' step counts (deterministic, compared),
        # 2, 3, 4 the implicit methods against RK45 (timing-based, not compared).
        "verdicts/[234]/verdict",
        "verdicts/[234]/evidence",
    ),
    "springs_cloth_cost": (
        # median wall seconds per simulated second (flocklab.springs.run.integrate's
        # perf_counter wall_time)
        "runs/*/cost_s_per_s",
        # "implicit faster than explicit": decided by those wall times, evidence quotes them
        # (the claim text itself and each run's 'stable' flag are compared)
        "verdicts/*/verdict",
        "verdicts/*/evidence",
    ),
}

#: Prose fields of task results whose wording was rewritten for readers (display names and
#: symbols instead of code names and article file numbers): a claim's text is not compared;
#: an evidence line is compared by the numbers it quotes, in order.
CLAIM_TEXT = ("verdicts/*/claim",)
#: Keys added to task results after the references were written (present only in the fresh
#: document): the states of the stability limits, since strict JSON writes inf and NaN alike
#: as null (tested in tests/models/springs).
ADDED_KEYS = ("table/*/dt_measured_state", "table/*/dt_theory_state",
              # every verdict's test, runs, effect, interval and p (flocklab.analysis.verdicts)
              *(f"verdicts/*/{key}" for key in ("test", "n", "effect", "low", "high", "p",
                                                "detectable")))
EVIDENCE_TEXT = ("verdicts/*/evidence",)
#: Model parameters declared after the references were written, with the value that keeps
#: the old behaviour: a fresh run's ``parameters`` holds them at exactly that value.
ADDED_PARAMETERS: dict[str, dict[str, Any]] = {
    # the neighbour rule (metric: all within r, the only rule before) and the knn rule's k
    "vicsek": {"neighbours": "metric", "k": 7},
}
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def quoted_numbers(text: str) -> list[str]:
    """The numbers a prose line quotes, in order (``"dt 0.03 s (theory 0.04)"`` ->
    ``["0.03", "0.04"]``)."""
    return _NUMBER.findall(text)


#: Table columns that are timings, per (task case, table file): not compared.
TIMING_COLUMNS: dict[tuple[str, str], tuple[str, ...]] = {
    ("dragon_agents_solvers", "solvers.csv"): ("cpu_s", "wall_s"),  # as rows/*/cpu_s, wall_s
    ("springs_cloth_cost", "cloth_cost.csv"): ("cost_s_per_s",),    # as runs/*/cost_s_per_s
}


#: The OpenBLAS kernels the references were written with (see the module docstring).
REFERENCE_BLAS = "SkylakeX"
#: The AVX-512 subsets those kernels use (/proc/cpuinfo flag names).
REFERENCE_BLAS_FLAGS = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}
UNDER_REFERENCE_BLAS = os.environ.get("OPENBLAS_CORETYPE") == REFERENCE_BLAS
needs_reference_blas = pytest.mark.skipif(
    not UNDER_REFERENCE_BLAS,
    reason=f"compared in a child process with OPENBLAS_CORETYPE={REFERENCE_BLAS} "
           "(test_references_under_reference_blas)")


def cpu_flags() -> set[str]:
    """The CPU's feature flags as /proc/cpuinfo lists them (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return set()
    return next((set(line.split(":", 1)[1].split()) for line in text.splitlines()
                 if line.startswith("flags")), set())


# --------------------------------------------------------------------------- adapters
# The refactor is expected to change only these two functions (if anything).


def simulate(model: str, kwargs: dict[str, Any]):
    """One run as an :class:`xarray.Dataset` (``flocklab.simulate``)."""
    import flocklab

    return flocklab.simulate(model, **kwargs)


def run_task(model: str, task: str, params: dict[str, Any], options: dict[str, Any],
             out_dir: Path) -> dict[str, Any]:
    """Run task ``task`` of ``model`` and return the ``result`` part of its document; the
    task's table files must end up in ``out_dir`` (a file named ``result.json`` there — the
    stage's own document — is ignored)."""
    from flocklab.stages.tasks import run_task as stage_run_task

    entry = {"model": model, "task": task, "params": params, "options": options}
    document = stage_run_task(entry, Path(out_dir) / "result.json")
    return document["result"]


# --------------------------------------------------------------------------- cases


def _load_cases() -> list[dict[str, Any]]:
    return json.loads((DATA_DIR / "cases.json").read_text(encoding="utf-8"))["cases"]


CASES = _load_cases()
RUN_CASES = [case for case in CASES if case["kind"] == "run"]
TASK_CASES = [case for case in CASES if case["kind"] == "task"]


def _task_params(cases: list[dict[str, Any]], slow: bool) -> list[Any]:
    return [pytest.param(case, id=case["name"]) for case in cases
            if (case["name"] in SLOW_TASKS) == slow]


# --------------------------------------------------------------------------- comparison


def open_reference(path: Path):
    """A reference dataset, fully loaded (no time decoding; the files have no fill values)."""
    import xarray as xr

    with xr.open_dataset(path, engine="netcdf4", decode_times=False,
                         decode_timedelta=False) as ds:
        return ds.load()


def plain(value: Any) -> Any:
    """JSON types only: NumPy scalars/arrays and tuples converted, NaN/inf kept."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [plain(item) for item in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def as_json(value: Any) -> Any:
    """``value`` as its JSON reading (the form the reference was stored in)."""
    return json.loads(json.dumps(plain(value), allow_nan=True))


def differences(expected: Any, actual: Any, skip: tuple[str, ...] = (), path: str = ""
                ) -> list[str]:
    """Every difference between two JSON documents; values at paths matching ``skip`` are
    not compared (their keys must still be present)."""
    where = path or "<root>"
    if path and any(fnmatch.fnmatchcase(path, pattern) for pattern in (*skip, *CLAIM_TEXT)):
        return []
    if (path and isinstance(expected, str) and isinstance(actual, str)
            and any(fnmatch.fnmatchcase(path, pattern) for pattern in EVIDENCE_TEXT)):
        expected, actual = quoted_numbers(expected), quoted_numbers(actual)
        return [] if expected == actual else [f"{where}: numbers {actual}, expected {expected}"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {type(actual).__name__}"]
        out = [f"{where}: key {key!r} missing" for key in expected if key not in actual]
        out += [f"{where}: unexpected key {key!r}" for key in actual if key not in expected
                and not any(fnmatch.fnmatchcase(f"{path}/{key}" if path else key, pattern)
                            for pattern in ADDED_KEYS)]
        for key in expected:
            if key in actual:
                out += differences(expected[key], actual[key], skip,
                                   f"{path}/{key}" if path else str(key))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{where}: expected a list, got {type(actual).__name__}"]
        if len(expected) != len(actual):
            return [f"{where}: {len(actual)} items, expected {len(expected)}"]
        out = []
        for index, (a, b) in enumerate(zip(expected, actual, strict=True)):
            out += differences(a, b, skip, f"{path}/{index}" if path else str(index))
        return out
    if type(expected) is not type(actual):
        return [f"{where}: {actual!r} ({type(actual).__name__}), expected {expected!r} "
                f"({type(expected).__name__})"]
    if isinstance(expected, float) and math.isnan(expected) and math.isnan(actual):
        return []
    if expected != actual:
        return [f"{where}: {actual!r}, expected {expected!r}"]
    return []


def _csv_rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


def table_differences(case: str, name: str, entry: dict[str, Any], reference_dir: Path,
                      fresh: bytes) -> list[str]:
    """Differences between a table the task wrote now and the reference one."""
    ignored = TIMING_COLUMNS.get((case, name), ())
    assert set(entry["timing_columns"]) <= set(ignored), \
        f"{name}: timing columns {entry['timing_columns']} not declared in TIMING_COLUMNS"
    if not entry["stored"]:  # only the digest is kept (the full contest tables)
        if hashlib.sha256(fresh).hexdigest() == entry["sha256"]:
            return []
        return [f"{name}: SHA-256 differs from the reference ({entry['bytes']} bytes, now "
                f"{len(fresh)} bytes; only the digest is stored)"]
    stored = (reference_dir / name).read_bytes()
    out = [] if hashlib.sha256(stored).hexdigest() == entry["sha256"] else \
        [f"{name}: the stored reference copy does not match its digest in tables.json"]
    if not ignored:  # same bytes
        if fresh == stored:
            return out
        expected, actual = _csv_rows(stored), _csv_rows(fresh)
        rows = [f"{name}: {len(actual)} rows, expected {len(expected)}"] \
            if len(actual) != len(expected) else []
        rows += [f"{name}: row {number} is {b[:8]}..., expected {a[:8]}..."
                 for number, (a, b) in enumerate(zip(expected, actual, strict=False))
                 if a != b][:5]
        return [*out, *(rows or [f"{name}: bytes differ (line endings or encoding)"])]
    expected, actual = _csv_rows(stored), _csv_rows(fresh)
    if not actual or actual[0] != expected[0]:
        return [*out, f"{name}: header {actual[:1]}, expected {expected[0]}"]
    keep = [k for k, column in enumerate(expected[0]) if column not in ignored]
    if len(actual) != len(expected):
        return [*out, f"{name}: {len(actual)} rows, expected {len(expected)}"]
    return [*out, *(f"{name}: row {number}: {[b[k] for k in keep]}, expected "
                    f"{[a[k] for k in keep]}"
                    for number, (a, b) in enumerate(zip(expected, actual, strict=True))
                    if [a[k] for k in keep] != [b[k] for k in keep])]


# --------------------------------------------------------------------------- tests


def adapt_layout(reference: Any, fresh: Any) -> tuple[Any, Any]:
    """The three deliberate changes of the run-file layout since the references were written,
    applied so that everything else is still compared value for value:

    * zonal predator positions are a snapshot variable on (``frame``, ``predator``,
      ``axis``) instead of an extra output on (``predator_frame``, ...) with its own time
      coordinate (the frames and their times are the same; they now survive a checkpoint);
    * the heading of a captured zonal agent is frozen at its capture; before, it was left
      to whatever the kernel's scratch buffer held, so it is compared only while alive;
    * the zonal ``polarisation`` and ``milling`` were those of the largest group; they are
      now ``polarisation_largest`` and ``milling_largest``, and ``polarisation`` and
      ``milling`` are over all alive agents (new, so not compared here; tested against
      closed forms in ``tests/models/zonal``).
    """
    if "largest_fraction" in reference and "polarisation_largest" not in reference:
        reference = reference.rename({"polarisation": "polarisation_largest",
                                      "milling": "milling_largest"})
    if "predator_frame" in reference.dims:
        np.testing.assert_array_equal(reference["predator_frame_time"].values,
                                      fresh["frame"].values)
        reference = reference.drop_vars("predator_frame_time").rename(
            {"predator_frame": "frame"})
    if "alive" in reference and "ex" in reference:
        dead = reference["alive"] == 0
        reference, fresh = (ds.assign({name: ds[name].where(~dead) for name in
                                       ("ex", "ey", "ez")}) for ds in (reference, fresh))
    return reference, fresh


@pytest.mark.skipif(UNDER_REFERENCE_BLAS, reason="this process runs the reference kernels")
def test_references_under_reference_blas(request: pytest.FixtureRequest) -> None:
    """Run this module's comparisons in a child process under the reference kernels."""
    missing = REFERENCE_BLAS_FLAGS - cpu_flags()
    if missing:
        pytest.skip(f"the references need OpenBLAS's {REFERENCE_BLAS} kernels; this CPU lacks "
                    f"{', '.join(sorted(missing))}, so they cannot be reproduced bit for bit")
    markexpr = request.config.getoption("markexpr")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
               *(["-m", markexpr] if markexpr else []), __file__]
    child = subprocess.run(command, env={**os.environ, "OPENBLAS_CORETYPE": REFERENCE_BLAS},
                           cwd=Path(__file__).resolve().parents[2], capture_output=True,
                           text=True, check=False)
    assert child.returncode == 0, child.stdout[-30000:] + child.stderr[-5000:]
    summary = child.stdout.strip().splitlines()[-1]
    skipped = re.search(r"(\d+) skipped", summary)
    # Only this test itself is skipped in the child (it already runs the reference kernels).
    assert " passed" in summary and (skipped is None or skipped[1] == "1"), summary


@needs_reference_blas
@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in RUN_CASES])
def test_run_reproduces_reference(case: dict[str, Any]) -> None:
    reference = open_reference(DATA_DIR / case["file"])
    fresh = simulate(case["model"], copy.deepcopy(case["kwargs"]))
    reference, fresh = adapt_layout(reference, fresh)
    problems = []
    for name, expected in reference.variables.items():
        if name not in fresh.variables:
            problems.append(f"{name}: missing")
            continue
        actual = fresh.variables[name]
        if (name in reference.coords) != (name in fresh.coords):
            problems.append(f"{name}: coordinate in one dataset, data variable in the other")
        if actual.dtype != expected.dtype:
            problems.append(f"{name}: dtype {actual.dtype}, expected {expected.dtype}")
            continue
        if actual.dims != expected.dims:
            problems.append(f"{name}: dims {actual.dims}, expected {expected.dims}")
            continue
        try:
            np.testing.assert_array_equal(actual.values, expected.values, strict=True,
                                          err_msg=name)
        except AssertionError as error:
            problems.append(str(error).strip())
    parameters = json.loads(fresh.attrs["parameters"])
    for key, value in ADDED_PARAMETERS.get(case["model"], {}).items():
        if parameters.pop(key, value) != value:
            problems.append(f"parameters: added key {key!r} is not {value!r}")
    problems += [f"parameters: {line}" for line in differences(
        json.loads(reference.attrs["parameters"]), parameters)]
    assert not problems, f"{case['name']}:\n" + "\n".join(problems)


#: The contest tasks also write their tables as Excel workbooks (the same cells as the CSV
#: tables, which are compared here); the references predate them. The workbooks are checked
#: against the contest's templates by the dragon_chain tests.
WORKBOOK = ".xlsx"


def without_workbooks(document: Any) -> Any:
    """``document`` with workbook names dropped from every list of file names."""
    if isinstance(document, dict):
        return {key: without_workbooks(value) for key, value in document.items()}
    if isinstance(document, list):
        return [without_workbooks(item) for item in document
                if not (isinstance(item, str) and item.endswith(WORKBOOK))]
    return document


def _check_task(case: dict[str, Any], tmp_path: Path) -> None:
    name = case["name"]
    reference_dir = DATA_DIR / "tasks" / name
    out_dir = tmp_path / name
    out_dir.mkdir()
    result = run_task(case["model"], case["task"], copy.deepcopy(case["params"]),
                      copy.deepcopy(case["options"]), out_dir)
    expected = json.loads((reference_dir / "result.json").read_text(encoding="utf-8"))
    problems = differences(expected, without_workbooks(as_json(result)),
                           MACHINE_DEPENDENT.get(name, ()))
    manifest = json.loads((reference_dir / "tables.json").read_text(encoding="utf-8"))
    written = {p.name for p in out_dir.iterdir()
               if p.is_file() and p.name != "result.json" and not p.name.startswith(".")
               and p.suffix != WORKBOOK}
    if written != set(manifest):
        problems.append(f"table files {sorted(written)}, expected {sorted(manifest)}")
    for table in sorted(written & set(manifest)):
        problems += table_differences(name, table, manifest[table], reference_dir,
                                      (out_dir / table).read_bytes())
    assert not problems, f"{name}:\n" + "\n".join(problems)


@needs_reference_blas
@pytest.mark.parametrize("case", _task_params(TASK_CASES, slow=False))
def test_task_reproduces_reference(case: dict[str, Any], tmp_path: Path) -> None:
    _check_task(case, tmp_path)


@needs_reference_blas
@pytest.mark.slow
@pytest.mark.parametrize("case", _task_params(TASK_CASES, slow=True))
def test_slow_task_reproduces_reference(case: dict[str, Any], tmp_path: Path) -> None:
    _check_task(case, tmp_path)


def test_machine_dependent_fields_exist() -> None:
    """Every excluded path matches something in its reference (a typo would silently
    exclude nothing), and every excluded case and table exists."""
    names = {case["name"] for case in TASK_CASES}
    assert set(SLOW_TASKS) <= names and {case for case, _ in TIMING_COLUMNS} <= names

    def paths(value: Any, prefix: str = "") -> list[str]:
        if isinstance(value, dict):
            items = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            return [prefix]
        out = [prefix] if prefix else []
        for key, item in items:
            out += paths(item, f"{prefix}/{key}" if prefix else str(key))
        return out

    for name, patterns in MACHINE_DEPENDENT.items():
        assert name in names, name
        document = json.loads((DATA_DIR / "tasks" / name / "result.json").read_text())
        every = paths(document)
        for pattern in patterns:
            assert any(fnmatch.fnmatchcase(p, pattern) for p in every), (name, pattern)
    for (name, table), columns in TIMING_COLUMNS.items():
        manifest = json.loads((DATA_DIR / "tasks" / name / "tables.json").read_text())
        assert manifest[table]["stored"] and set(columns) == set(
            manifest[table]["timing_columns"]), (name, table)


def test_stored_min_pitch_answer_is_the_contact_threshold() -> None:
    """The slow task case ``dragon_chain_min_pitch`` is rerun only in the slow lane; its stored
    answer is checked here against the physics it states, at a fraction of the cost: the
    answer is the bisection bracket's upper end rounded to six decimals; the chain spiralling
    in at the answer + 1e-6 m (above the rounded-off digits) touches nothing before the head
    reaches the 4.5 m circle; at the bracket's lower end it touches at the stored radius (the
    first contact lies below r = 5 m, so the scan starts there)."""
    from flocklab.models.dragon_chain.questions import contact_radius

    document = json.loads((DATA_DIR / "tasks" / "dragon_chain_min_pitch" / "result.json")
                          .read_text(encoding="utf-8"))
    answer, check = document["answer"]["min_pitch"], document["check"]
    low, high = check["bracket_m"]
    assert round(high, 6) == answer and 0 < high - low <= 1e-8
    assert 4.5 < check["contact_radius_below_m"] < 5.0
    assert contact_radius(answer + 1e-6, r_start=8.8, r_end=4.5) is None
    assert contact_radius(low, r_start=5.0, r_end=4.5) == pytest.approx(
        check["contact_radius_below_m"], abs=1e-6)
