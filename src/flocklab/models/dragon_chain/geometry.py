"""Bench geometry of the 2024 CUMCM problem A dragon (all lengths in metres).

223 benches: the head bench (board 3.41 m) and 222 others (221 body benches and the tail
bench, boards 2.20 m), all 0.30 m wide, with hole centres 0.275 m from the board ends.
Consecutive benches share a handle: 224 handles, 0 = head front, 1..221 = body-bench fronts,
222 = tail front, 223 = tail rear. Bench ``j`` joins handles ``j`` and ``j + 1``.

Reference: 2024 China Undergraduate Mathematical Contest in Modeling, problem A.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from flocklab.core.parameters import ParameterError

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


#: Handles of the paper tables: head, body benches 1, 51, 101, 151, 201, tail front, tail rear.
PAPER_HANDLES = (0, 1, 51, 101, 151, 201, 222, 223)


def handle_labels(n_handles: int = N_BENCHES + 1) -> list[str]:
    """Contest row labels: 龙头, 第1节龙身 ... 第221节龙身, 龙尾, 龙尾（后）."""
    body = [f"第{i}节龙身" for i in range(1, n_handles - 2)]
    return ["龙头", *body, "龙尾", "龙尾（后）"]
