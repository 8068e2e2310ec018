r"""Head guidance: the desired velocity :math:`v_\mathrm{des}(t, p_1)` of the dragon's head.

The path itself comes from :mod:`flocklab.geometry.paths` (arc-length parametrised, with tangent,
curvature and nearest-point projection); this module only turns a path into a desired
velocity and its Jacobian with respect to the head position, which the implicit solvers
need.

Two guidance laws (``guidance`` parameter):

``"tangent"`` (the article's, generalised)
    :math:`v_\mathrm{des} = U\,T(s^*) + g\,[P(s^*) - p]` with :math:`s^* = \arg\min_s
    |P(s) - p|` the head's projection on the path. For a counter-clockwise circle about
    the origin and ``g = 0`` this is exactly the article's ``circular_path_velocity``:
    the tangent of the circle at the head's *radial projection*, magnitude :math:`R\omega`,
    no dependence on :math:`t` and no radial correction. With :math:`p = P(s^*) +
    \varepsilon N(s^*)`, :math:`\partial s^*/\partial p = T^\top/(1 - \kappa\varepsilon)`
    and :math:`\partial T/\partial s = \kappa N`, so

    .. math:: \frac{\partial v_\mathrm{des}}{\partial p} =
              \frac{U\kappa\,N T^\top + g\,T T^\top}{1 - \kappa\varepsilon} - g I.

``"reference"``
    A reference point moves along the path at speed :math:`U` from its start:
    :math:`s_\mathrm{ref}(t) = U t`, :math:`v_\mathrm{des} = U\,T(s_\mathrm{ref}) +
    g\,[P(s_\mathrm{ref}) - p]`, :math:`\partial v_\mathrm{des}/\partial p = -g I`.

Reference: the bench-dragon article (:data:`flocklab.references.BENCH_DRAGON_ARTICLE`,
section 4.3), and :mod:`flocklab.geometry.paths` for the geometry.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from flocklab.core.parameters import ParameterError
from flocklab.geometry import paths

GUIDANCE_LAWS = ("tangent", "reference")
#: Path kinds and the keys each accepts (required keys have no default).
PATH_KEYS: dict[str, dict[str, Any]] = {
    "line": {"speed": None, "direction": [1.0, 0.0]},
    "circle": {"radius": None, "angular_speed": None},
    "s_curve": {"radius": None, "speed": None},
    "figure_eight": {"radius": None, "speed": None},
    "spiral": {"pitch": None, "r_start": None, "r_end": None, "speed": None},
    "turnaround": {"pitch": 1.7, "turn_radius": 4.5, "ratio": 2.0, "speed": 1.0},
}
#: Smallest |1 - kappa * eps| used in the projection Jacobian (the head at a centre of
#: curvature has no unique projection; there the Jacobian term is dropped).
SINGULAR = 1e-6


class HeadGuide(Protocol):
    """What the dynamics needs from a guidance law."""

    speed: float

    def desired_velocity(self, t: float, p: np.ndarray) -> np.ndarray:
        """Desired head velocity, shape (2,), at time ``t`` (s) and head position ``p`` (m)."""

    def jacobian(self, t: float, p: np.ndarray) -> np.ndarray:
        """:math:`\\partial v_\\mathrm{des} / \\partial p`, shape (2, 2) (1/s)."""

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Distance (m) of points (..., 2) to the path."""


@dataclass(frozen=True)
class TangentGuide:
    """Tangent at the head's projection on ``path`` at ``speed``, plus ``gain`` times the
    offset to the path (see module docstring).

    A full circle and a line are projected in closed form (radial projection; orthogonal
    projection on the *infinite* line); other paths by
    :func:`~flocklab.geometry.compiled.nearest_frame` (the algorithm of
    ``path.project`` at scalar cost). The frames of the last few head positions asked for
    are cached (the right-hand side and the Jacobian are evaluated at the same state); the
    cache only stores values of a function of ``p``, so results do not depend on it.
    """

    path: paths.Path
    speed: float
    gain: float = 0.0
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def frame_at(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """Nearest path point, unit tangent there and signed curvature."""
        return self._frame(p)[:3]

    def _frame(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, bool]:
        key = (float(p[0]), float(p[1]))
        hit = self._cache.get(key)
        if hit is None:
            if len(self._cache) >= 4:  # present and delayed head, look-ahead: a few states
                self._cache.clear()
            hit = self._cache[key] = self._project(p)
        return hit

    def _project(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, bool]:
        path = self.path
        inner = path.path if isinstance(path, paths.Periodic) else None
        if isinstance(inner, paths.Arc) and abs(abs(inner.sweep) - paths.TWO_PI) < 1e-12:
            sign = 1.0 if inner.sweep > 0 else -1.0
            rx, ry = p[0] - inner.center[0], p[1] - inner.center[1]
            norm = math.hypot(rx, ry)
            ux, uy = (rx / norm, ry / norm) if norm > 0 else (1.0, 0.0)
            point = np.array([inner.center[0] + inner.radius * ux,
                              inner.center[1] + inner.radius * uy])
            return point, np.array([-sign * uy, sign * ux]), sign / inner.radius, False
        if isinstance(path, paths.Line):
            e = np.asarray(path.direction)
            a = np.asarray(path.start_point)
            return a + float((p - a) @ e) * e, e.copy(), 0.0, False
        from flocklab.geometry.compiled import nearest_frame

        return nearest_frame(path, p)

    def desired_velocity(self, t: float, p: np.ndarray) -> np.ndarray:
        point, tangent, _, _ = self._frame(p)
        return self.speed * tangent + self.gain * (point - p)

    def jacobian(self, t: float, p: np.ndarray) -> np.ndarray:
        """See the module docstring; at an end point of an open path (projection clamped)
        only the ``-g I`` term remains."""
        point, tangent, kappa, clamped = self._frame(p)
        if clamped:
            return -self.gain * np.eye(2)
        normal = np.array([-tangent[1], tangent[0]])
        denom = 1.0 - kappa * float((p - point) @ normal)
        jac = -self.gain * np.eye(2)
        if abs(denom) > SINGULAR:
            jac += (self.speed * kappa * np.outer(normal, tangent)
                    + self.gain * np.outer(tangent, tangent)) / denom
        return jac

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Distance (m) of points (..., 2) to the path (infinite for a line)."""
        points = np.asarray(points, dtype=float)
        if isinstance(self.path, paths.Line):
            e = np.asarray(self.path.direction)
            rel = points - np.asarray(self.path.start_point)
            return np.abs(rel[..., 0] * e[1] - rel[..., 1] * e[0])
        return self.path.distance(points)


@dataclass(frozen=True)
class ReferenceGuide:
    """A reference point moving along ``path`` at ``speed`` from ``s = 0`` at ``t = 0``.

    The path frame at the last few times asked for is cached (implicit solvers evaluate
    the right-hand side repeatedly at the same stage times; a spiral's frame costs a
    Newton solve in :mod:`flocklab.geometry.paths`). The cache only stores values of a function of
    ``t``, so results do not depend on it.
    """

    path: paths.Path
    speed: float
    gain: float = 0.0
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def frame_at_time(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Reference point and unit tangent at time ``t``."""
        hit = self._cache.get(t)
        if hit is None:
            if len(self._cache) >= 8:
                self._cache.clear()
            hit = self.path.frame(self.speed * t)
            self._cache[t] = hit
        return hit

    def desired_velocity(self, t: float, p: np.ndarray) -> np.ndarray:
        point, tangent = self.frame_at_time(t)
        return self.speed * tangent + self.gain * (point - p)

    def jacobian(self, t: float, p: np.ndarray) -> np.ndarray:
        return -self.gain * np.eye(2)

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Distance (m) of points (..., 2) to the path."""
        return TangentGuide(self.path, self.speed).distance(points)


def check_path_spec(spec: Any, name: str = "path") -> dict[str, Any]:
    """Validate a path specification; returns it with defaults filled.

    Raises
    ------
    ParameterError
        Naming the element, e.g. ``path.radius``, with the allowed values.
    """
    if not isinstance(spec, Mapping) or "kind" not in spec:
        raise ParameterError(name, f"parameter '{name}' must be a mapping with a 'kind', "
                                   f"one of {', '.join(PATH_KEYS)}")
    kind = spec["kind"]
    if kind not in PATH_KEYS:
        raise ParameterError(f"{name}.kind", f"parameter '{name}.kind' = {kind!r} is not "
                                             f"allowed: one of {', '.join(PATH_KEYS)}")
    keys = PATH_KEYS[kind]
    unknown = sorted(set(spec) - {"kind", *keys})
    if unknown:
        raise ParameterError(f"{name}.{unknown[0]}", f"parameter '{name}.{unknown[0]}' is "
                             f"not a key of path kind '{kind}': allowed {', '.join(keys)}")
    out: dict[str, Any] = {"kind": kind}
    for key, default in keys.items():
        value = spec.get(key, default)
        if value is None:
            raise ParameterError(f"{name}.{key}", f"path kind '{kind}' needs '{name}.{key}'")
        out[key] = _check_path_value(f"{name}.{key}", key, value)
    return out


def _check_path_value(full: str, key: str, value: Any) -> Any:
    if key == "direction":
        ok = (isinstance(value, list | tuple) and len(value) == 2
              and all(isinstance(v, int | float) and math.isfinite(v) for v in value)
              and math.hypot(*value) > 0)
        if not ok:
            raise ParameterError(full, f"parameter '{full}' = {value!r} must be a non-zero "
                                       f"pair of numbers")
        return [float(v) for v in value]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ParameterError(full, f"parameter '{full}' = {value!r} must be a finite number")
    if key == "angular_speed":
        if value == 0:
            raise ParameterError(full, f"parameter '{full}' = 0 is out of range: allowed is "
                                       f"a non-zero number (rad/s; < 0 is clockwise)")
    elif key == "r_start" or key == "r_end":
        if value < 0:
            raise ParameterError(full, f"parameter '{full}' = {value!r} is out of range: "
                                       f"allowed is a number >= 0 (m)")
    elif not value > 0:
        raise ParameterError(full, f"parameter '{full}' = {value!r} is out of range: "
                                   f"allowed is a number > 0")
    return float(value)


def build_path(spec: Mapping[str, Any]) -> tuple[paths.Path, float]:
    """The :class:`flocklab.geometry.paths.Path` of a checked spec and the head's desired
    speed (m/s)."""
    kind = spec["kind"]
    if kind == "line":
        return paths.line_path(direction=tuple(spec["direction"])), spec["speed"]
    if kind == "circle":
        omega = spec["angular_speed"]
        return (paths.circle_path(spec["radius"], clockwise=omega < 0),
                spec["radius"] * abs(omega))
    if kind == "s_curve":
        return paths.s_curve_path(spec["radius"]), spec["speed"]
    if kind == "figure_eight":
        return paths.figure_eight_path(spec["radius"]), spec["speed"]
    if kind == "spiral":
        return paths.spiral_path(spec["pitch"], spec["r_start"], spec["r_end"]), spec["speed"]
    turn = paths.turnaround_path(spec["pitch"], spec["turn_radius"], spec["ratio"])
    return turn.path, spec["speed"]


def make_guide(spec: Mapping[str, Any], guidance: str = "tangent", gain: float = 0.0
               ) -> TangentGuide | ReferenceGuide:
    """Guidance law ``guidance`` on the path of ``spec`` (checked) with cross-track ``gain``."""
    if guidance not in GUIDANCE_LAWS:
        raise ParameterError("guidance", f"parameter 'guidance' = {guidance!r} is not "
                                         f"allowed: one of {', '.join(GUIDANCE_LAWS)}")
    path, speed = build_path(check_path_spec(spec))
    cls = TangentGuide if guidance == "tangent" else ReferenceGuide
    return cls(path, float(speed), float(gain))
