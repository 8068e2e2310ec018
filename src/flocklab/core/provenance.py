"""Provenance attributes written into every output file: version and git commit.

No time stamps or host names are written, so the same inputs give the same bytes.
"""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr


def package_version() -> str:
    """Installed version of flocklab (``"unknown"`` when run from an uninstalled tree)."""
    try:
        return metadata.version("flocklab")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def git_commit() -> str:
    """Commit of the flocklab source tree (``"<sha>-dirty"`` with local changes).

    Looked up once per process from the package's own directory, so it names the
    code that ran, not the working directory's repository; ``"unknown"`` outside git.
    """
    here = Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "."],
                               cwd=here, capture_output=True, text=True, timeout=10,
                               check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{sha}-dirty" if dirty else sha


def provenance_attrs() -> dict[str, str]:
    return {"flocklab_version": package_version(), "git_commit": git_commit()}


def with_provenance(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` (changed in place) with :func:`provenance_attrs` appended to its attributes:
    the stages stamp what the pure analysis functions return."""
    ds.attrs.update(provenance_attrs())
    return ds


def netcdf_attr(value: Any) -> Any:
    """Encode a value as a netCDF attribute: dicts/lists as JSON, bools as ints."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, sort_keys=True)
    if value is None:
        return "none"
    return value


def netcdf_attrs(attrs: Mapping[str, Any]) -> dict[str, Any]:
    return {key: netcdf_attr(value) for key, value in attrs.items()}
