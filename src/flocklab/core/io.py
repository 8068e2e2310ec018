"""Reading and writing stage files, all through one atomic-write helper.

Every file the package writes (netCDF, JSON, CSV, figures, checkpoints) goes through
:func:`atomic_output`: it is written under a temporary name in the target directory,
flushed to disk and renamed into place, so a job killed mid-write never leaves a file that
looks complete, and a failed write leaves neither a partial file nor a temporary one. The
file gets the permissions of an ordinary new file under the user's umask (0644 under 022),
so collaborators on a shared cluster can read results as usual.

Two netCDF encoders share that helper: :func:`write_netcdf` for :class:`xarray.Dataset`
objects (study-level stages) and :func:`write_netcdf_variables` for plain arrays, which the
simulate path uses so that a simulation job never imports xarray and pandas (≈ 0.6 s of
start-up per job). Both write NETCDF4 with zlib level 4 and ``_FillValue = NaN`` on
floating-point variables, so xarray reads their files alike.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

#: zlib level for data variables (lossless; level 4 is the usual size/speed balance).
COMPRESSION_LEVEL = 4


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success fsync it and rename it to ``path``.

    On any exception the temporary file is removed and ``path`` is left as it was.
    ``suffix`` is appended to the temporary name (writers that choose a format by the
    file ending, such as matplotlib, need the real one).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".part{suffix}",
                                    dir=path.parent)
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        with open(temporary, "rb+") as stream:
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o666 & ~current_umask())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise


def current_umask() -> int:
    """The process's file-mode creation mask (read without changing it where the system
    tells it, as Linux does in ``/proc/self/status``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _encoding(variables: Mapping[str, Any]) -> dict[str, dict]:
    encoding = {}
    for name, variable in variables.items():
        if variable.dtype.kind in "fiu" and variable.size > 1:
            encoding[name] = {"zlib": True, "complevel": COMPRESSION_LEVEL, "shuffle": True}
        if variable.dtype.kind == "f":
            encoding.setdefault(name, {})["_FillValue"] = np.nan
    return encoding


def write_netcdf(ds: xr.Dataset, path: str | os.PathLike) -> Path:
    """Write an xarray dataset to ``path`` atomically; returns the final path."""
    with atomic_output(path) as temporary:
        ds.to_netcdf(temporary, format="NETCDF4", engine="netcdf4",
                     encoding=_encoding(ds.variables))
    return Path(path)


def write_netcdf_variables(variables: Mapping[str, tuple[tuple[str, ...], np.ndarray,
                                                           Mapping[str, Any]]],
                           attrs: Mapping[str, Any], path: str | os.PathLike) -> Path:
    """Write named arrays as a netCDF4 file atomically, without xarray.

    Parameters
    ----------
    variables : mapping
        ``name -> (dims, values, attrs)``; a variable named like its only dimension is
        that dimension's coordinate. Dimension sizes come from the arrays.
    attrs : mapping
        Global attributes (already netCDF-encodable: str, int, float).
    path : path
        Output file.
    """
    import netCDF4

    sizes: dict[str, int] = {}
    for name, (dims, values, _) in variables.items():
        for dim, size in zip(dims, np.shape(values), strict=True):
            if sizes.setdefault(dim, size) != size:
                raise ValueError(f"variable '{name}': dimension '{dim}' has size {size}, "
                                 f"elsewhere {sizes[dim]}")
    arrays = {name: np.asarray(values) for name, (_, values, _) in variables.items()}
    encoding = _encoding(arrays)
    with atomic_output(path) as temporary:
        with netCDF4.Dataset(temporary, "w", format="NETCDF4") as nc:
            for dim, size in sizes.items():
                nc.createDimension(dim, size)
            for name, (dims, _, var_attrs) in variables.items():
                options = encoding.get(name, {})
                fill = options.get("_FillValue", False)
                var = nc.createVariable(name, arrays[name].dtype, dims, fill_value=fill,
                                        zlib=options.get("zlib", False),
                                        complevel=COMPRESSION_LEVEL,
                                        shuffle=options.get("shuffle", False))
                var.setncatts(dict(var_attrs))
                var[...] = arrays[name]
            nc.setncatts(dict(attrs))
    return Path(path)


def open_dataset(path: str | os.PathLike) -> xr.Dataset:
    """Open a stage file fully into memory (the file is closed on return)."""
    import xarray as xr

    with xr.open_dataset(path, engine="netcdf4") as ds:
        return ds.load()


def json_ready(value: Any) -> Any:
    """``value`` with NumPy scalars and arrays as Python objects and NaN/inf as ``None``.

    Strict JSON has no NaN; a missing or undefined number is written as ``null``.
    """
    if isinstance(value, Mapping):
        return {str(key): json_ready(item) for key, item in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [json_ready(item) for item in value]
    if isinstance(value, np.integer | np.bool_):
        return value.item()
    if isinstance(value, float | np.floating):
        value = float(value)
        return value if np.isfinite(value) else None
    return value


def write_json(document: Mapping[str, Any], path: str | os.PathLike) -> Path:
    """Write a strict JSON document atomically (NaN written as ``null``), indented."""
    with atomic_output(path) as temporary:
        with open(temporary, "w", encoding="utf-8") as stream:
            json.dump(json_ready(document), stream, indent=2, allow_nan=False)
            stream.write("\n")
    return Path(path)


def write_rows(rows: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """Write dictionaries with the same keys as a CSV table (atomically)."""
    import csv

    with atomic_output(path) as tmp, open(tmp, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return Path(path)


def write_text(text: str, path: str | os.PathLike, encoding: str = "utf-8") -> Path:
    """Write a text file (CSV, Markdown) atomically (``encoding="utf-8-sig"``: with a
    byte-order mark)."""
    with atomic_output(path) as temporary:
        temporary.write_text(text, encoding=encoding)
    return Path(path)
