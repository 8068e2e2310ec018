"""A dependency-free progress bar: drawn on a terminal, silent otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Progress of a loop of ``total`` units, redrawn at most every 0.2 s.

    Parameters
    ----------
    total : int
        Number of units (for simulations: time steps).
    label : str
        Text in front of the bar.
    enabled : bool or None
        ``None`` draws only when ``stream`` is a terminal (so Snakemake logs and
        SLURM output stay clean); ``True``/``False`` force it.
    stream : file, optional
        Defaults to ``sys.stderr``.
    """

    def __init__(self, total: int, label: str = "", enabled: bool | None = None,
                 stream: TextIO | None = None) -> None:
        self.total = max(int(total), 1)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = (self.stream.isatty() if enabled is None else enabled)
        self.done = 0
        self._start = time.monotonic()
        self._last_draw = 0.0

    def update(self, done: int) -> None:
        self.done = done
        now = time.monotonic()
        if self.enabled and (now - self._last_draw > 0.2 or done >= self.total):
            self._last_draw = now
            fraction = min(done / self.total, 1.0)
            width = 30
            bar = "#" * int(fraction * width)
            elapsed = now - self._start
            remaining = elapsed * (1 - fraction) / fraction if fraction > 0 else float("nan")
            self.stream.write(f"\r{self.label} [{bar:<{width}}] {100 * fraction:5.1f}% "
                              f"{done}/{self.total} ({elapsed:.0f}s elapsed, "
                              f"~{remaining:.0f}s left)")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
