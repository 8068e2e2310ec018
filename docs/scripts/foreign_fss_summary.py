"""Write another simulator's run moments as a netCDF file ``flocklab fss`` reads: per-run
``m_mean``, ``m_m2``, ``m_m4`` of |m| on one dimension of (L, T) points and ``replicate``,
with the element count ``N`` as a coordinate.

The runs here are Gaussian records drawn from an exact finite-size scaling form with
T_c = 2.5, 1/nu = 0.8, beta/nu = 0.125 and gamma/nu = 1.75, each size on its own grid
T_c (1 + s L^-0.8) -- what the analysis should find again.
"""

import numpy as np
import xarray as xr

rng = np.random.default_rng(1)
sizes, offsets, replicates, records = np.array([8, 16, 32, 64]), np.linspace(-2, 3, 13), 4, 4000
t_c, inverse_nu, beta_over_nu, gamma_over_nu = 2.5, 0.8, 0.125, 1.75
T = t_c * (1 + offsets[None, :] * sizes[:, None] ** -inverse_nu)
z = (T - t_c) / t_c * sizes[:, None] ** inverse_nu
mean = sizes[:, None] ** -beta_over_nu * 0.3 / (1 + np.exp(z))
sd = np.sqrt(sizes[:, None] ** (gamma_over_nu - 2) * (0.02 * np.exp(-(z - 0.8) ** 2 / 2) + 0.002))
runs = mean[..., None, None] + sd[..., None, None] * rng.normal(size=(*T.shape, replicates,
                                                                     records))
moments = {f"m_{name}": (("L_T", "replicate"), np.mean(runs**k, -1).reshape(-1, replicates))
           for k, name in ((1, "mean"), (2, "m2"), (4, "m4"))}
coords = {"L": ("L_T", np.repeat(sizes, T.shape[1])), "T": ("L_T", T.ravel()),
          "N": ("L_T", np.repeat(sizes**2, T.shape[1]))}
xr.Dataset(moments, coords=coords, attrs={"size_parameter": "N"}).to_netcdf("other_fss.nc")
