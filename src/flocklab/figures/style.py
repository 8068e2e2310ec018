"""One figure style for every figure kind and every model's drawing.

* the size follows the panel count (:data:`PANEL` per panel, square panels for maps);
* constrained layout, so titles, labels, colour bars and legends never leave the canvas;
* titles wrapped to the figure's width (:func:`wrap` never breaks inside ``$...$``) and cut
  at :data:`MAX_TITLE` characters;
* legends outside the data (:func:`legend`);
* notes under the panels (claims and their verdicts) in a band of their own
  (:func:`new_figure` with ``notes``).

:func:`flocklab.figures.layout.layout_problems` checks the result: no text outside the
canvas, no two texts over one another.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import matplotlib as mpl

#: Width and height (inches) of one ordinary panel, and of one square (map) panel.
PANEL = (3.3, 2.6)
SQUARE = (3.0, 3.0)
#: Longest title shown (characters); longer ones are cut with an ellipsis.
MAX_TITLE = 140
#: Font sizes (points) and defaults applied to every figure.
RC = {"font.size": 8.5, "axes.titlesize": 8.5, "axes.labelsize": 8.5,
      "xtick.labelsize": 7.5, "ytick.labelsize": 7.5, "legend.fontsize": 7.5,
      "figure.titlesize": 9.5, "legend.frameon": False, "figure.dpi": 100,
      "axes.spines.top": False, "axes.spines.right": False}
#: Average width of a character at 8.5 pt, in inches (for wrapping).
CHAR_WIDTH = 0.062
#: Height of one line of notes (inches).
NOTE_LINE = 0.15
#: Characters per line of a legend entry before it is wrapped.
LEGEND_WIDTH = 40


def apply() -> None:
    """Use the project's defaults for every figure drawn from now on."""
    mpl.rcParams.update(RC)


def wrap(text: str, width: int) -> str:
    """``text`` wrapped to lines of about ``width`` characters, never inside ``$...$``."""
    parts = text.split("$")
    protected = "$".join(part.replace(" ", "\0") if number % 2 else part
                         for number, part in enumerate(parts))
    return textwrap.fill(protected, max(width, 10), break_long_words=False,
                         break_on_hyphens=False).replace("\0", " ")


def characters(width_inches: float, scale: float = 1.0) -> int:
    """How many characters of the base font fit in ``width_inches``."""
    return int(width_inches / (CHAR_WIDTH * scale))


def shorten(text: str, limit: int = MAX_TITLE) -> str:
    """``text`` cut at ``limit`` characters (on a word) with an ellipsis."""
    return text if len(text) <= limit else textwrap.shorten(text, limit, placeholder=" …")


def new_figure(rows: int = 1, cols: int = 1, *, square: bool = False,
               aspect: float | None = None, projection: str | None = None,
               sharex: bool = False,
               extra: tuple[float, float] = (0.0, 0.0), notes: Sequence[str] = ()
               ) -> tuple[Any, Any]:
    """A constrained-layout figure of ``rows`` x ``cols`` panels sized for them.

    Returns ``(figure, axes)`` with ``axes`` of shape (rows, cols). ``extra`` adds width and
    height (inches) for colour bars or an outside legend; ``notes`` are lines printed in a
    band under the panels (wrapped to the figure's width). ``aspect`` (height over width of a
    square-width panel, clipped to [0.5, 1.5]) sizes panels for drawings that are not square.
    """
    import matplotlib.pyplot as plt

    apply()
    panel = SQUARE if square else PANEL
    if aspect is not None:
        panel = (SQUARE[0], SQUARE[0] * min(max(aspect, 0.5), 1.5))
    width = cols * panel[0] + 0.7 + extra[0]
    wrapped = [wrap(line, characters(width - 0.2, 0.9)) for line in notes]
    note_lines = sum(line.count("\n") + 1 for line in wrapped)
    height = rows * panel[1] + 0.6 + extra[1]
    fig = plt.figure(figsize=(width, height + NOTE_LINE * note_lines + (0.15 if notes else 0)),
                     layout="constrained")
    target = fig
    if notes:
        top, bottom = fig.subfigures(2, 1, height_ratios=[height, NOTE_LINE * note_lines + 0.15])
        bottom.text(0.01, 0.98, "\n".join(wrapped), ha="left", va="top", fontsize=7)
        target = top
    axes = target.subplots(rows, cols, squeeze=False, sharex=sharex,
                           subplot_kw=None if projection is None else {"projection": projection})
    return fig, axes


def title(fig: Any, text: str) -> None:
    """The figure's title, shortened and wrapped to its width."""
    if text:
        width = fig.get_figwidth()
        fig.suptitle(wrap(shorten(text), characters(width - 0.3, 1.1)))


def panel_title(ax: Any, text: str) -> None:
    """A panel's title (e.g. ``"(a) N = 40"``), wrapped to the panel's width."""
    if text:
        root = ax.get_figure(root=True)  # the whole figure, also for a panel in a subfigure
        width = ax.get_position().width * root.get_figwidth()
        ax.set_title(wrap(shorten(text), characters(max(width, 1.5))), fontsize=8)


def legend(fig: Any, axes: Any = None, handles: Sequence[Any] | None = None,
           labels: Sequence[str] | None = None, title: str | None = None) -> Any:
    """One legend for the figure, outside the data (right of the panels, centred, clear of
    the title); entries taken from ``handles``/``labels`` or from every panel's labelled
    artists (each once)."""
    if handles is None:
        found: dict[str, Any] = {}
        for ax in ([axes] if axes is not None and not hasattr(axes, "flat") else
                   (axes.flat if axes is not None else fig.axes)):
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                found.setdefault(label, handle)
        handles, labels = list(found.values()), list(found)
    if not handles:
        return None
    if labels is None:
        labels = [handle.get_label() for handle in handles]
    # long entries wrapped, so that the legend does not squeeze the panels
    labels = [wrap(str(label), LEGEND_WIDTH) for label in labels]
    return fig.legend(handles, labels, loc="outside right center", title=title,
                      title_fontsize=7.5)
