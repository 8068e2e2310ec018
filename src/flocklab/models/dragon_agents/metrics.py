r"""Per-run measures of a dragon trajectory: pure functions on arrays on (time, unit).

Inputs are the recorded arrays ``x, y, vx, vy`` of shape (T, N) (unit 0 = the head) and
the record times ``t`` of shape (T,). Nothing here integrates or reads files.

* :func:`velocity_alignment` — the article's section 5.1 item 1: mean cosine between each
  unit's heading and the mean heading, :math:`\phi(t) = \frac1N \sum_i \hat v_i\cdot
  \hat m`, :math:`\hat m = \sum_i \hat v_i / |\sum_i \hat v_i|` (1 = all parallel).
* :func:`link_deviation` / :func:`link_stability` — item 2: :math:`|d_l - L|`, its max and
  mean over links and time.
* :func:`rigid_chain_deviation` — how far each unit is from where a rigid chain on the
  same path would be (:func:`flocklab.geometry.chain.follow`); at the tail: the "whip".
* :func:`control_effort` — item 4: :math:`\int \sum_i |F^\mathrm{control}_i|^2\,dt`
  (trapezoid rule on the record grid).
* :func:`oscillation_power` — power of the link-length deviations above a cut-off
  frequency (periodogram on the uniform record grid; by Parseval the powers of all
  frequencies add up to the variance).
* :func:`turn_onset` — when the head meets the largest step in its path's curvature
  (the turn a settling time is counted from).
* :func:`settling_time` — time after ``t0`` after which a signal stays within a band
  around its final value.

Reference: the bench-dragon article (:data:`flocklab.references.BENCH_DRAGON_ARTICLE`),
section 5.1.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def velocity_alignment(vx: np.ndarray, vy: np.ndarray, min_speed: float = 1e-9
                       ) -> np.ndarray:
    """Mean cosine of unit headings to the mean heading, shape (T,).

    Units slower than ``min_speed`` (m/s) have no heading and are left out; NaN where no
    unit moves or the headings cancel exactly.
    """
    speed = np.hypot(vx, vy)
    moving = speed > min_speed
    safe = np.where(moving, speed, 1.0)
    ux, uy = np.where(moving, vx / safe, 0.0), np.where(moving, vy / safe, 0.0)
    mx, my = ux.sum(axis=1), uy.sum(axis=1)
    norm = np.hypot(mx, my)
    count = moving.sum(axis=1)
    ok = (norm > 0) & (count > 0)
    cosine = (ux * mx[:, None] + uy * my[:, None]).sum(axis=1) / np.where(ok, norm, 1.0)
    return np.where(ok, cosine / np.maximum(count, 1), np.nan)


def link_lengths(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Length of link l (between units l and l+1), shape (T, N-1) (m)."""
    return np.hypot(np.diff(x, axis=1), np.diff(y, axis=1))


def link_deviation(x: np.ndarray, y: np.ndarray, rest: float) -> np.ndarray:
    """:math:`|d_l - L|`, shape (T, N-1) (m)."""
    return np.abs(link_lengths(x, y) - rest)


def link_stability(x: np.ndarray, y: np.ndarray, rest: float) -> tuple[float, float]:
    """(max, mean) of :math:`|d_l - L|` over links and records (m), the article's item 2."""
    dev = link_deviation(x, y, rest)
    return float(dev.max()), float(dev.mean())


def head_arc_length(x0: np.ndarray, y0: np.ndarray, guide: Any) -> np.ndarray:
    """Arc length of the head's projection on the guide's path, shape (T,) (m); on a
    line the infinite line's coordinate, on a closed path unwrapped to be continuous."""
    from flocklab.geometry import paths

    points = np.stack([x0, y0], axis=-1)
    path = guide.path
    if isinstance(path, paths.Line):
        return (points - np.asarray(path.start_point)) @ np.asarray(path.direction)
    s = path.project(points)
    if isinstance(path, paths.Periodic):
        s = np.unwrap(s, period=path.length)
    return s


def rigid_chain_deviation(x: np.ndarray, y: np.ndarray, guide: Any, rest: float
                          ) -> np.ndarray:
    """Distance of each unit from where a rigid chain on the same path would be, (T, N).

    The rigid chain starts at the head's projection on the path and puts each next unit on
    the path at chord distance ``rest`` behind the previous one (the rigid-chain solver of
    :func:`flocklab.geometry.chain.follow`). Unit 0's entry is its distance to the path.
    """
    from flocklab.geometry.chain import follow

    s = head_arc_length(x[:, 0], y[:, 0], guide)
    out = np.empty(x.shape)
    for i in range(x.shape[1]):
        if i > 0:
            s = follow(guide.path, s, rest)
        where = guide.path.position(s)
        out[:, i] = np.hypot(x[:, i] - where[:, 0], y[:, i] - where[:, 1])
    return out


def past_states(t: np.ndarray, flat: np.ndarray, tau: float) -> np.ndarray:
    """States at :math:`t - \\tau` by linear interpolation between records, (T, 4N).

    Before the first record the first state is used (the chain at rest before the start).
    """
    when = np.clip(t - tau, t[0], t[-1])
    upper = np.clip(np.searchsorted(t, when, side="right"), 1, len(t) - 1)
    lower = upper - 1
    weight = ((when - t[lower]) / (t[upper] - t[lower]))[:, None]
    return (1.0 - weight) * flat[lower] + weight * flat[upper]


def control_power(t: np.ndarray, states: np.ndarray, system: Any, tau: float = 0.0
                  ) -> np.ndarray:
    """:math:`\\sum_i |F^\\mathrm{control}_i(t)|^2` at each record, shape (T,) (N²).

    ``states`` (T, N, 4); control = alignment + cohesion + path following. With a delay
    ``tau`` the neighbours' past states are interpolated linearly between records
    (:func:`past_states`); undelayed values are exact at the records.
    """
    flat = states.reshape(len(t), -1)
    past = past_states(t, flat, tau) if tau > 0 and len(t) > 1 else None
    power = np.empty(len(t))
    for k, time in enumerate(t):
        control, _ = system.accelerations(float(time), flat[k],
                                          None if past is None else past[k])
        power[k] = np.sum((system.m * control) ** 2)
    return power


def control_effort(t: np.ndarray, states: np.ndarray, system: Any, tau: float = 0.0
                   ) -> float:
    """:math:`\\int \\sum_i |F^\\mathrm{control}_i|^2 dt` (N² s), trapezoid rule on the
    records (see :func:`control_power`)."""
    power = control_power(t, states, system, tau)
    return float(np.sum(0.5 * (power[1:] + power[:-1]) * np.diff(t)))


def oscillation_power(t: np.ndarray, deviation: np.ndarray, f_cut: float) -> float:
    """Mean over links of the power of ``deviation`` (T, M) above ``f_cut`` (Hz), m².

    One-sided periodogram of each column after removing its mean, normalised so that the
    sum over all frequencies equals the column's variance; records must be uniform.
    """
    dt = np.diff(t)
    if not np.allclose(dt, dt[0], rtol=1e-9, atol=0):
        raise ValueError("oscillation_power needs uniformly spaced records")
    n = len(t)
    centred = deviation - deviation.mean(axis=0)
    spectrum = np.abs(np.fft.rfft(centred, axis=0)) ** 2 / n**2
    spectrum[1:(n + 1) // 2] *= 2.0  # one-sided (Nyquist bin of even n counted once)
    freq = np.fft.rfftfreq(n, dt[0])
    return float(spectrum[freq > f_cut].sum(axis=0).mean())


def turn_onset(t: np.ndarray, x0: np.ndarray, y0: np.ndarray, path: Any) -> float:
    r"""Record time at which the head meets the largest curvature step of its path (s).

    With :math:`\kappa_k` the path's curvature at the head's projection at record ``k``
    and :math:`\kappa_{-1} = 0` (the chain starts straight), the turn is the record
    :math:`\arg\max_k |\kappa_k - \kappa_{k-1}|`: ``t[0]`` when a straight chain starts
    on a curve (the article's circle), the S-bend's reversal on the contest's turnaround,
    ``t[0]`` on a line (no turn).

    Parameters
    ----------
    t : ndarray, shape (T,)
        Record times (s).
    x0, y0 : ndarray, shape (T,)
        Head position (m).
    path : flocklab.geometry.paths.Path
        The desired path.
    """
    kappa = path.curvature(path.project(np.stack([x0, y0], axis=-1)))
    steps = np.abs(np.diff(kappa, prepend=0.0))
    return float(t[int(np.argmax(steps))])


def settling_time(t: np.ndarray, signal: np.ndarray, t0: float = 0.0, band: float = 0.05,
                  rel: float = 0.05, tail: float = 0.1) -> float:
    """Time after ``t0`` from which ``signal`` stays within the band around its final value.

    Final value: mean over the last ``tail`` fraction of records; band half-width
    ``max(band, rel * |final|)``. Returns 0 if it never leaves the band after ``t0``.
    """
    after = t >= t0
    ts, sig = t[after], signal[after]
    final = sig[-max(1, int(tail * len(sig))):].mean()
    outside = np.abs(sig - final) > max(band, rel * abs(final))
    if not outside.any():
        return 0.0
    last = np.nonzero(outside)[0][-1]
    return float(ts[min(last + 1, len(ts) - 1)] - t0)
