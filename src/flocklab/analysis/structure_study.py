r"""A study's spatial structure: :mod:`flocklab.analysis.structure` on every run, pooled per
parameter point (pure functions; the stage ``structure`` writes the result).

Per point, the replicates' frames after the study's burn-in are pooled for the
number-fluctuation exponent (their box-count moments concatenated over frames, so the block
bootstrap resamples frames of every replicate) and for its uniform control; curves
(:math:`g(r)`, :math:`S(k)`, :math:`C(r)`, the band profiles) are replicate means; the
correlation length :math:`r_0`, the flock size and the band flag are kept per run, with
their replicate mean and standard error.

Curves of different points have different grids (box sizes, distances and wave numbers
scale with N and the box), so each curve sits on an index dimension with its grid as a
variable on (``point``, index), padded with NaN.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from flocklab.analysis import structure as st

#: Curves kept per point: (variable, a second variable on the same grid, grid dimension);
#: on ``<grid>_index``, with the grid's values in ``<grid>_value``.
CURVES = (("mean_count", "count_std", "box_size"),
          ("pair_correlation", None, "r_pair"),
          ("structure_factor", None, "k"),
          ("velocity_correlation", None, "r"),
          ("density_profile", "order_profile", "s"))


def point_coordinates(study: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The swept values of each point, in the order of ``study["labels"]`` (the grid of
    :func:`flocklab.analysis.summary.study_grid` in C order, as
    :meth:`flocklab.config.study.Study.points` enumerates it)."""
    from flocklab.analysis.summary import study_grid

    dims, shape, coords = study_grid(study)
    return [{name: values[index[dims.index(dim)]].item()
             for name, (dim, values, _) in coords.items()} for index in np.ndindex(*shape)]


def study_structure(runs: Sequence[xr.Dataset], model: Any, study: Mapping[str, Any],
                    settings: Mapping[str, Any], seed: int
                    ) -> tuple[xr.Dataset, dict[str, Any]]:
    """The structure of every point of a study.

    Parameters
    ----------
    runs : sequence of xarray.Dataset
        The study's run files (any order; matched by their ``point`` and ``replicate``).
    model : Model
        The study's model (with ``kinematics``).
    study : mapping
        The study record (``labels``, ``axes``, ``burn_in``, ``replicates``).
    settings : mapping
        The study's ``structure`` section: ``resamples``, ``n_min``, ``max_fraction`` and
        optional ``claims`` (:func:`structure_verdicts`).
    seed : int
        Seed of the bootstrap and of the uniform control (plus the point's index).

    Returns
    -------
    dataset : xarray.Dataset
        Per point: ``number_fluctuation_exponent`` (+ ``_low``, ``_high``),
        ``control_exponent`` (+ interval), ``band_fraction``; per run (``point``,
        ``replicate``): ``correlation_length``, ``flock_size``, ``band``,
        ``band_amplitude``; the curves of :data:`CURVES` on index dimensions.
    document : dict
        ``points``: one entry per point with its swept values and the same numbers;
        ``claims``: the verdicts of :func:`structure_verdicts`.
    """
    by_point: dict[str, list[xr.Dataset]] = {}
    for run in runs:
        by_point.setdefault(run.attrs["point"], []).append(run)
    coords = point_coordinates(study)
    entries, curves = [], []
    for index, (label, values) in enumerate(zip(study["labels"], coords, strict=True)):
        replicates = sorted(by_point[label], key=lambda run: int(run.attrs["replicate"]))
        entry, curve = _point_structure(replicates, model, study, settings, seed + index)
        entries.append({"point": label, **values, **entry})
        curves.append(curve)
    dataset = _study_dataset(study, coords, entries, curves)
    document = {"study": study["name"], "burn_in": study["burn_in"],
                "settings": dict(settings), "points": entries}
    if settings.get("claims"):
        document["claims"] = structure_verdicts(document, settings["claims"])
    return dataset, document


def _point_structure(runs: Sequence[xr.Dataset], model: Any, study: Mapping[str, Any],
                     settings: Mapping[str, Any], seed: int
                     ) -> tuple[dict[str, Any], dict[str, xr.Dataset]]:
    """Pooled exponents, per-run numbers and replicate-mean curves of one point."""
    fluctuations, controls, datasets, per_run = [], [], [], []
    frame_sets = [st.run_frames(run, model.kinematics, model.run_parameters(run),
                                st.first_frame_after(run, float(study["burn_in"])))
                  for run in runs]
    lengths = st.common_lengths(frame_sets)
    for frames in frame_sets:
        fluctuations.append(st.number_fluctuations(frames))
        controls.append(st.number_fluctuations(st.uniform_frames(frames, seed)))
        dataset, summary = st.spatial_measures(frames, lengths)
        datasets.append(dataset)
        per_run.append({"correlation_length": summary.get("correlation_length", np.nan),
                        "flock_size": summary.get("flock_size", np.nan),
                        "band": summary["band"]["band"],
                        "band_amplitude": summary["band"]["band_amplitude"]})
    pooled = _pooled(fluctuations)
    fit = {"n_min": settings["n_min"], "n_max": pooled.attrs["entities"] / settings["max_fraction"],
           "resamples": settings["resamples"], "seed": seed}
    exponent = st.fluctuation_exponent(pooled, **fit)
    control = st.fluctuation_exponent(_pooled(controls), **fit)
    entry = {"number_fluctuation_exponent": exponent, "control_exponent": control,
             "runs": per_run, **_replicate_means(per_run)}
    mean, var = st.count_moments(*(pooled[name].values for name in
                                   ("count_sum", "count_square_sum", "boxes")))
    curve = xr.concat(datasets, "replicate").mean("replicate")
    attrs = fluctuations[0]
    curve["mean_count"] = ("box_size", mean, attrs["mean_count"].attrs)
    curve["count_std"] = ("box_size", np.sqrt(np.maximum(var, 0.0)), attrs["count_std"].attrs)
    return entry, curve.assign_coords(box_size=attrs["box_size"])


def _pooled(fluctuations: Sequence[xr.Dataset]) -> xr.Dataset:
    """Box-count moments of several runs (same box sizes) concatenated over frames."""
    pooled = xr.concat([f[["count_sum", "count_square_sum", "boxes"]].drop_vars("frame")
                        for f in fluctuations], "frame")
    return pooled.assign_attrs(entities=float(np.mean([f.attrs["entities"]
                                                       for f in fluctuations])))


def _replicate_means(per_run: Sequence[Mapping[str, float]]) -> dict[str, Any]:
    """Mean and standard error over replicates of r_0, the flock size and r_0 / size; the
    fraction of runs with a band."""
    out: dict[str, Any] = {}
    r0 = np.array([run["correlation_length"] for run in per_run], float)
    size = np.array([run["flock_size"] for run in per_run], float)
    for name, values in (("correlation_length", r0), ("flock_size", size),
                         ("correlation_ratio", r0 / size)):
        finite = values[np.isfinite(values)]
        sem = float(finite.std(ddof=1) / np.sqrt(finite.size)) if finite.size > 1 else np.nan
        out[name] = {"mean": float(finite.mean()) if finite.size else np.nan, "sem": sem,
                     "runs": int(finite.size)}
    bands = [run["band"] for run in per_run if run["band"] >= 0]
    out["band_fraction"] = float(np.mean(bands)) if bands else np.nan
    return out


def _study_dataset(study: Mapping[str, Any], coords: Sequence[Mapping[str, Any]],
                   entries: Sequence[Mapping[str, Any]], curves: Sequence[xr.Dataset]
                   ) -> xr.Dataset:
    """The dataset of :func:`study_structure` from the per-point entries and curves."""
    labels = [entry["point"] for entry in entries]
    ds = xr.Dataset(coords={"point": ("point", labels, {"long_name": "parameter point"})})
    for name in coords[0] if coords else ():
        ds = ds.assign_coords({name: ("point", [c[name] for c in coords])})
    for key, long_name in (("number_fluctuation_exponent", "number-fluctuation exponent "
                            "alpha of Delta N ~ <n>^alpha"),
                           ("control_exponent", "alpha of the uniform control")):
        for suffix, pick in (("", lambda e: e["value"]), ("_low", lambda e: e["ci"][0]),
                             ("_high", lambda e: e["ci"][1])):
            ds[key + suffix] = ("point", [pick(e[key]) for e in entries],
                                {"long_name": long_name + (f" ({suffix[1:]} end of the "
                                                           "95 % interval)" if suffix else ""),
                                 "units": "1"})
    ds["band_fraction"] = ("point", [e["band_fraction"] for e in entries],
                           {"long_name": "fraction of runs with a band", "units": "1"})
    replicates = max(len(e["runs"]) for e in entries)
    for name, long_name in (("correlation_length", "first zero r_0 of the velocity "
                             "correlation"), ("flock_size", "flock linear size"),
                            ("band", "band flag (1 band, 0 none, -1 untestable)"),
                            ("band_amplitude", "dominant along-heading density mode")):
        values = np.full((len(entries), replicates), np.nan)
        for i, entry in enumerate(entries):
            values[i, :len(entry["runs"])] = [run[name] for run in entry["runs"]]
        ds[name] = (("point", "replicate"), values, {"long_name": long_name, "units": "1"})
    for variable, partner, dim in CURVES:
        ds = _add_curve(ds, curves, variable, partner, dim)
    return ds.assign_attrs(title=f"spatial structure of study {study['name']}",
                           study=study["name"], burn_in=float(study["burn_in"]))


def _add_curve(ds: xr.Dataset, curves: Sequence[xr.Dataset], variable: str,
               partner: str | None, dim: str) -> xr.Dataset:
    """One curve of every point on ``<dim>_index``, NaN-padded, with its grid values."""
    present = [c for c in curves if variable in c]
    if not present:
        return ds
    length = max(c.sizes[dim] for c in present)
    index = f"{dim}_index"
    names = [variable] + ([partner] if partner else [])
    grid = f"{dim}_value"
    arrays = {name: np.full((len(curves), length), np.nan) for name in [*names, grid]}
    for i, curve in enumerate(curves):
        if variable not in curve:
            continue
        size = curve.sizes[dim]
        for name in names:
            arrays[name][i, :size] = curve[name].values
        arrays[grid][i, :size] = np.asarray(curve[dim].values, float)
    for name in names:
        attrs = dict(present[0][name].attrs)
        ds[name] = (("point", index), arrays[name], attrs)
    grid_attrs = dict(present[0][dim].attrs)
    ds[grid] = (("point", index), arrays[grid], grid_attrs)
    return ds


#: Quantities a structure claim may name: a point's interval estimate, or the exponent of
#: r_0 against the flock size over the study's points.
CLAIM_QUANTITIES = ("number_fluctuation_exponent", "control_exponent",
                    "correlation_length_exponent")


def structure_verdicts(document: Mapping[str, Any], claims: Sequence[Mapping[str, Any]]
                       ) -> list[dict[str, Any]]:
    """Verdicts on the claims of a study's ``structure`` section (:data:`CLAIM_QUANTITIES`).

    * ``number_fluctuation_exponent``, ``control_exponent`` at the claim's ``point``: holds
      when the exponent's 95 % block-bootstrap interval lies inside ``(above, below)``,
      fails when it lies wholly beyond a bound, inconclusive otherwise; n is the number of
      bootstrap blocks (nearly independent stretches of frames).
    * ``correlation_length_exponent``: the exponent b of :math:`r_0 \\propto L^b` fitted to
      every run's (flock size, r_0) by least squares on logs
      (:func:`flocklab.analysis.verdicts.exponent_in_range`): b = 1 is scale-free
      correlation, b < 1 a correlation length that saturates.
    """
    from flocklab.analysis.verdicts import Verdict, exponent_in_range

    verdicts = []
    for claim in claims:
        above, below = claim.get("above"), claim.get("below")
        if claim["quantity"] == "correlation_length_exponent":
            sizes = [[run["flock_size"] for run in p["runs"]] for p in document["points"]]
            r0 = [[run["correlation_length"] for run in p["runs"]] for p in document["points"]]
            levels = np.array([np.nanmean(s) for s in sizes])
            verdict = exponent_in_range(claim["claim"], levels, _padded(r0), below, above)
        else:
            estimate = _matching_point(document, claim["point"])[claim["quantity"]]
            verdict = _interval_verdict(claim["claim"], estimate, above, below, Verdict)
        verdicts.append({**verdict.as_dict(), "quantity": claim["quantity"],
                         **({"point": dict(claim["point"])} if "point" in claim else {})})
    return verdicts


def _padded(rows: Sequence[Sequence[float]]) -> np.ndarray:
    """Rows of different lengths as one array, NaN-padded."""
    out = np.full((len(rows), max(len(r) for r in rows)), np.nan)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def _matching_point(document: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The document's point whose swept values equal ``values`` (numbers as floats)."""
    def same(a: Any, b: Any) -> bool:
        if isinstance(a, int | float) and isinstance(b, int | float):
            return bool(np.isclose(float(a), float(b)))
        return a == b

    for point in document["points"]:
        if all(name in point and same(point[name], value) for name, value in values.items()):
            return point
    raise KeyError(f"no point with {dict(values)}")


def _interval_verdict(claim: str, estimate: Mapping[str, Any], above: float | None,
                      below: float | None, verdict_type: Any) -> Any:
    """holds / fails / inconclusive from an estimate's 95 % interval against a range."""
    from flocklab.analysis.verdicts import range_verdict

    value, (low, high) = estimate["value"], estimate["ci"]
    test = "least-squares slope of log Delta N on log <n>, moving-block bootstrap over frames"
    blocks = int(estimate.get("blocks", 0))
    if not np.isfinite(value) or not (np.isfinite(low) and np.isfinite(high)):
        return verdict_type(claim, "untestable", estimate.get("reason", "no interval"), test,
                            blocks, value)
    wanted = " and ".join(f"{sign} {bound:g}" for bound, sign in ((above, ">"), (below, "<"))
                          if bound is not None)
    evidence = (f"alpha = {value:.3f} [{low:.3f}, {high:.3f}] (95 %, {estimate['frames']} "
                f"frames in {blocks} blocks of {estimate.get('block_frames', 1)}, "
                f"{estimate['box_sizes']} box sizes); claimed {wanted}")
    return verdict_type(claim, range_verdict(low, high, below, above), evidence, test, blocks,
                        value, low, high)
