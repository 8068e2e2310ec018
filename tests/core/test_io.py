"""The one writer: atomic outputs that respect the user's umask."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from flocklab.core.io import atomic_output, write_json, write_netcdf_variables


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_outputs_have_the_permissions_of_a_new_file_under_the_umask(tmp_path, mask, mode):
    old = os.umask(mask)
    try:
        with atomic_output(tmp_path / "plain.txt") as temporary:
            temporary.write_text("x")
        write_json({"a": 1}, tmp_path / "doc.json")
        write_netcdf_variables({"v": (("n",), np.arange(3.0), {})}, {}, tmp_path / "run.nc")
    finally:
        os.umask(old)
    for name in ("plain.txt", "doc.json", "run.nc"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == mode, name


def test_a_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError), atomic_output(tmp_path / "out.nc") as temporary:
        temporary.write_bytes(b"partial")
        raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []
