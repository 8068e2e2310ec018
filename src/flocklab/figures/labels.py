r"""Words a reader understands: every label a figure shows, from the declarations.

One display-name map for parameters, observables, derived quantities, run metrics and the
summary's statistics: a long name, a mathtext symbol and a unit. Units are the UDUNITS
strings of the declarations (``"m s-1"``, ``"N m-1"``, ``"1"``), written for the eye
(``m s$^{-1}$``; dimensionless quantities get none). Code names never reach a figure: a
name with nothing declared for it is shown with its underscores as spaces.

Examples
--------
>>> unit_text("m s-1")
'm s$^{-1}$'
>>> axis_label("speed", "v", "m s-1")
'speed $v$ (m s$^{-1}$)'
>>> axis_label("order parameter", "v_a", "1")
'order parameter $v_a$'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model

_POWER = re.compile(r"^([A-Za-z]+)(-?\d+)$")
#: Notes in a declaration that document a file's missing or censored values rather than the
#: quantity; left off figure labels and captions.
_FILE_NOTE = re.compile(r"\s*\((?:NaN|never|censored)[^)]*\)|;\s*(?:NaN|never|censored)[^)]*")
#: The list of a state code's values after its name (``state after burn-in: 0 swarm, ...``):
#: a figure names the states in its legend.
_CODE_LIST = re.compile(r":\s*-?\d+ [A-Za-z].*$")
#: A 0/1 indicator's declaration, ``1 if <event>[, else 0]``: on a figure it is drawn as the
#: share of runs with the event.
_INDICATOR = re.compile(r"^1 if (?:the run )?(?P<event>.+?)(?:, else 0)?$")
#: Spellings of UDUNITS symbols on a figure.
_UNIT_WORDS = {"degree": "°", "percent": "%"}


@dataclass(frozen=True)
class Label:
    """What a quantity is called on a figure."""

    long_name: str
    symbol: str = ""
    units: str = "1"

    def axis(self) -> str:
        """``long name $symbol$ (unit)``."""
        return axis_label(self.long_name, self.symbol, self.units)

    def short(self) -> str:
        """The symbol in mathtext (or the long name where there is none)."""
        return f"${self.symbol}$" if self.symbol else self.long_name


def unit_text(units: str) -> str:
    """A UDUNITS unit string for the eye: powers raised, ``1`` (dimensionless) empty."""
    if units in ("", "1"):
        return ""
    words = []
    for word in units.split():
        match = _POWER.match(word)
        if match:
            base, power = match.groups()
            words.append(f"{_UNIT_WORDS.get(base, base)}$^{{{power}}}$")
        else:
            words.append(_UNIT_WORDS.get(word, word))
    return " ".join(words)


def axis_label(long_name: str, symbol: str = "", units: str = "1") -> str:
    """``long name $symbol$ (unit)``; the unit left out for a dimensionless quantity."""
    text = f"{long_name} ${symbol}$" if symbol else long_name
    unit = unit_text(units)
    return f"{text} ({unit})" if unit else text


def figure_name(long_name: str) -> str:
    """A declared long name as a figure says it: notes on missing values dropped, a 0/1
    indicator read as the share of runs with its event.

    Examples
    --------
    >>> figure_name("time of the first capture (NaN: none)")
    'time of the first capture'
    >>> figure_name("1 if the run did not blow up, else 0")
    'share of runs: did not blow up'
    >>> figure_name("collective state after burn-in: 0 swarm, 1 torus (-1 unknown)")
    'collective state after burn-in'
    """
    text = _CODE_LIST.sub("", _FILE_NOTE.sub("", long_name)).strip()
    match = _INDICATOR.match(text)
    return f"share of runs: {match['event']}" if match else text


def readable(name: str) -> str:
    """A name with nothing declared for it, for the eye (``link_error_max`` →
    ``link error max``)."""
    return name.replace("_", " ")


def quantity(model: Model, name: str) -> Label:
    """The label of anything a model's runs or summaries hold under ``name``: a parameter,
    an observable, a derived quantity, a run metric, or a statistic of the summary
    (``<observable>_mean``, ``susceptibility``, ``binder_cumulant``, ``time_to_order``)."""
    direct = _declared(model).get(name)
    if direct is not None:
        return direct
    for suffix, template in (("_mean", r"\langle {}\rangle"), ("_sem", r"\sigma_{{{}}}"),
                             ("_tau", r"\tau_{{{}}}")):
        if name.endswith(suffix):
            base = _declared(model).get(name.removesuffix(suffix))
            if base is not None and base.symbol:
                words = {"_mean": "time average of", "_sem": "standard error of",
                         "_tau": "autocorrelation time of"}[suffix]
                units = "1" if suffix == "_tau" else base.units
                return Label(f"{words} {base.long_name}", template.format(base.symbol), units)
    return _statistic(model, name)


def parameter(model: Model, name: str) -> Label:
    """The label of parameter ``name`` (a run metric or observable of the same name, such as
    the forces model's ``turn_time``, does not shadow it); :func:`quantity` for any other
    name."""
    for spec in model.parameters:
        if spec.name == name:
            return _parameter_label(spec)
    return quantity(model, name)


def _declared(model: Model) -> Mapping[str, Label]:
    table = {spec.name: _parameter_label(spec) for spec in model.parameters}
    table.update({obs.name: Label(figure_name(obs.long_name), obs.symbol, obs.units)
                  for obs in model.observables})
    table.update({q.name: Label(figure_name(q.long_name), q.symbol, q.units)
                  for q in model.derived_quantities})
    table.update({metric.name: Label(figure_name(metric.long_name), metric.symbol,
                                     metric.units) for metric in model.run_metrics})
    return table


def _parameter_label(spec: Any) -> Label:
    """A parameter's label: its description up to the first qualification, symbol, unit."""
    return Label(_short(spec.description), spec.symbol, spec.unit)


def _short(description: str) -> str:
    """A parameter's description up to its first qualification (``:``, ``;``, `` (``)."""
    return re.split(r":|;| \(|, ", description, maxsplit=1)[0].strip()


def _statistic(model: Model, name: str) -> Label:
    primary = model.observable(model.primary_observable)
    symbol = primary.symbol or "P"
    table = {
        "susceptibility": Label("susceptibility", r"\chi"),
        "binder_cumulant": Label("Binder cumulant", "G"),
        # the threshold is the summary's (flocklab.analysis.summary), said in captions
        "time_to_order": Label("time to order", rf"t_{{{symbol}}}", model.time_units),
        "samples": Label("samples after burn-in"),
    }
    return table.get(name, Label(readable(name)))
