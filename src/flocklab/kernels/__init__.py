"""Compiled kernels (numba): pure functions on arrays, no I/O, no configuration."""
