"""Simulation jobs sized to their work (flocklab.config.blocks): which runs are pending, how
they are grouped, and that a block's job reproduces each run exactly."""

from __future__ import annotations

import json

import pytest

from flocklab.config.blocks import (
    MAX_RUNS,
    Run,
    block_size,
    block_spec,
    existing_fingerprints,
    pending_blocks,
    run_fingerprint,
)
from flocklab.stages.simulate import run_block, run_simulation


def _runs(n: int, seconds: float = 1.0) -> list[Run]:
    return [Run(f"eta={k}", 0, f"runs/eta={k}/rep0.nc", {"eta": float(k)}, {"seed": k},
                f"fp{k}", seconds, 1000 * (k + 1)) for k in range(n)]


@pytest.mark.parametrize(("seconds", "target", "size"), [
    ([1.0] * 10, 20.0, 20), ([0.5, 1.0, 3.0], 20.0, 20), ([100.0] * 3, 20.0, 1),
    ([1e-6] * 5, 20.0, MAX_RUNS), ([7.0] * 4, 20.0, 3), ([1.0], 600.0, MAX_RUNS), ([], 20.0, 1),
])
def test_block_size_holds_the_target_work_of_median_runs(seconds, target, size):
    assert block_size(seconds, target) == size


def test_only_runs_without_their_current_file_are_pending():
    runs = _runs(10, seconds=5.0)  # size 4: chunks of positions 0-3, 4-7, 8-9
    done = {run.path: run.fingerprint for run in runs}
    assert pending_blocks("s", runs, done) == []
    done[runs[5].path] = "stale"
    del done[runs[9].path]
    blocks = pending_blocks("s", runs, done)
    assert [(block.index, [run.label for run in block.runs]) for block in blocks] == \
        [(1, ["eta=5"]), (2, ["eta=9"])]
    assert blocks[0].name == "simulate_s_1" and blocks[1].outputs == [runs[9].path]


def test_a_block_keeps_its_members_when_other_blocks_finish():
    runs = _runs(12, seconds=5.0)
    first = pending_blocks("s", runs, {})
    done = {run.path: run.fingerprint for run in first[0].runs}
    later = pending_blocks("s", runs, done)
    assert [block.runs for block in later] == [block.runs for block in first[1:]]


def test_an_added_point_is_a_block_of_its_own():
    old = _runs(8, seconds=5.0)
    done = {run.path: run.fingerprint for run in old}
    grown = [*old[:3], Run("eta=new", 0, "runs/eta=new/rep0.nc", {}, {}, "new", 5.0, 1),
             *old[3:]]
    (block,) = pending_blocks("s", grown, done)
    assert [run.label for run in block.runs] == ["eta=new"]


def test_block_totals():
    (block,) = pending_blocks("s", _runs(3, seconds=2.0), {})
    assert block.seconds == 6.0 and block.memory_bytes == 3000


def test_the_block_job_writes_each_run_as_a_single_run_would(tmp_path):
    params = [{"N": 20, "L": 3.0, "eta": eta, "v0": 0.03, "r": 1.0, "noise": "angular",
               "update": "forward", "init": "random"} for eta in (0.5, 2.0)]
    controls = [{"seed": seed, "steps": 30} for seed in (3, 4)]
    runs = [Run(f"p{k}", 0, str(tmp_path / f"block{k}.nc"), params[k], controls[k],
                run_fingerprint("vicsek", params[k], controls[k]), 0.1, 1) for k in (0, 1)]
    (block,) = pending_blocks("s", runs, {})
    spec = json.loads(json.dumps(block_spec(block, "vicsek", 0)))
    assert spec["runs"][1]["params"] == {"eta": 2.0}
    assert spec["runs"][1]["control"] == {"seed": 4}
    run_block(spec)
    for k in (0, 1):
        run_simulation("vicsek", params[k], controls[k], tmp_path / f"single{k}.nc",
                       extra_attrs={"study": "s", "point": f"p{k}", "replicate": 0})
    import xarray as xr

    for k in (0, 1):
        with xr.open_dataset(tmp_path / f"block{k}.nc") as a, \
                xr.open_dataset(tmp_path / f"single{k}.nc") as b:
            xr.testing.assert_identical(a.load(), b.load())
    found = existing_fingerprints([run.path for run in runs] + [str(tmp_path / "none.nc")],
                                  cache=tmp_path / "cache.json")
    assert found == {run.path: run.fingerprint for run in runs}


def test_fingerprints_are_cached_by_size_and_time(tmp_path, monkeypatch):
    path = tmp_path / "run.nc"
    run_simulation("vicsek", {"N": 10, "L": 3.0}, {"seed": 1, "steps": 5}, path)
    cache = tmp_path / "cache.json"
    first = existing_fingerprints([str(path)], cache=cache)
    import flocklab.config.blocks as blocks

    monkeypatch.setattr(blocks, "_file_fingerprint", lambda _: pytest.fail("file reread"))
    assert existing_fingerprints([str(path)], cache=cache) == first
    path.write_bytes(b"not netCDF")  # changed size: reread, unreadable, so not done
    monkeypatch.undo()
    assert existing_fingerprints([str(path)], cache=cache) == {}


def test_a_design_is_sampled_once_per_specification(tmp_path, monkeypatch):
    from flocklab.analysis.sensitivity import Factor
    from flocklab.config import design_cache
    from flocklab.config.design import DesignSpec

    monkeypatch.setattr(design_cache, "CACHE", tmp_path / "designs")
    spec = DesignSpec("sobol", (Factor("eta", 0.1, 6.0), Factor("r", 0.5, 1.5)), {}, 8, 4, 3)
    first = spec.generate()
    monkeypatch.setattr(DesignSpec, "_sample", lambda self: pytest.fail("sampled again"))
    second = spec.generate()
    assert first.values.shape == (8 * 4, 2)
    for name in ("values", "oat_factor", "oat_level"):
        assert (getattr(first, name) == getattr(second, name)).all()
    other = DesignSpec("sobol", spec.factors, {}, 8, 4, 4)  # another seed: a new design
    monkeypatch.undo()
    monkeypatch.setattr(design_cache, "CACHE", tmp_path / "designs")
    assert not (other.generate().values == first.values).all()
