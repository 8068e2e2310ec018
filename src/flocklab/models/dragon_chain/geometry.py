"""Bench geometry and the contest paths of the 2024 CUMCM problem A dragon (lengths in m).

223 benches: the head bench (board 3.41 m) and 222 others (221 body benches and the tail
bench, boards 2.20 m), all 0.30 m wide, with hole centres 0.275 m from the board ends.
Consecutive benches share a handle: 224 handles, 0 = head front, 1..221 = body-bench fronts,
222 = tail front, 223 = tail rear. Bench ``j`` joins handles ``j`` and ``j + 1``.

Reference: 2024 China Undergraduate Mathematical Contest in Modeling, problem A.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from flocklab.core.parameters import ParameterError
from flocklab.geometry.chain import follow
from flocklab.geometry.paths import TWO_PI, Spiral, Turnaround, turnaround_path

N_BENCHES = 223
HEAD_BOARD = 3.41
BODY_BOARD = 2.20
BOARD_WIDTH = 0.30
HOLE_OFFSET = 0.275


@dataclass(frozen=True)
class BenchGeometry:
    """Sizes of the benches (m).

    Attributes
    ----------
    n_benches : int
        Number of benches (handles = ``n_benches + 1``).
    head_board, body_board : float
        Board lengths of the head bench and of all the others.
    width : float
        Board width.
    hole_offset : float
        Distance from a hole centre (handle) to the nearer board end.
    """

    n_benches: int = N_BENCHES
    head_board: float = HEAD_BOARD
    body_board: float = BODY_BOARD
    width: float = BOARD_WIDTH
    hole_offset: float = HOLE_OFFSET

    def __post_init__(self) -> None:
        if self.n_benches < 1:
            raise ParameterError(
                "n_benches", f"parameter 'n_benches' = {self.n_benches} must be >= 1"
            )
        for key in ("head_board", "body_board", "width"):
            if not getattr(self, key) > 0:
                value = getattr(self, key)
                raise ParameterError(key, f"parameter '{key}' = {value!r} must be > 0 (m)")
        if not 0 <= 2 * self.hole_offset < min(self.head_board, self.body_board):
            raise ParameterError(
                "hole_offset", f"parameter 'hole_offset' = {self.hole_offset!r} must be in "
                "[0, board/2) (m)"
            )

    @property
    def n_handles(self) -> int:
        """Number of handles, ``n_benches + 1``."""
        return self.n_benches + 1

    @property
    def spacings(self) -> NDArray[np.float64]:
        """Handle spacing of each bench, board minus two hole offsets: 2.86 m, then 1.65 m."""
        boards = np.full(self.n_benches, self.body_board)
        boards[0] = self.head_board
        return boards - 2 * self.hole_offset

    @property
    def half_lengths(self) -> NDArray[np.float64]:
        """Half the board length of each bench (m)."""
        return 0.5 * self.spacings + self.hole_offset

    @property
    def length(self) -> float:
        """Sum of handle spacings, head front to tail rear (m)."""
        return float(self.spacings.sum())


#: Handles of the paper tables the contest asks for: the head front, the fronts of body
#: benches 1, 51, 101, 151 and 201, and the tail's rear handle.
PAPER_HANDLES = (0, 1, 51, 101, 151, 201, 223)


def paper_handles(n_handles: int = N_BENCHES + 1) -> list[int]:
    """:data:`PAPER_HANDLES` for a dragon of ``n_handles`` handles: the body fronts that
    exist, then the tail's rear handle (the last one)."""
    return [h for h in PAPER_HANDLES[:-1] if h < n_handles - 2] + [n_handles - 1]


def handle_labels(n_handles: int = N_BENCHES + 1) -> list[str]:
    """Contest row labels: 龙头, 第1节龙身 ... 第221节龙身, 龙尾, 龙尾（后）."""
    body = [f"第{i}节龙身" for i in range(1, n_handles - 2)]
    return ["龙头", *body, "龙尾", "龙尾（后）"]


# --------------------------------------------------------------------------- paths


def positive(name: str, value: float, unit: str) -> float:
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise ParameterError(name, f"parameter '{name}' = {value!r} must be a number > 0 ({unit})")
    return float(value)


def in_spiral(pitch: float, start_turn: float) -> Spiral:
    """The Q1 in-spiral; arc length 0 at the head's start, polar angle 2 pi ``start_turn``."""
    positive("pitch", pitch, "m")
    positive("start_turn", start_turn, "turns")
    return Spiral(pitch, TWO_PI * start_turn, 0.0)


def innermost_head_arc_length(spiral: Spiral, geometry: BenchGeometry) -> float:
    """Largest head arc length the chain solver accepts: :math:`b(2\\theta+\\pi) \\ge d_0`."""
    theta_min = max(0.5 * (geometry.spacings.max() / spiral.b - math.pi), 0.0) + 1e-6
    return float(spiral.arc_length_at(theta_min))


def turnaround(pitch: float = 1.7, turn_diameter: float = 9.0, ratio: float = 2.0,
               geometry: BenchGeometry | None = None) -> Turnaround:
    """The Q4 path, validating the keys ``pitch``, ``turn_diameter`` and ``ratio``.

    The turnaround circle must be wider than the head bench, and the first benches must find
    their rear handles within four bench lengths of path behind them while the head crosses
    the S-curve; otherwise ParameterError names ``turn_diameter``.
    """
    geometry = geometry or BenchGeometry()
    positive("pitch", pitch, "m")
    positive("turn_diameter", turn_diameter, "m")
    positive("ratio", ratio, "1")
    if turn_diameter <= geometry.spacings[0]:
        raise ParameterError("turn_diameter", f"parameter 'turn_diameter' = {turn_diameter!r} "
                             f"must exceed the head handle spacing {geometry.spacings[0]:g} m")
    path = turnaround_path(pitch, 0.5 * turn_diameter, ratio)
    # the first benches must find their rear handle within 4 bench lengths of path
    probe = path.s_enter + np.linspace(0.0, path.s_curve_length + 2 * geometry.spacings[0], 17)
    try:
        s = probe
        for spacing in geometry.spacings[:4]:
            s = follow(path.path, s, float(spacing))
    except ValueError:
        raise ParameterError("turn_diameter", f"parameter 'turn_diameter' = {turn_diameter!r}: "
                             "the turnaround is too tight for the head bench at pitch "
                             f"{pitch:g} m, ratio {ratio:g}") from None
    return path
