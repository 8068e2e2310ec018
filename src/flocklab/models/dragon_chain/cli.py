"""Command line for the five questions: ``python -m flocklab.models.dragon_chain <verb> [options]``.

Verbs (options in metres, seconds, m/s):

* ``positions`` (Q1) — netCDF with ``x``, ``y``, ``speed`` on (``time``, ``handle``);
* ``collision`` (Q2) — JSON: time, touching benches, state then;
* ``min-pitch`` (Q3) — JSON: minimum pitch, bracket, neighbourhood check;
* ``turnaround`` (Q4) — netCDF as ``positions`` plus JSON with the S-curve geometry;
* ``max-speed`` (Q5) — JSON: largest head speed, binding handles and time.

``--csv STEM`` / ``--xlsx STEM`` write the contest tables (result1, result2, result4 layouts;
xlsx needs the optional openpyxl). Written to be mounted as ``flocklab dragon`` by the main
command line (``main(argv)``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from flocklab.core.parameters import ParameterError
from flocklab.models.dragon_chain import answers
from flocklab.models.dragon_chain import questions as q
from flocklab.models.dragon_chain.geometry import BenchGeometry
from flocklab.models.dragon_chain.tables import write_tables


def _dataset(trajectory: q.Trajectory, attrs: dict[str, Any]):
    import xarray as xr

    state = trajectory.state
    handle = np.arange(state.speed.shape[1])
    return xr.Dataset(
        {"x": (("time", "handle"), state.xy[..., 0], {"long_name": "handle x", "units": "m"}),
         "y": (("time", "handle"), state.xy[..., 1], {"long_name": "handle y", "units": "m"}),
         "speed": (("time", "handle"), state.speed, {"long_name": "handle speed",
                                                     "units": "m/s"})},
        coords={"time": ("time", trajectory.times, {"units": "s"}),
                "handle": ("handle", handle, {"long_name": "0 head front ... 223 tail rear"})},
        attrs={k: v for k, v in attrs.items() if isinstance(v, int | float | str)},
    )


def _tables(args: argparse.Namespace, tables) -> None:
    for stem, csv_files, xlsx in ((args.csv, True, False), (args.xlsx, False, True)):
        if stem:
            for path in write_tables(tables, stem, csv_files=csv_files, xlsx=xlsx):
                print(f"wrote {path}")


def _write_json(document: dict, path: str) -> None:
    from flocklab.core.io import write_json

    write_json(document, path)
    print(f"wrote {path}")


def cmd_positions(args: argparse.Namespace) -> None:
    trajectory = q.q1_spiral(args.pitch, args.start_turn, args.head_speed, args.t_start,
                             args.t_end, args.t_step)
    if args.out:
        from flocklab.core.io import write_netcdf

        write_netcdf(_dataset(trajectory, vars(args)), args.out)
        print(f"wrote {args.out}")
    _tables(args, answers.trajectory_tables(trajectory, 60.0)["contest"])


def cmd_collision(args: argparse.Namespace) -> None:
    result = q.q2_collision(args.pitch, args.start_turn, args.head_speed)
    if result["time"] is None:
        print("no contact before the head reaches the spiral's centre")
    else:
        _tables(args, answers.state_tables(result["state"])["contest"])
        print(f"first contact at t = {result['time']:.6f} s: {result.get('touching')}")
    document = answers.collision_document(result, q.in_spiral(args.pitch, args.start_turn),
                                          BenchGeometry(), args.head_speed)
    if args.out:
        _write_json(document, args.out)


def cmd_min_pitch(args: argparse.Namespace) -> None:
    result = q.q3_min_pitch(args.turn_diameter, args.r_start)
    print(f"minimum pitch {result['min_pitch']:.6f} m")
    if args.out:
        _write_json(result, args.out)


def cmd_turnaround(args: argparse.Namespace) -> None:
    trajectory = q.q4_turnaround(args.pitch, args.turn_diameter, args.ratio, args.head_speed,
                                 args.t_start, args.t_end, args.t_step)
    if args.out:
        from flocklab.core.io import write_netcdf

        write_netcdf(_dataset(trajectory, vars(args)), args.out)
        print(f"wrote {args.out}")
    geometry = answers.s_curve_document(trajectory, args.pitch, args.turn_diameter)
    print(f"S-curve length {geometry['s_curve_length']:.6f} m")
    if args.json:
        _write_json(geometry, args.json)
    _tables(args, answers.trajectory_tables(trajectory, 50.0)["contest"])


def cmd_max_speed(args: argparse.Namespace) -> None:
    result = q.q5_max_speed(args.pitch, args.turn_diameter, args.ratio, args.limit)
    print(f"maximum head speed {result['max_head_speed']:.6f} m/s "
          f"(peak ratio {result['max_ratio']:.6f} at t = {result['time']:.6f} s, "
          f"handles {result['binding_handles']})")
    if args.out:
        _write_json(result, args.out)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flocklab dragon", description=__doc__.split("\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)

    def verb(name: str, func, help_text: str, pitch: float) -> argparse.ArgumentParser:
        sub = verbs.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(func=func)
        sub.add_argument("--pitch", type=float, default=pitch, help="spiral pitch (m)")
        sub.add_argument("--out", help="output file (.nc or .json)")
        sub.add_argument("--csv", metavar="STEM",
                         help="contest tables as STEM_positions.csv, STEM_speeds.csv")
        sub.add_argument("--xlsx", metavar="STEM", help="contest tables as STEM.xlsx")
        return sub

    def timing(sub, start: float, end: float) -> None:
        sub.add_argument("--head-speed", type=float, default=1.0, help="head speed (m/s)")
        sub.add_argument("--t-start", type=float, default=start, help="first time (s)")
        sub.add_argument("--t-end", type=float, default=end, help="last time (s)")
        sub.add_argument("--t-step", type=float, default=1.0, help="time step (s)")

    def turn(sub) -> None:
        sub.add_argument("--turn-diameter", type=float, default=9.0,
                         help="turnaround circle diameter (m)")
        sub.add_argument("--ratio", type=float, default=2.0,
                         help="first arc radius over second arc radius (1)")

    sub = verb("positions", cmd_positions, "Q1: handles on the in-spiral", 0.55)
    sub.add_argument("--start-turn", type=float, default=16.0, help="head start turn (turns)")
    timing(sub, 0.0, 300.0)
    sub = verb("collision", cmd_collision, "Q2: first contact of two boards", 0.55)
    sub.add_argument("--start-turn", type=float, default=16.0, help="head start turn (turns)")
    sub.add_argument("--head-speed", type=float, default=1.0, help="head speed (m/s)")
    sub = verb("min-pitch", cmd_min_pitch, "Q3: smallest collision-free pitch", 0.55)
    sub.add_argument("--turn-diameter", type=float, default=9.0,
                     help="turnaround circle diameter (m)")
    sub.add_argument("--r-start", type=float, default=8.8, help="head start radius (m)")
    sub = verb("turnaround", cmd_turnaround, "Q4: handles on the turnaround path", 1.7)
    turn(sub)
    timing(sub, -100.0, 100.0)
    sub.add_argument("--json", help="S-curve geometry (JSON)")
    sub = verb("max-speed", cmd_max_speed, "Q5: largest head speed under a speed limit", 1.7)
    turn(sub)
    sub.add_argument("--limit", type=float, default=2.0, help="handle speed limit (m/s)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; a bad parameter prints one line naming the key and returns 2."""
    args = _parser().parse_args(argv)
    try:
        args.func(args)
    except ParameterError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

