r"""The explorer's live structure plot: a spatial measure of the current frame and its
running average (no user interface here).

For a model that declares :attr:`~flocklab.core.model.Model.kinematics`, the current frame
of a :class:`~flocklab.explore.live.LiveRun` is read as one frame of
:class:`~flocklab.analysis.structure.Frames`
(:func:`~flocklab.analysis.structure.frames_from_snapshot`) and measured with the pure
functions of :mod:`flocklab.analysis.structure`, every :data:`STRUCTURE_EVERY` frames:

* **number fluctuations** (:func:`~flocklab.analysis.structure.number_fluctuations`): the
  standard deviation :math:`\Delta N` of the box counts against their mean
  :math:`\langle n\rangle` for the frame, and over the frames measured since the last
  reset or parameter change (the moments summed over frames, as the analysis does), with
  the reference slopes :math:`\Delta N \propto \langle n\rangle^{1/2}` (independent
  positions) and :math:`\langle n\rangle^{0.8}` (the giant fluctuations of polar flocks in
  two dimensions; H. Chaté, F. Ginelli, G. Grégoire and F. Raynaud, "Collective motion of
  self-propelled particles interacting without cohesion", Phys. Rev. E 77, 046113, 2008);
* **density profile** along the mean heading
  (:func:`~flocklab.analysis.structure.band_profiles`), the density of slabs
  (:func:`profile_bins`) over the mean density against the position along the heading
  in units of the frame's length along it (the box side, or the group's extent in open
  space), and the mean of those profiles since the last reset or parameter change.

The default is number fluctuations in a periodic box and the density profile in open space,
where a cohesive group's box counts mostly measure its outline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.analysis.structure import Frames
    from flocklab.core.model import Model
    from flocklab.explore.live import LiveRun

#: Frames between two structure computations (its refresh: 2.5 a second at 25 frames/s).
STRUCTURE_EVERY = 10
#: Slabs of the density profile: about one per :data:`PROFILE_ENTITIES` entities, between
#: these bounds (fixed from the first frame of a running average).
PROFILE_BINS = (8, 32)
PROFILE_ENTITIES = 5
#: Reference slopes of log ΔN against log <n>: independent positions, giant fluctuations.
REFERENCE_SLOPES = (0.5, 0.8)
#: The measures, by the name the page shows.
FLUCTUATIONS, PROFILE = "number fluctuations", "density profile"
MEASURES = (FLUCTUATIONS, PROFILE)


@dataclass
class StructureData:
    """What the structure plot shows.

    Attributes
    ----------
    measure : str
        :data:`FLUCTUATIONS` or :data:`PROFILE`.
    x, y : ndarray, shape (B,)
        The current frame: mean box count :math:`\\langle n\\rangle` and :math:`\\Delta N`
        (box sizes with both > 0), or slab position along the heading (in [0, 1]) and
        density over the mean density.
    mean_x, mean_y : ndarray
        The same over the :attr:`frames` frames measured since the last reset or change.
    frames : int
        Frames in the running average.
    references : dict of float to (ndarray, ndarray)
        Number fluctuations: for each reference slope, the two ends of its line through the
        running average's point at the smallest :math:`\\langle n\\rangle \\ge 1`.
    time : float
        Time of the current frame.
    """

    measure: str
    x: np.ndarray
    y: np.ndarray
    mean_x: np.ndarray
    mean_y: np.ndarray
    frames: int
    time: float
    references: dict[float, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


def default_measure(model: Model, params: dict[str, Any]) -> str:
    """:data:`FLUCTUATIONS` in a periodic box, :data:`PROFILE` in open space."""
    return FLUCTUATIONS if model.kinematics.periodic_box(params) > 0.0 else PROFILE


def profile_bins(n_entities: int) -> int:
    """Slabs of the density profile for ``n_entities``: one per :data:`PROFILE_ENTITIES`
    entities, within :data:`PROFILE_BINS` (a slab holds about five entities or more where
    the group fills the length evenly)."""
    low, high = PROFILE_BINS
    return int(min(high, max(low, n_entities // PROFILE_ENTITIES)))


def reference_lines(mean_count: np.ndarray, count_std: np.ndarray,
                    slopes: tuple[float, ...] = REFERENCE_SLOPES
                    ) -> dict[float, tuple[np.ndarray, np.ndarray]]:
    r"""Lines :math:`\Delta N = \Delta N_0 (\langle n\rangle/n_0)^a` for each slope ``a``
    over the range of ``mean_count``, through the point at the smallest
    :math:`\langle n\rangle \ge 1` (the smallest of all if none is).

    Parameters
    ----------
    mean_count, count_std : ndarray, shape (B,)
        Positive :math:`\langle n\rangle` and :math:`\Delta N` (dimensionless counts).
    slopes : tuple of float
        Exponents a.

    Returns
    -------
    dict of float to (ndarray, ndarray)
        Per slope, the line's two ends (x, y); empty without points.
    """
    if mean_count.size == 0:
        return {}
    anchor = np.flatnonzero(mean_count >= 1.0)
    i = anchor[np.argmin(mean_count[anchor])] if anchor.size else np.argmin(mean_count)
    ends = np.array([mean_count.min(), mean_count.max()])
    return {a: (ends, count_std[i] * (ends / mean_count[i]) ** a) for a in slopes}


class LiveStructure:
    """The structure measure of a live run, its running average and refresh schedule.

    Parameters
    ----------
    model : Model
        A registered model that declares ``kinematics``.
    every : int
        Frames between two computations (:meth:`update`).

    Raises
    ------
    ValueError
        If the model declares no kinematics.
    """

    def __init__(self, model: Model, every: int = STRUCTURE_EVERY) -> None:
        if model.kinematics is None:
            raise ValueError(f"model '{model.name}' declares no kinematics: no structure plot")
        self.model = model
        self.every = max(1, int(every))
        self.measure: str | None = None
        self.frames_seen = 0
        self._epoch: tuple[Any, ...] | None = None
        self._sums: list[np.ndarray] = []
        self._count = 0
        self._divisions = np.zeros(0, dtype=np.int64)
        self._bins = PROFILE_BINS[1]
        self._last: tuple[int, StructureData | None] = (-1, None)

    def measure_for(self, live: LiveRun) -> str:
        """The measure chosen (:attr:`measure`) or the model's default for ``live``."""
        return self.measure or default_measure(self.model, live.prepared)

    def update(self, live: LiveRun, force: bool = False) -> StructureData | None:
        """Count a frame; every :attr:`every` frames (or with ``force``) measure the
        current frame of ``live`` (:meth:`compute`), otherwise ``None``."""
        due = force or self.frames_seen % self.every == 0
        self.frames_seen += 1
        return self.compute(live) if due else None

    def compute(self, live: LiveRun) -> StructureData | None:
        """Measure the current frame of ``live`` and add it to the running average (begun
        anew after a reset, a parameter change or a change of measure; a frame measured
        already is not counted twice); ``None`` when the frame has fewer than two entities
        or the run keeps no snapshot frames."""
        from flocklab.analysis.structure import frames_from_snapshot

        if not live.frames:
            return None
        time, snapshot = live.frames[-1]
        frames = frames_from_snapshot(snapshot, self.model.kinematics, live.prepared, time)
        if frames.positions[0].shape[0] < 2:
            return None
        measure = self.measure_for(live)
        epoch = (measure, live.seed, live.dt, frames.dim, frames.box, repr(live.params))
        step, last = self._last
        if epoch == self._epoch and live.step == step:  # this frame is in already
            return last
        if epoch != self._epoch or live.step < step:
            self._epoch, self._sums, self._count = epoch, [], 0
        data = self._fluctuations(frames) if measure == FLUCTUATIONS else self._profile(frames)
        self._last = (live.step, data)
        return data

    def _accumulate(self, *arrays: np.ndarray) -> list[np.ndarray]:
        """Add ``arrays`` to the running sums; the sums."""
        self._sums = [a.copy() for a in arrays] if not self._sums else \
            [s + a for s, a in zip(self._sums, arrays, strict=True)]
        self._count += 1
        return self._sums

    def _fluctuations(self, frames: Frames) -> StructureData:
        from flocklab.analysis.structure import box_divisions, count_moments, number_fluctuations

        divisions = (self._divisions if self._sums
                     else box_divisions(frames.positions[0].shape[0], frames.dim))
        self._divisions = divisions
        ds = number_fluctuations(frames, divisions)
        s1, s2, boxes = self._accumulate(ds["count_sum"].values[0],
                                         ds["count_square_sum"].values[0],
                                         ds["boxes"].values[0])
        mean, var = count_moments(s1[None], s2[None], boxes[None])
        std = np.sqrt(np.maximum(var, 0.0))
        x, y = _positive(ds["mean_count"].values, ds["count_std"].values)
        mean_x, mean_y = _positive(mean, std)
        return StructureData(FLUCTUATIONS, x, y, mean_x, mean_y, self._count,
                             float(frames.times[0]), reference_lines(mean_x, mean_y))

    def _profile(self, frames: Frames) -> StructureData:
        from flocklab.analysis.structure import band_profiles

        if not self._sums:
            self._bins = profile_bins(frames.positions[0].shape[0])
        density = band_profiles(frames, bins=self._bins)["density_profile"].values
        (total,) = self._accumulate(density)
        s = (np.arange(self._bins) + 0.5) / self._bins
        return StructureData(PROFILE, s, density, s, total / self._count, self._count,
                             float(frames.times[0]))


def _positive(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points with x > 0 and y > 0 (a log-log plot's), in order of x."""
    keep = (x > 0) & (y > 0)
    order = np.argsort(x[keep])
    return x[keep][order], y[keep][order]
