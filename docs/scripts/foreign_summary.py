"""Write another simulator's order-parameter means as a netCDF file ``flocklab fit`` reads:
per-replicate ``va_mean`` and ``va_sem`` on (``eta``, ``replicate``)."""

import numpy as np
import xarray as xr

rng = np.random.default_rng(0)
eta = np.linspace(0.5, 5.0, 19)
replicates = np.arange(4)
eta_c, beta = 3.8, 0.45  # what the fit should find again (0.03: the finite-size floor)
exact = np.where(eta < eta_c, np.clip(1.0 - eta / eta_c, 0.0, None) ** beta, 0.0) + 0.03
sem = np.full((eta.size, replicates.size), 0.005)
mean = exact[:, None] + sem * rng.standard_normal(sem.shape)
xr.Dataset({"va_mean": (("eta", "replicate"), mean), "va_sem": (("eta", "replicate"), sem)},
           coords={"eta": eta, "replicate": replicates}).to_netcdf("other_simulator.nc")
