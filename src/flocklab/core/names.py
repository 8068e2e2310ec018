"""Suggestions for a misspelt name (a config key, a model, an option, a task)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def nearest_names(name: str, names: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` with the names closest to ``name`` (:mod:`difflib`), else
    ``"; choose from a, b"``, or a sentence saying that there is nothing to choose from.

    Examples
    --------
    >>> nearest_names("vicsk", ["vicsek", "zonal"])
    "; did you mean 'vicsek'?"
    >>> nearest_names("x", [])
    '; there are none to choose from'
    """
    names = sorted(str(item) for item in names)
    close = difflib.get_close_matches(str(name), names, n=3, cutoff=0.5)
    if close:
        return "; did you mean " + " or ".join(repr(item) for item in close) + "?"
    return f"; choose from {', '.join(names)}" if names else "; there are none to choose from"
