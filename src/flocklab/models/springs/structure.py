r"""Mass–spring structures: point masses, springs, and the builders ``chain``, ``cloth``, network.

A :class:`SpringSystem` holds :math:`N` point masses in :math:`D = 2` or 3 dimensions and
:math:`S` springs. Point :math:`p` has mass :math:`m_p > 0`, position :math:`x_p`, velocity
:math:`v_p`, a constant external force :math:`f_p` and may be *fixed* (it never moves).
Spring :math:`s` joins points :math:`i_s < j_s` with rest length :math:`L_s > 0`, stiffness
:math:`k_s \ge 0` and damping :math:`c_s \ge 0` along the spring. With
:math:`d = x_j - x_i`, :math:`l = |d|`, :math:`n = d / l`, the force on :math:`i` is

.. math::  F_i = k_s (l - L_s)\, n + c_s\, [(v_j - v_i)\cdot n]\, n, \qquad F_j = -F_i,

(a stretched spring pulls :math:`i` towards :math:`j`; a separating pair is slowed), plus
:math:`-c\, v_p` (absolute damping, ``absolute_damping``), :math:`m_p g` and :math:`f_p` on
every point. Units are SI (m, kg, s, N).

References
----------
D. Baraff, A. Witkin, "Large steps in cloth simulation", SIGGRAPH 1998 (mass–spring cloth,
implicit Euler). The tongue chain follows the tongue-model article, the cloth the integrator
article (:mod:`flocklab.references`).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from flocklab.core.parameters import ParameterError

#: Standard gravity (m/s^2), used by ``cloth`` and by a document's ``"gravity": true``.
STANDARD_GRAVITY = 9.81
DAMPING_KINDS = ("spring", "absolute")


@dataclass
class SpringSystem:
    """Point masses joined by damped springs (arrays, SI units).

    Attributes
    ----------
    positions, velocities : ndarray, shape (N, D)
        Initial state (m, m/s). Builders start at rest.
    mass : ndarray, shape (N,)
        Point masses (kg), all > 0 (a fixed point's mass is kept but never used).
    fixed : ndarray of bool, shape (N,)
        Points that never move.
    springs : ndarray of int, shape (S, 2)
        Point pairs ``(i, j)`` with ``i < j``.
    rest_length, stiffness, damping : ndarray, shape (S,)
        :math:`L_s` (m), :math:`k_s` (N/m), :math:`c_s` (N s/m, along the spring).
    absolute_damping : float
        :math:`c` of the force :math:`-c v_p` on every point (N s/m).
    gravity : ndarray, shape (D,)
        Acceleration of gravity (m/s^2).
    external_force : ndarray, shape (N, D)
        Constant force on each point (N).
    tip : int
        The point whose position is reported as the "tip" observable.
    name : str
        What built it (``chain``, ``cloth``, ``network``).
    """

    positions: np.ndarray
    velocities: np.ndarray
    mass: np.ndarray
    fixed: np.ndarray
    springs: np.ndarray
    rest_length: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    absolute_damping: float = 0.0
    gravity: np.ndarray = field(default_factory=lambda: np.zeros(2))
    external_force: np.ndarray | None = None
    tip: int = -1
    name: str = "network"

    def __post_init__(self) -> None:
        self.positions = np.array(self.positions, dtype=np.float64, ndmin=2)
        n, dim = self.positions.shape
        self.velocities = (np.zeros((n, dim)) if self.velocities is None
                           else np.array(self.velocities, dtype=np.float64))
        self.mass = np.broadcast_to(np.asarray(self.mass, dtype=np.float64), (n,)).copy()
        self.fixed = np.broadcast_to(np.asarray(self.fixed, dtype=bool), (n,)).copy()
        self.springs = np.array(self.springs, dtype=np.int64).reshape(-1, 2)
        s = self.springs.shape[0]
        for name in ("rest_length", "stiffness", "damping"):
            value = np.broadcast_to(np.asarray(getattr(self, name), dtype=np.float64), (s,))
            setattr(self, name, value.copy())
        self.gravity = np.broadcast_to(np.asarray(self.gravity, dtype=np.float64), (dim,)).copy()
        self.external_force = (np.zeros((n, dim)) if self.external_force is None
                               else np.array(self.external_force, dtype=np.float64))
        self.absolute_damping = float(self.absolute_damping)
        self.tip = int(self.tip) % n if n else 0
        validate(self)

    @property
    def n_points(self) -> int:
        return self.positions.shape[0]

    @property
    def dim(self) -> int:
        return self.positions.shape[1]

    @property
    def inverse_mass(self) -> np.ndarray:
        """:math:`1/m_p` for free points and 0 for fixed ones, shape (N,)."""
        return np.where(self.fixed, 0.0, 1.0 / self.mass)

    @property
    def free_dofs(self) -> np.ndarray:
        """Indices ``p * D + a`` of the coordinates of free points, shape (D * N_free,)."""
        free = np.flatnonzero(~self.fixed)
        return (free[:, None] * self.dim + np.arange(self.dim)).ravel()

    def copy(self) -> SpringSystem:
        return SpringSystem(**{name: _copy(getattr(self, name))
                               for name in self.__dataclass_fields__})


def _copy(value: Any) -> Any:
    return value.copy() if isinstance(value, np.ndarray) else value


def _fail(key: str, message: str) -> None:
    raise ParameterError(key, f"parameter '{key}' {message}")


def validate(system: SpringSystem) -> None:
    """Raise :class:`ParameterError` (naming the offending key) unless ``system`` is valid.

    Checks: D in {2, 3}; finite positions, velocities and forces; masses > 0; at least one
    free point; springs join two different existing points; rest length > 0; stiffness and
    damping >= 0; absolute damping >= 0.
    """
    n, dim = system.positions.shape
    if dim not in (2, 3):
        _fail("dim", f"= {dim} is not allowed: 2 or 3")
    if n < 2:
        _fail("points", f"has {n} point(s): at least 2 are needed")
    for name in ("positions", "velocities", "external_force", "gravity"):
        array = getattr(system, name)
        if not np.all(np.isfinite(array)):
            _fail(name, "must be finite")
        if name != "gravity" and array.shape != (n, dim):
            _fail(name, f"has shape {array.shape}: expected ({n}, {dim})")
    bad = np.flatnonzero(~(system.mass > 0.0) | ~np.isfinite(system.mass))
    if bad.size:
        _fail(f"points[{bad[0]}].mass", f"= {system.mass[bad[0]]!r} must be > 0 (kg)")
    if np.all(system.fixed):
        _fail("points[*].fixed", "is true for every point: at least one point must be free")
    i, j = system.springs.T
    for index, (a, b) in enumerate(zip(i, j, strict=True)):
        for key, point in (("i", a), ("j", b)):
            if not 0 <= point < n:
                _fail(f"springs[{index}].{key}", f"= {point} is not a point: allowed 0..{n - 1}")
        if a == b:
            _fail(f"springs[{index}]", f"joins point {a} to itself")
    checks = (("rest_length", "> 0 (m)", lambda v: v > 0.0),
              ("stiffness", ">= 0 (N/m)", lambda v: v >= 0.0),
              ("damping", ">= 0 (N s/m)", lambda v: v >= 0.0))
    for name, text, ok in checks:
        values = getattr(system, name)
        bad = np.flatnonzero(~ok(values) | ~np.isfinite(values))
        if bad.size:
            _fail(f"springs[{bad[0]}].{name}", f"= {values[bad[0]]!r} must be {text}")
    if not (system.absolute_damping >= 0.0 and math.isfinite(system.absolute_damping)):
        _fail("absolute_damping", f"= {system.absolute_damping!r} must be >= 0 (N s/m)")
    system.springs = np.sort(system.springs, axis=1)


# --------------------------------------------------------------------------- builders


def _damping_split(damping: float, damping_kind: str) -> tuple[float, float]:
    """(spring damping, absolute damping) for one damping value and its reading."""
    if damping_kind not in DAMPING_KINDS:
        _fail("damping_kind", f"= {damping_kind!r} is not allowed: one of spring, absolute")
    if not damping >= 0.0:
        _fail("damping", f"= {damping!r} must be >= 0 (N s/m)")
    return (damping, 0.0) if damping_kind == "spring" else (0.0, damping)


def _check_scalars(**checks: tuple[float, float | None, str]) -> None:
    """``name=(value, zero_allowed_value, text)``: value must be > 0 (or >= 0 if given 0.0)."""
    for key, (value, inclusive, text) in checks.items():
        ok = value >= 0.0 if inclusive is not None else value > 0.0
        if isinstance(value, bool) or not isinstance(value, int | float) or not ok \
                or not math.isfinite(value):
            _fail(key, f"= {value!r} must be {text}")


def chain(n_points: int = 6, stiffness: float = 50.0, damping: float = 0.5,
          damping_kind: str = "spring", rest_length: float = 0.05, mass: float = 0.1,
          tip_force: Sequence[float] = (0.0, 1.0), gravity: Sequence[float] | None = None,
          ) -> SpringSystem:
    """The tongue of the tongue-model article: a straight chain along +x, root (point 0)
    fixed, tip forced.

    Defaults are the article's (6 points, k = 50 N/m, d = 0.5 N s/m, rest length 0.05 m, 1 N
    upward on the tip); the point mass, which the article does not give, defaults to 0.1 kg.
    ``damping_kind="spring"`` reads d as damping along each spring on the relative velocity
    (the article's ``Spring(i, i+1, 0.05, 50.0, 0.5)``), ``"absolute"`` as :math:`-d\\,v` on
    every point (its prose, "velocity damping"). The dimension is ``len(tip_force)``.

    Returns
    -------
    SpringSystem
        At rest with every spring at its rest length; ``tip`` is the last point.
    """
    if isinstance(n_points, bool) or not isinstance(n_points, int | np.integer) or n_points < 2:
        _fail("n_points", f"= {n_points!r} must be an integer >= 2")
    force = np.asarray(tip_force, dtype=np.float64)
    if force.ndim != 1 or force.size not in (2, 3):
        _fail("tip_force", f"= {list(np.ravel(force))} must have 2 or 3 components")
    dim = force.size
    _check_scalars(stiffness=(stiffness, 0.0, ">= 0 (N/m)"), mass=(mass, None, "> 0 (kg)"),
                   rest_length=(rest_length, None, "> 0 (m)"))
    c_spring, c_absolute = _damping_split(damping, damping_kind)
    positions = np.zeros((n_points, dim))
    positions[:, 0] = rest_length * np.arange(n_points)
    external = np.zeros((n_points, dim))
    external[-1] = force
    fixed = np.zeros(n_points, dtype=bool)
    fixed[0] = True
    springs = np.column_stack([np.arange(n_points - 1), np.arange(1, n_points)])
    return SpringSystem(positions, None, np.full(n_points, float(mass)), fixed, springs,
                        rest_length, stiffness, c_spring, c_absolute,
                        np.zeros(dim) if gravity is None else gravity, external, n_points - 1,
                        "chain")


def _grid_springs(nx: int, ny: int, bending: bool) -> tuple[np.ndarray, np.ndarray]:
    """Structural, shear (and bending) pairs of an nx x ny grid; kinds 0, 1, 2."""
    index = np.arange(nx * ny).reshape(ny, nx)
    pairs = [(index[:, :-1], index[:, 1:], 0), (index[:-1, :], index[1:, :], 0),
             (index[:-1, :-1], index[1:, 1:], 1), (index[:-1, 1:], index[1:, :-1], 1)]
    if bending:
        pairs += [(index[:, :-2], index[:, 2:], 2), (index[:-2, :], index[2:, :], 2)]
    springs = np.concatenate([np.column_stack([a.ravel(), b.ravel()]) for a, b, _ in pairs])
    kinds = np.concatenate([np.full(a.size, kind) for a, _, kind in pairs])
    return springs, kinds


def cloth(nx: int = 10, ny: int = 10, spacing: float = 0.1, mass: float = 0.01,
          stiffness: float = 1000.0, shear_stiffness: float | None = None,
          bending_stiffness: float = 0.0, damping: float = 0.05, damping_kind: str = "spring",
          pin: str = "corners", gravity: float = STANDARD_GRAVITY) -> SpringSystem:
    """A hanging 3-D cloth: an nx x ny grid in the vertical x–z plane, top row at z = 0.

    Structural springs join grid neighbours, shear springs the diagonals (stiffness
    ``shear_stiffness``, default ``stiffness``), bending springs points two apart (only when
    ``bending_stiffness > 0``); rest lengths are the initial distances. ``pin="corners"``
    fixes the two top corners, ``"edge"`` the whole top row. Gravity is :math:`-g\\,e_z`.
    The defaults (10 x 10 = 100 points, 342 springs, 0.01 kg points, 1000 N/m) are this
    project's choice for the integrator article's unspecified "100-particle cloth". ``tip``
    is the bottom corner below the first pin.
    """
    for key, value in (("nx", nx), ("ny", ny)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 2:
            _fail(key, f"= {value!r} must be an integer >= 2")
    if pin not in ("corners", "edge"):
        _fail("pin", f"= {pin!r} is not allowed: one of corners, edge")
    _check_scalars(spacing=(spacing, None, "> 0 (m)"), mass=(mass, None, "> 0 (kg)"),
                   stiffness=(stiffness, 0.0, ">= 0 (N/m)"),
                   bending_stiffness=(bending_stiffness, 0.0, ">= 0 (N/m)"))
    c_spring, c_absolute = _damping_split(damping, damping_kind)
    gx, gz = np.meshgrid(np.arange(nx) * spacing, -np.arange(ny) * spacing)
    positions = np.column_stack([gx.ravel(), np.zeros(nx * ny), gz.ravel()])
    springs, kinds = _grid_springs(nx, ny, bending_stiffness > 0.0)
    shear = stiffness if shear_stiffness is None else shear_stiffness
    k = np.array([stiffness, shear, bending_stiffness])[kinds]
    rest = np.linalg.norm(positions[springs[:, 1]] - positions[springs[:, 0]], axis=1)
    fixed = np.zeros(nx * ny, dtype=bool)
    fixed[[0, nx - 1] if pin == "corners" else slice(0, nx)] = True
    return SpringSystem(positions, None, np.full(nx * ny, float(mass)), fixed, springs, rest,
                        k, c_spring, c_absolute, [0.0, 0.0, -gravity], None,
                        (ny - 1) * nx, "cloth")


# --------------------------------------------------------------------------- documents


def _field(record: Mapping[str, Any], key: str, where: str, default: Any = None) -> Any:
    if key in record:
        return record[key]
    if default is None:
        _fail(f"{where}.{key}", "is missing")
    return default


def from_document(document: Mapping[str, Any]) -> SpringSystem:
    """A network from a JSON-like document, validated (errors name the key).

    Schema::

        {"points": [{"position": [x, y(, z)], "mass": m, "fixed": false,
                     "velocity": [...], "force": [...]}, ...],
         "springs": [{"i": 0, "j": 1, "stiffness": k, "rest_length": L, "damping": c}, ...],
         "gravity": [gx, gy(, gz)], "absolute_damping": c, "tip": index}

    ``rest_length`` defaults to the initial distance, ``damping``, ``velocity``, ``force``,
    ``gravity``, ``absolute_damping`` to zero, ``fixed`` to false, ``tip`` to the last point.
    """
    points = document.get("points")
    if not isinstance(points, Sequence) or len(points) < 2:
        _fail("points", "must be a list of at least 2 points")
    positions = [_field(p, "position", f"points[{n}]") for n, p in enumerate(points)]
    dim = len(positions[0])
    zero = [0.0] * dim
    springs_in = document.get("springs")
    if not isinstance(springs_in, Sequence) or not springs_in:
        _fail("springs", "must be a non-empty list of springs")
    pairs = [(_field(s, "i", f"springs[{n}]"), _field(s, "j", f"springs[{n}]"))
             for n, s in enumerate(springs_in)]
    for n, (a, b) in enumerate(pairs):
        for key, point in (("i", a), ("j", b)):
            if isinstance(point, bool) or not isinstance(point, int) \
                    or not 0 <= point < len(points):
                _fail(f"springs[{n}].{key}",
                      f"= {point!r} is not a point: allowed 0..{len(points) - 1}")
    xyz = np.asarray(positions, dtype=np.float64)
    rest = [s.get("rest_length", float(np.linalg.norm(xyz[b] - xyz[a])))
            for s, (a, b) in zip(springs_in, pairs, strict=True)]
    return SpringSystem(
        xyz, [p.get("velocity", zero) for p in points],
        [_field(p, "mass", f"points[{n}]") for n, p in enumerate(points)],
        [bool(p.get("fixed", False)) for p in points], pairs, rest,
        [_field(s, "stiffness", f"springs[{n}]") for n, s in enumerate(springs_in)],
        [s.get("damping", 0.0) for s in springs_in], document.get("absolute_damping", 0.0),
        document.get("gravity", zero), [p.get("force", zero) for p in points],
        document.get("tip", len(points) - 1), "network")


def to_document(system: SpringSystem) -> dict[str, Any]:
    """The JSON document of ``system`` (inverse of :func:`from_document`)."""
    return {
        "points": [{"position": system.positions[p].tolist(), "mass": float(system.mass[p]),
                    "fixed": bool(system.fixed[p]), "velocity": system.velocities[p].tolist(),
                    "force": system.external_force[p].tolist()} for p in range(system.n_points)],
        "springs": [{"i": int(a), "j": int(b), "rest_length": float(system.rest_length[s]),
                     "stiffness": float(system.stiffness[s]), "damping": float(system.damping[s])}
                    for s, (a, b) in enumerate(system.springs)],
        "gravity": system.gravity.tolist(), "absolute_damping": system.absolute_damping,
        "tip": system.tip}


def load_network(path: str | os.PathLike) -> SpringSystem:
    """Read a network from ``.json`` (schema of :func:`from_document`) or netCDF.

    The netCDF layout: ``position (point, dim)``, ``mass``/``fixed`` ``(point)``, optional
    ``velocity``/``force (point, dim)``; ``spring_i``, ``spring_j``, ``stiffness``, optional
    ``rest_length``/``damping`` ``(spring)``; optional attributes ``gravity``,
    ``absolute_damping``, ``tip``.
    """
    path = Path(path)
    if path.suffix.lower() == ".json":
        with open(path, encoding="utf-8") as stream:
            return from_document(json.load(stream))
    import xarray as xr

    with xr.open_dataset(path) as ds:
        ds = ds.load()
    n = ds["position"].shape[0]
    points = [{"position": ds["position"].values[p].tolist(), "mass": float(ds["mass"][p]),
               "fixed": bool(ds["fixed"][p]) if "fixed" in ds else False,
               **{key: ds[key].values[p].tolist() for key in ("velocity", "force") if key in ds}}
              for p in range(n)]
    springs = [{"i": int(ds["spring_i"][s]), "j": int(ds["spring_j"][s]),
                **{key: float(ds[key][s]) for key in ("stiffness", "rest_length", "damping")
                   if key in ds}} for s in range(ds["spring_i"].size)]
    document = {"points": points, "springs": springs,
                **{key: ds.attrs[key] for key in ("absolute_damping", "tip") if key in ds.attrs}}
    if "gravity" in ds.attrs:
        document["gravity"] = np.atleast_1d(ds.attrs["gravity"]).tolist()
    return from_document(document)
