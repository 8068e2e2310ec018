"""``flocklab fss``: finite-size scaling of any summary with per-run moments.

The same analysis as the pipeline's ``fss`` stage (:mod:`flocklab.analysis.fss`), on a
study's ``summary.nc`` or on another simulator's netCDF file holding per-run
``<P>_mean``, ``<P>_m2`` and ``<P>_m4`` on (control, size, replicate or seed). Its options
are checked before anything is read; a summary the analysis cannot use ends in one line
naming what is missing.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from flocklab.core.parameters import ParameterError

#: Longer help of ``flocklab fss``.
FSS_DESCRIPTION = ("Critical value from Binder-cumulant crossings extrapolated in L, nu from "
                   "the Binder slope there, beta/nu from P(x_c, L), gamma/nu from the "
                   "susceptibility maxima, the hyperscaling residual, a data collapse and "
                   "the drift without the smallest size, with 68 %% bootstrap intervals over "
                   "replicates. Writes strict JSON (and netCDF with --out-nc).")


def setup_fss(fss: argparse.ArgumentParser, netcdf_file: Any) -> None:
    """The ``fss`` command's arguments (``netcdf_file``: the argparse type of an existing
    input file)."""
    fss.add_argument("summary", type=netcdf_file,
                     help="a study's summary.nc, or any netCDF file with per-run <P>_mean, "
                          "<P>_m2, <P>_m4 on (control, size, replicate or seed)")
    fss.add_argument("--control", required=True, metavar="NAME",
                     help="a critical control the summary's model declares (e.g. eta); "
                          "without a model attribute, the control coordinate's name")
    fss.add_argument("--size", required=True, metavar="NAME",
                     help="coordinate of the linear size L, or of the element count N (the "
                          "summary's size parameter; then L = N^(1/d))")
    fss.add_argument("--dimension", type=float, default=2.0, metavar="D",
                     help="space dimension d (L from N, hyperscaling); default 2")
    fss.add_argument("--observable", default=None, metavar="P",
                     help="order parameter (default: the summary's primary_observable)")
    fss.add_argument("--side", choices=["below", "above"], default=None,
                     help="ordered side of the control (required when the summary names no "
                          "registered model)")
    fss.add_argument("--select", action="append", default=[], metavar="DIM=VALUE",
                     help="fix another swept dimension, e.g. --select density=4 (repeatable)")
    fss.add_argument("--resamples", type=int, default=200,
                     help="bootstrap resamples over replicates (>= 20); default 200")
    fss.add_argument("--correction-exponent", type=float, default=1.0, metavar="OMEGA",
                     help="omega of the crossing extrapolation (> 0); default 1")
    fss.add_argument("--collapse-window", type=float, default=1.0, metavar="W",
                     help="largest |t| L^(1/nu) in the data collapse (> 0); default 1")
    fss.add_argument("--no-collapse", action="store_true", help="skip the data collapse")
    fss.add_argument("--seed", type=int, default=0, help="seed of the bootstrap; default 0")
    fss.add_argument("--out", required=True, help="output JSON file")
    fss.add_argument("--out-nc", default=None, help="also write the netCDF dataset here")


def parse_select(items: list[str]) -> dict[str, Any]:
    """``--select DIM=VALUE`` options as ``{DIM: VALUE}`` (values read as YAML scalars).

    Raises
    ------
    ParameterError
        An item without ``=`` or without a name.
    """
    import yaml

    select = {}
    for item in items:
        name, separator, value = item.partition("=")
        if not separator or not name:
            raise ParameterError("select", f"--select {item!r}: expected DIM=VALUE")
        select[name] = yaml.safe_load(value)
    return select


def fss_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The analysis settings from the command line, checked (one line per mistake)."""
    select = parse_select(args.select)
    if args.resamples < 20:
        raise ParameterError("resamples", f"'--resamples' must be >= 20, got {args.resamples}")
    for option, value in (("dimension", args.dimension),
                          ("correction-exponent", args.correction_exponent),
                          ("collapse-window", args.collapse_window)):
        if not (math.isfinite(value) and value > 0):
            raise ParameterError(option, f"'--{option}' must be a number > 0, got {value}")
    return {"observable": args.observable, "side": args.side, "dimension": args.dimension,
            "select": select, "resamples": args.resamples,
            "correction_exponent": args.correction_exponent,
            "collapse_window": args.collapse_window, "collapse": not args.no_collapse}


def run_fss_command(args: argparse.Namespace) -> None:
    """Run the analysis and print the verdict."""
    from flocklab.analysis.fss import finite_size_scaling
    from flocklab.analysis.reading import CriticalFitError
    from flocklab.core.io import open_dataset, write_json, write_netcdf
    from flocklab.core.provenance import with_provenance

    settings = fss_settings(args)
    try:
        ds, document = finite_size_scaling(open_dataset(args.summary), args.control, args.size,
                                           settings, seed=args.seed)
    except CriticalFitError as error:
        raise ParameterError("summary", f"{args.summary}: {error}") from None
    write_json(document, args.out)
    if args.out_nc:
        write_netcdf(with_provenance(ds), args.out_nc)
    print(f"wrote {args.out}" + (f" and {args.out_nc}" if args.out_nc else "")
          + f"; {document['verdict']}")
