"""Reading and writing stage files (netCDF via xarray).

Files are written to a temporary name in the target directory and renamed into
place, so a job killed mid-write never leaves a file that looks complete.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

#: zlib level for data variables (lossless; level 4 is the usual size/speed balance).
COMPRESSION_LEVEL = 4


def _encoding(ds: xr.Dataset) -> dict[str, dict]:
    encoding = {}
    for name, variable in ds.variables.items():
        if variable.dtype.kind in "fiu" and variable.size > 1:
            encoding[name] = {"zlib": True, "complevel": COMPRESSION_LEVEL, "shuffle": True}
        if variable.dtype.kind == "f":
            encoding.setdefault(name, {})["_FillValue"] = np.nan
    return encoding


def write_netcdf(ds: xr.Dataset, path: str | os.PathLike) -> Path:
    """Write ``ds`` to ``path`` atomically (temporary file, fsync, rename).

    Returns the final path.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(handle)
    try:
        ds.to_netcdf(temporary, format="NETCDF4", engine="netcdf4", encoding=_encoding(ds))
        with open(temporary, "rb+") as stream:
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return path


def open_dataset(path: str | os.PathLike) -> xr.Dataset:
    """Open a stage file fully into memory (the file is closed on return)."""
    with xr.open_dataset(path, engine="netcdf4") as ds:
        return ds.load()


def _json_default(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    raise TypeError(type(value))


def write_json(document: Mapping[str, Any], path: str | os.PathLike) -> None:
    """Write a JSON document atomically (temporary file and rename), indented."""
    temporary = f"{path}.part"
    with open(temporary, "w", encoding="utf-8") as stream:
        json.dump(document, stream, indent=2, default=_json_default, allow_nan=True)
        stream.write("\n")
    os.replace(temporary, path)
