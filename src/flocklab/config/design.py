"""Design specs: a study's ``sensitivity`` section, checked, and what generates its design.

:func:`design_spec` checks a (schema-validated) section against the model: outputs among the
model's per-run metrics, a usable sample size, known factors with levels or ranges the model
accepts at the baseline, and testable claims. The :class:`DesignSpec` it returns generates the
design on demand, so that checking a config does not import SALib.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from flocklab.analysis.sensitivity import METHODS, Design, Factor, check_sample_size
from flocklab.analysis.timeseries import run_variables
from flocklab.config.study import expand_values
from flocklab.core.parameters import ConfigError, ParameterError
from flocklab.core.registry import get_model
from flocklab.core.seeds import derive_seed


@dataclass(frozen=True)
class DesignSpec:
    """A validated sensitivity design, not yet generated: :meth:`generate` makes it."""

    method: str
    factors: tuple[Factor, ...]
    baseline: dict[str, float]
    samples: int
    levels: int
    seed: int

    def generate(self) -> Design:
        """The design (rows of factor values) of the method (:data:`METHODS`), generated
        once per specification and read back afterwards
        (:mod:`flocklab.config.design_cache`: planning the jobs then imports no SALib)."""
        from flocklab.config.design_cache import cached_design, design_key

        key = design_key(self.method, self.factors, self.baseline, self.samples,
                         self.levels, self.seed)
        return cached_design(key, self.factors, self.method, self._sample)

    def _sample(self) -> Design:
        return METHODS[self.method].design(list(self.factors), baseline=self.baseline,
                                           samples=self.samples, seed=self.seed,
                                           levels=self.levels)


def design_seed(base_seed: int, study: str) -> int:
    """Seed of a study's sensitivity design (its bootstrap uses ``design_seed + 1``)."""
    return derive_seed(base_seed, study, "sensitivity-design", 0)


def sensitivity_design(model_name: str, fixed: Mapping[str, Any], settings: Mapping[str, Any],
                       seed: int, where: str = "sensitivity") -> Design:
    """Check a ``sensitivity`` section and generate its design (see :func:`design_spec`)."""
    return design_spec(model_name, fixed, settings, seed, where).generate()


def design_spec(model_name: str, fixed: Mapping[str, Any], settings: Mapping[str, Any],
                seed: int, where: str = "sensitivity") -> DesignSpec:
    """Check a (schema-validated) ``sensitivity`` section; return what generates its design.

    Parameters
    ----------
    model_name : str
        Registered model.
    fixed : mapping
        The study's fixed parameters (the baseline of ``oat``).
    settings : mapping
        The ``sensitivity`` section with schema defaults filled in (``outputs`` and
        ``claims`` are checked when present; the design needs only ``method``,
        ``factors``, ``samples`` and ``levels``).
    seed : int
        Seed of the design's random numbers (:func:`design_seed`).
    where : str
        Config key of the section, for error messages.

    Returns
    -------
    DesignSpec

    Raises
    ------
    ConfigError
        Naming the key and what is allowed.
    """
    method = settings["method"]
    _check_outputs(where, settings, model_name)
    problem = check_sample_size(method, settings["samples"], settings["levels"])
    if problem:
        key, reason = problem
        raise ConfigError(f"config key '{where}.{key}': {settings[key]} cannot be used: "
                          f"{reason}")
    factors = _factors(where, settings, model_name)
    model = get_model(model_name)
    try:
        base = model.resolve(fixed)
    except ParameterError as error:
        raise ConfigError(f"config key '{where.rsplit('.', 1)[0]}.params': "
                          f"{error.message}") from None
    baseline = {}
    for factor in factors:
        target = model.factor_target(factor.name)
        baseline[factor.name] = (model.derived_value(base, factor.name)
                                 if target != factor.name
                                 else base[factor.name])
    _check_factor_ends(where, method, model, base, factors)
    _check_claims(where, settings, factors)
    return DesignSpec(method, tuple(factors), baseline, settings["samples"], settings["levels"],
                      seed)


def _check_outputs(where: str, settings: Mapping[str, Any], model_name: str) -> None:
    """Every output is a per-run metric of the model."""
    allowed_outputs = run_variables(get_model(model_name))
    for position, output in enumerate(settings.get("outputs", [])):
        if output not in allowed_outputs:
            raise ConfigError(f"config key '{where}.outputs[{position}]': '{output}' is not a "
                              f"per-run metric of model '{model_name}'; allowed: "
                              f"{', '.join(allowed_outputs)}")


def _check_factor_ends(where: str, method: str, model: Any, base: Mapping[str, Any],
                       factors: list[Factor]) -> None:
    """Every level or range end must be a valid parameter value at the baseline."""
    for factor in factors:
        values = METHODS[method].factors_as == "values"
        ends = (factor.values if values else (factor.low, factor.high))
        for position, value in enumerate(ends):
            key = (f"{where}.factors.{factor.name}." +
                   (f"values[{position}]" if values else ("low", "high")[position]))
            params = dict(base)
            model.set_factor(params, factor.name, value)
            try:
                model.resolve(params)
            except ParameterError as error:
                raise ConfigError(f"config key '{key}': {error.message}") from None


def _factors(where: str, settings: Mapping[str, Any], model_name: str) -> list[Factor]:
    """The section's factors: known to the model, not set twice, levels or ranges valid."""
    model = get_model(model_name)
    allowed = model.factor_names()
    method = settings["method"]
    factors = []
    for name, spec in settings["factors"].items():
        key = f"{where}.factors.{name}"
        if name not in allowed:
            raise ConfigError(f"config key '{key}': unknown parameter of model '{model.name}' "
                              f"for a sensitivity study; allowed: {', '.join(allowed)}")
        target = model.factor_target(name)
        if target != name and target in settings["factors"]:
            raise ConfigError(f"config key '{key}': '{name}' sets '{target}', which is a "
                              f"factor too; vary one of them")
        factors.append(_FACTOR_FORMS[METHODS[method].factors_as](key, name, spec, method))
    return factors


def _values_factor(key: str, name: str, spec: Mapping[str, Any], method: str) -> Factor:
    """A factor given by its levels: distinct numeric ``values``."""
    if "values" not in spec or {"low", "high", "mean", "sd"} & set(spec):
        raise ConfigError(f"config key '{key}': method '{method}' takes the factor's "
                          f"levels as 'values' (a list or a range), not low/high")
    values = expand_values(spec["values"])
    if not values or len(set(values)) != len(values):
        raise ConfigError(f"config key '{key}.values': need one or more distinct "
                          f"values")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        raise ConfigError(f"config key '{key}.values': values must be numbers")
    return Factor(name, values=tuple(float(v) for v in values))


def _range_factor(key: str, name: str, spec: Mapping[str, Any], method: str) -> Factor:
    """A factor given by a range, uniform or truncated normal."""
    if "values" in spec or "low" not in spec or "high" not in spec:
        raise ConfigError(f"config key '{key}': method '{method}' needs a range "
                          f"{{low, high}} (and no 'values')")
    low, high = float(spec["low"]), float(spec["high"])
    if not low < high:
        raise ConfigError(f"config key '{key}.low': {low!r} must be < high = {high!r}")
    dist = spec.get("dist", "uniform")
    if dist == "truncnorm":
        if "mean" not in spec or "sd" not in spec or not spec["sd"] > 0:
            raise ConfigError(f"config key '{key}': dist 'truncnorm' needs mean and sd > 0")
        return Factor(name, low, high, dist, float(spec["mean"]), float(spec["sd"]))
    return Factor(name, low, high)


#: How each method's factors are read: by the method's ``factors_as``.
_FACTOR_FORMS = {"values": _values_factor, "range": _range_factor}


def _check_claims(where: str, settings: Mapping[str, Any], factors: list[Factor]) -> None:
    """Claims (of a method that tests them) name a factor and an output, with a trend or a
    bound at a level."""
    levels = {factor.name: factor.values for factor in factors}
    for position, claim in enumerate(settings.get("claims", [])):
        key = f"{where}.claims[{position}]"
        if not METHODS[settings["method"]].claims:
            testing = [name for name, method in METHODS.items() if method.claims]
            raise ConfigError(f"config key '{key}': claims are tested on "
                              f"{', '.join(repr(name) for name in testing)} studies only")
        if claim["parameter"] not in levels:
            raise ConfigError(f"config key '{key}.parameter': '{claim['parameter']}' is not a "
                              f"factor; factors: {', '.join(levels)}")
        if claim["output"] not in settings["outputs"]:
            raise ConfigError(f"config key '{key}.output': '{claim['output']}' is not one of "
                              f"the outputs: {', '.join(settings['outputs'])}")
        bound = "below" in claim or "above" in claim
        if sum(("trend" in claim, bound, "exponent" in claim)) != 1:
            raise ConfigError(f"config key '{key}': give one of 'trend', 'exponent' or a "
                              f"bound ('below' and/or 'above' with 'at')")
        if "exponent" in claim:
            _check_exponent_claim(key, claim, levels[claim["parameter"]])
            continue
        if bound and not any(np.isclose(claim.get("at", math.nan), v)
                             for v in levels[claim["parameter"]]):
            raise ConfigError(f"config key '{key}.at': must be one of the levels of "
                              f"'{claim['parameter']}': {list(levels[claim['parameter']])}")


def _check_exponent_claim(key: str, claim: Mapping[str, Any], levels: tuple[float, ...]
                          ) -> None:
    """An exponent claim has a bound and a factor with two or more positive levels."""
    bounds = claim["exponent"]
    if not bounds:
        raise ConfigError(f"config key '{key}.exponent': give 'below' and/or 'above'")
    if "below" in bounds and "above" in bounds and not bounds["above"] < bounds["below"]:
        raise ConfigError(f"config key '{key}.exponent': above = {bounds['above']!r} must be "
                          f"< below = {bounds['below']!r}")
    if len(levels) < 2 or min(levels) <= 0:
        raise ConfigError(f"config key '{key}.parameter': an exponent is fitted on a log "
                          f"scale: '{claim['parameter']}' needs two or more positive levels, "
                          f"has {list(levels)}")
