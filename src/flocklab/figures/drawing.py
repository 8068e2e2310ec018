"""How a model's runs are drawn: the optional drawing protocol.

A model names its drawing in :attr:`flocklab.core.model.Model.drawing`, either a
:class:`Drawing` subclass or its ``"module:Class"`` path, so that looking the model up
imports no matplotlib. Snapshot figures and animations call :func:`drawing_of` and then
:meth:`Drawing.projection` (the axes a run needs) and :meth:`Drawing.draw` (one frame).

Subclass contract: override :meth:`draw`; override :meth:`projection` for 3-D runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr

    from flocklab.core.model import Model


class Drawing:
    """Draws the frames of a model's runs (default: entity positions ``x``, ``y`` as points)."""

    def projection(self, run: xr.Dataset) -> str | None:
        """Matplotlib projection of the axes :meth:`draw` needs for ``run``; ``None`` for
        ordinary 2-D axes, ``"3d"`` for :class:`mpl_toolkits.mplot3d.axes3d.Axes3D`."""
        return None

    def draw(self, ax: Any, run: xr.Dataset, frame: int, trail: int = 0, label: str = ""
             ) -> None:
        """Draw frame ``frame`` of ``run`` on ``ax``; ``trail`` asks for up to that many
        preceding frames as trails, ``label`` is the panel's letter or name."""
        ax.plot(run["x"].values[frame], run["y"].values[frame], ".", ms=3)
        ax.set_aspect("equal")
        ax.set_title(f"{label} t = {run['frame'].values[frame]:g}".strip(), fontsize=9)


def drawing_of(model: Model) -> Drawing:
    """The :class:`Drawing` of ``model`` (its declared one, or the default)."""
    declared = model.drawing
    if declared is None:
        return Drawing()
    if isinstance(declared, str):
        module, _, name = declared.partition(":")
        declared = getattr(importlib.import_module(module), name)
    return declared()
