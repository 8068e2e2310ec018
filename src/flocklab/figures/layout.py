"""Checking a drawn figure: every text on the canvas, no two texts over one another.

:func:`layout_problems` draws the figure and compares the window extents (pixels) of its
visible, non-empty texts: titles, axis and tick labels, legends, annotations, colour-bar
labels. The tests run it on every figure kind and every model's drawing; nothing else needs
it, but a user adding a figure kind can call it too.
"""

from __future__ import annotations

from typing import Any

#: Pixels a text may reach past the canvas or into another text (antialiasing, rounding).
TOLERANCE = 1.0


def _texts(fig: Any) -> list[Any]:
    """The texts a draw shows: every visible, non-empty text but tick labels, and of the
    tick labels those of the ticks inside each axis's view (the others are not drawn)."""
    from matplotlib.axis import Tick
    from matplotlib.text import Text

    ticks = {id(text) for tick in fig.findobj(Tick) for text in (tick.label1, tick.label2)}
    found = [text for text in fig.findobj(Text) if id(text) not in ticks]
    for ax in fig.get_axes():
        if not ax.get_visible():
            continue
        for axis in ax._axis_map.values():
            for tick in axis._update_ticks():
                found += [label for label in (tick.label1, tick.label2)
                          if tick.get_visible() and label.get_visible()]
    return [text for text in found if text.get_visible() and text.get_text().strip()
            and (text.axes is None or text.axes.get_visible())]


def _describe(text: Any) -> str:
    words = text.get_text().strip().replace("\n", " ")
    return repr(words[:40] + ("…" if len(words) > 40 else ""))


def layout_problems(fig: Any) -> list[str]:
    """Texts of ``fig`` that leave the canvas or overlap another text (one line each).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (drawn here on its own canvas).

    Returns
    -------
    list of str
        Empty when the layout is clean.
    """
    fig.canvas.draw()  # constrained layout settles fixed-aspect axes on a second pass,
    fig.canvas.draw()  # as saving (which draws again) does
    texts = _texts(fig)
    fig.canvas.draw()  # finding the ticks moved 3-D axes' tick labels; drawing puts them back
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    boxes = [(text, text.get_window_extent(renderer)) for text in texts]
    problems = []
    for text, box in boxes:
        if (box.x0 < canvas.x0 - TOLERANCE or box.y0 < canvas.y0 - TOLERANCE
                or box.x1 > canvas.x1 + TOLERANCE or box.y1 > canvas.y1 + TOLERANCE):
            problems.append(f"{_describe(text)} leaves the canvas")
    for k, (first, a) in enumerate(boxes):
        for second, b in boxes[k + 1:]:
            width = min(a.x1, b.x1) - max(a.x0, b.x0)
            height = min(a.y1, b.y1) - max(a.y0, b.y0)
            if width > TOLERANCE and height > TOLERANCE:
                problems.append(f"{_describe(first)} overlaps {_describe(second)}")
    return problems
