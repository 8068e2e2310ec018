r"""Small vector kernels of the agent models (numba, inlined): headings, turns, noise and
periodic images, used by the zonal and force-based models.

Headings are unit 3-vectors; in 2-D their ``z`` component is 0 and every operation below
keeps it 0, so one code path serves both dimensions.

* :func:`turn_toward` — rotate heading ``e`` toward the desired unit vector ``d`` by at most
  ``max_angle`` in the plane spanned by the two (Couzin et al. 2002: "if the angle between
  :math:`v_i(t)` and :math:`d_i(t+\tau)` is less than :math:`\theta\tau` the individual takes the
  desired direction, otherwise it rotates :math:`\theta\tau` toward it").
* :func:`rotate_in_plane` — ``cos(a) e + sin(a) w`` renormalised, the rotation both of the
  next two end with.
* :func:`rotate_noise` — rotate a unit vector by the angle :math:`\psi \sim N(0, \sigma^2)`
  about an axis perpendicular to it. In 2-D the axis is ``z`` (the sign of :math:`\psi` gives
  the sense). In 3-D the axis is :math:`\cos\phi\,\mathbf{a} + \sin\phi\,\mathbf{b}` with
  :math:`\phi \sim U[0, 2\pi)` and ``(a, b)`` an orthonormal basis of the plane perpendicular
  to the vector, i.e. the new direction is :math:`\cos\psi\,\mathbf{d} + \sin\psi\,\mathbf{u}`,
  ``u`` uniform on the circle perpendicular to ``d``: the angle between old and new direction
  is :math:`|\psi|` (half-normal), the azimuth uniform — a wrapped Gaussian on the sphere
  centred on ``d``.
* Gaussian numbers come from two counter-based uniforms (Box–Muller), the azimuth from a
  third, each a pure function of ``(key, step, agent, component)``:
  counter :math:`= 4(tN + i) + c`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from flocklab.core.random import counter_uniform

TWO_PI = 2.0 * math.pi
@njit(cache=True, inline="always")
def noise_counter(step, n, agent, component):  # pragma: no cover
    """Counter of component ``c`` (0..3) of agent ``i`` at step ``t``: ``4 (t N + i) + c``."""
    return (np.uint64(step) * np.uint64(n) + np.uint64(agent)) * np.uint64(4) + np.uint64(
        component)


@njit(cache=True, inline="always")
def gaussian(key, step, n, agent):  # pragma: no cover
    """Standard normal number of (key, step, agent) by Box–Muller on components 0 and 1."""
    u1 = counter_uniform(key, noise_counter(step, n, agent, 0))
    u2 = counter_uniform(key, noise_counter(step, n, agent, 1))
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(TWO_PI * u2)


@njit(cache=True, inline="always")
def perpendicular(dx, dy, dz, dim):  # pragma: no cover
    """A unit vector perpendicular to the unit vector d (in the xy-plane when dim == 2)."""
    if dim == 2:
        return -dy, dx, 0.0
    # cross d with the coordinate axis least aligned with it
    if abs(dx) <= abs(dy) and abs(dx) <= abs(dz):
        px, py, pz = 0.0, -dz, dy
    elif abs(dy) <= abs(dz):
        px, py, pz = dz, 0.0, -dx
    else:
        px, py, pz = -dy, dx, 0.0
    norm = math.sqrt(px * px + py * py + pz * pz)
    return px / norm, py / norm, pz / norm


@njit(cache=True, inline="always")
def unit(x, y, z):  # pragma: no cover
    """(x, y, z) divided by its length, or the zero vector when it is zero."""
    norm = math.sqrt(x * x + y * y + z * z)
    if norm > 0.0:
        return x / norm, y / norm, z / norm
    return 0.0, 0.0, 0.0


@njit(cache=True, inline="always")
def rotate_in_plane(ex, ey, ez, wx, wy, wz, angle):  # pragma: no cover
    """Unit vector cos(angle) e + sin(angle) w, renormalised: unit e rotated by ``angle`` in
    the plane it spans with the unit vector w perpendicular to it (2-D and 3-D alike)."""
    c = math.cos(angle)
    s = math.sin(angle)
    nx = c * ex + s * wx
    ny = c * ey + s * wy
    nz = c * ez + s * wz
    norm = math.sqrt(nx * nx + ny * ny + nz * nz)
    return nx / norm, ny / norm, nz / norm


@njit(cache=True, inline="always")
def rotate_noise(dx, dy, dz, psi, phi, dim):  # pragma: no cover
    """Rotate unit d by angle psi about the perpendicular axis of azimuth phi (see module)."""
    ax, ay, az = perpendicular(dx, dy, dz, dim)
    if dim == 3:
        # b = d x a completes the basis of the plane perpendicular to d
        bx = dy * az - dz * ay
        by = dz * ax - dx * az
        bz = dx * ay - dy * ax
        c = math.cos(phi)
        s = math.sin(phi)
        ax, ay, az = c * ax + s * bx, c * ay + s * by, c * az + s * bz
    return rotate_in_plane(dx, dy, dz, ax, ay, az, psi)


@njit(cache=True, inline="always")
def turn_toward(ex, ey, ez, dx, dy, dz, max_angle, dim):  # pragma: no cover
    """Heading after turning from unit e toward unit d by at most ``max_angle`` (radians)."""
    cos_b = ex * dx + ey * dy + ez * dz
    if cos_b > 1.0:
        cos_b = 1.0
    elif cos_b < -1.0:
        cos_b = -1.0
    if math.acos(cos_b) <= max_angle:
        return dx, dy, dz
    # unit component of d perpendicular to e
    wx = dx - cos_b * ex
    wy = dy - cos_b * ey
    wz = dz - cos_b * ez
    norm = math.sqrt(wx * wx + wy * wy + wz * wz)
    if norm < 1e-12:  # d = -e: any perpendicular turn is as good
        wx, wy, wz = perpendicular(ex, ey, ez, dim)
    else:
        wx /= norm
        wy /= norm
        wz /= norm
    return rotate_in_plane(ex, ey, ez, wx, wy, wz, max_angle)


@njit(cache=True, inline="always")
def wrap_periodic(x, box):  # pragma: no cover
    """Coordinate ``x`` wrapped into ``[0, box)`` (``box = 0``: open space, unchanged); a
    value that rounds to ``box`` becomes 0."""
    if box > 0.0:
        x -= box * math.floor(x / box)
        if x >= box:
            x = 0.0
    return x


@njit(cache=True, inline="always")
def min_image(dx, box):  # pragma: no cover
    """Minimum-image coordinate difference (``box = 0``: open space)."""
    if box > 0.0:
        return dx - box * np.rint(dx / box)
    return dx
