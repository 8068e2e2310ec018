"""Kinds drawn from a study's analyses: the critical fit, finite-size scaling and the
sensitivity indices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from flocklab.core import paths
from flocklab.core.parameters import ConfigError
from flocklab.figures.captions import design_text
from flocklab.figures.kinds.base import (
    FigureContext,
    StudyKind,
    open_inputs,
    require_grid_study,
)

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr
    from matplotlib.figure import Figure

    from flocklab.config.study import Study


class AnalysisKind(StudyKind):
    """A kind drawn from a study's summary and one analysis file, by one plotting function.

    Subclasses set ``section`` (the study's section the analysis needs: ``critical``,
    ``fss``), ``file`` (what it writes, read after the summary), ``plot`` (the drawing
    function of :mod:`flocklab.figures.plotting`, imported when a figure is drawn and called
    with both datasets and ``title``) and ``text`` (the caption).
    """

    section: ClassVar[str]
    file: ClassVar[str]
    text: ClassVar[str]

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        """The kind's drawing function applied to the study's summary and analysis."""
        raise NotImplementedError

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        require_grid_study(where, self.name, study)
        if self.section not in context.config["studies"][study.name]:
            raise ConfigError(f"config key '{where}.kind': '{self.name}' needs a "
                              f"'{self.section}' section in study '{study.name}'")

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        return [paths.study_file(figure["study"], "summary.nc"),
                paths.study_file(figure["study"], self.file)]

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        summary, analysis = open_inputs(inputs)
        return self.plot(summary, analysis, title=figure["title"])

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        return [self.text, *([design_text(study)] if study.sensitivity is not None else [])]


class CriticalLogLog(AnalysisKind):
    """The single-size effective power-law fit on log-log axes (``critical.nc``)."""

    name = "critical_loglog"
    description = ("ln v_a against the log reduced distance with the single-size effective fit "
                   "(needs the study's critical section)")
    section, file = "critical", "critical.nc"
    text = ("Vicsek et al.'s single-size procedure: the order parameter :math:`P` against the "
            "reduced distance from the fitted value, on log axes, one fit per size. The fitted "
            "value is a shape parameter of that size's curve and the exponent an *effective* "
            "exponent at that size — neither is the critical point or a critical exponent "
            "(those come from finite-size scaling). Filled points entered the fit (a power "
            "law rounded by a Gaussian spread, with a finite-size floor), crosses mark points "
            "whose runs hold fewer than 50 independent samples (down-weighted); legend: the "
            "effective exponent with its 68 % interval (jackknife over seeds refitted from "
            "every start, and window range), the two halves of the seeds, and what limits the "
            "fit (results/<study>/critical.json).")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import critical_loglog_figure

        return critical_loglog_figure(summary, analysis, title=title)


class FssCurves(AnalysisKind):
    """Order parameter, Binder cumulant and susceptibility per size (``fss.nc``)."""

    name = "fss_curves"
    description = ("order parameter, Binder cumulant and susceptibility per size on their grids "
                   "(needs the study's fss section)")
    section, file = "fss", "fss.nc"
    text = ("Order parameter :math:`\\langle|P|\\rangle`, Binder cumulant "
            ":math:`U = 1 - \\langle P^4\\rangle/(3\\langle P^2\\rangle^2)` and "
            "susceptibility :math:`\\chi = N(\\langle P^2\\rangle - "
            "\\langle|P|\\rangle^2)` against the control, one line per size on its own "
            "grid (errors: jackknife over replicates); the grey band is the critical value's "
            "68 % interval from the extrapolated Binder crossings (crosses: the crossings "
            "that count, where the curves differ by two standard errors on both sides), "
            "x marks the susceptibility maxima (results/<study>/fss.json).")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import fss_curves_figure

        return fss_curves_figure(summary, analysis, title=title)


class FssScaling(AnalysisKind):
    """The power laws in L behind the exponents (``fss.nc``)."""

    name = "fss_scaling"
    description = ("Binder slope at x_c, order parameter at x_c and chi maxima against L on "
                   "log axes (needs the study's fss section)")
    section, file = "fss", "fss.nc"
    text = ("The three finite-size power laws: the Binder cumulant's slope at the critical "
            "value (:math:`\\propto L^{1/\\nu}`), the order parameter there "
            "(:math:`\\propto L^{-\\beta/\\nu}`) and the susceptibility maxima "
            "(:math:`\\propto L^{\\gamma/\\nu}`), with 68 % bootstrap intervals over "
            "replicates that rerun every estimator; lines: the least-squares power laws.")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import fss_scaling_figure

        return fss_scaling_figure(summary, analysis, title=title)


class Collapse(AnalysisKind):
    """The finite-size data collapse (``fss.nc``)."""

    name = "collapse"
    description = "the finite-size data collapse (needs the study's fss section)"
    section, file = "fss", "fss.nc"
    text = ("Finite-size data collapse :math:`P L^{\\beta/\\nu}` against "
            ":math:`t L^{1/\\nu}`, :math:`t = (x - x_c)/x_c`, at the parameters minimising "
            "the quality :math:`S` of Houdayer and Hartmann (2004) within the collapse "
            "window (:math:`S \\approx 1`: a collapse within the errors).")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import collapse_figure

        return collapse_figure(summary, analysis, title=title)


class FssCritical(AnalysisKind):
    """Pseudo-critical points against L^(-1/nu) (``fss.nc``)."""

    name = "fss_critical"
    description = "pseudo-critical points against L^(-1/nu) (needs the study's fss section)"
    section, file = "fss", "fss.nc"
    text = ("Pseudo-critical points against :math:`L^{-1/\\nu}`: the susceptibility maxima "
            "(68 % bootstrap bars), the Binder crossings of every size pair (at the pair's "
            "geometric-mean size) and, where the study is also fitted one size at a time, "
            "the single-size effective fits; the star is the critical value extrapolated "
            "from the crossings (results/<study>/fss.json).")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import fss_critical_figure

        return fss_critical_figure(summary, analysis, title=title)


class Distribution(AnalysisKind):
    """Histograms of the primary observable near the transition (``fss.nc``)."""

    name = "distribution"
    description = "order-parameter histograms at each size's largest chi (needs fss)"
    section, file = "fss", "fss.nc"
    text = ("Distribution of the order parameter :math:`P` (pooled over replicates) at the "
            "control value of each size's largest susceptibility; two interior peaks signal "
            "a discontinuous transition, marked in the legend.")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import distribution_figure

        return distribution_figure(summary, analysis, title=title)


class SensitivityKind(StudyKind):
    """A kind drawn from a sensitivity study's ``sensitivity.nc`` by one plotting function.

    Subclasses set ``methods`` (the sensitivity methods whose results it draws), ``plot``
    (the drawing function of :mod:`flocklab.figures.plotting`, imported when a figure is
    drawn and called with the dataset and ``title``) and ``text`` (the caption, before the
    design's description).
    """

    methods: ClassVar[tuple[str, ...]]
    text: ClassVar[str]

    @staticmethod
    def plot(sensitivity: xr.Dataset, title: str) -> Figure:
        """The kind's drawing function applied to ``sensitivity.nc``."""
        raise NotImplementedError

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        method = study.sensitivity.method if study.sensitivity is not None else None
        if method not in self.methods:
            raise ConfigError(f"config key '{where}.kind': '{self.name}' needs a sensitivity "
                              f"section with method {' or '.join(self.methods)} in study "
                              f"'{study.name}'")

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        return [paths.study_file(figure["study"], "sensitivity.nc")]

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        (sensitivity,) = open_inputs(inputs)
        return self.plot(sensitivity, title=figure["title"])

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        return [self.text, *([design_text(study)] if study.sensitivity is not None else [])]


class Oat(SensitivityKind):
    """One factor at a time: each output against each factor, with the claims."""

    name = "oat"
    description = ("output against each factor with replicate error bars (needs a sensitivity "
                   "section of method oat)")
    methods = ("oat",)
    text = ("One factor at a time around the baseline: each output against each factor "
            "(grey dots: single runs; markers: replicate means with standard errors); numbers "
            "in results/<study>/sensitivity.json.")
    #: Caption clauses for what a study's claims and outputs need, in this order.
    CLAUSES: ClassVar[dict[str, str]] = {
        "trend": "a trend claim: Spearman's rank correlation with a permutation p",
        "censored": "a trend claim on a censored time: the log-rank test for trend",
        "at": "a bound claim: the 95 % interval of the mean at the level inside the bound",
        "exponent": "an exponent claim: the 95 % interval of the slope of ln output on ln "
                    "factor inside the bounds, the panel log-log with the fit (solid) and the "
                    "claimed exponent (dashed)",
    }
    CENSORED = ("A censored time is not averaged: runs with the event are grey dots, censored "
                "runs open triangles at their censoring time, the markers Kaplan-Meier medians "
                "with their Brookmeyer-Crowley intervals (open circle: median not reached).")

    @staticmethod
    def plot(sensitivity: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import oat_figure

        return oat_figure(sensitivity, title=title)

    def caption(self, name: str, figure: Mapping[str, Any], context: FigureContext) -> str:
        """The study caption, saying only the tests its claims use (:attr:`CLAUSES`)."""
        from flocklab.core.registry import get_model
        from flocklab.figures.captions import study_caption

        study = context.studies[figure["study"]]
        settings = context.config["studies"][figure["study"]].get("sensitivity") or {}
        model = get_model(study.model)
        censored = {metric.name for metric in model.run_metrics if metric.censored}
        kinds = []
        for claim in settings.get("claims", []):
            kind = next(key for key in ("exponent", "trend", "at") if key in claim)
            kinds.append("censored" if kind == "trend" and claim["output"] in censored
                         else kind)
        lines = [self.text]
        if kinds:
            tests = "; ".join(self.CLAUSES[key] for key in self.CLAUSES if key in kinds)
            lines.append(f"Under the panels, each claim with its verdict ({tests}).")
        if censored & set(settings.get("outputs", [])):
            lines.append(self.CENSORED)
        if study.sensitivity is not None:
            lines.append(design_text(study))
        return study_caption(name, figure, study, lines)


class Morris(SensitivityKind):
    """Morris screening: sigma against mu*."""

    name = "morris"
    description = "mu* against sigma (needs a sensitivity section of method morris)"
    methods = ("morris",)
    text = ("Morris screening: sigma against mu* (mean absolute elementary effect per full "
            "factor range) with mu*'s bootstrap interval; above the dashed line sigma = mu* "
            "effects are mostly non-linear or interacting.")

    @staticmethod
    def plot(sensitivity: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import morris_figure

        return morris_figure(sensitivity, title=title)


class Sobol(SensitivityKind):
    """First-order and total Sobol' indices with their intervals."""

    name = "sobol"
    description = ("S1 and ST bars with intervals (needs a sensitivity section of method "
                   "sobol)")
    methods = ("sobol",)
    text = ("First-order (S1) and total (ST) Sobol' indices from a Saltelli design, with "
            "bootstrap confidence intervals; ST - S1 is the share of the output variance "
            "due to interactions.")

    @staticmethod
    def plot(sensitivity: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import sobol_figure

        return sobol_figure(sensitivity, title=title)


class SensitivityConvergence(SensitivityKind):
    """Indices recomputed from growing parts of the design."""

    name = "sensitivity_convergence"
    description = ("indices against sample size (needs a sensitivity section of method morris "
                   "or sobol)")
    methods = ("morris", "sobol")
    text = ("The indices recomputed from the first N base samples (Sobol) or trajectories "
            "(Morris): curves that have levelled off within their bands show the sample "
            "size suffices.")

    @staticmethod
    def plot(sensitivity: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import convergence_figure

        return convergence_figure(sensitivity, title=title)


class Survival(SensitivityKind):
    """Kaplan-Meier curves of a censored time, one per level of a factor of an oat study."""

    name = "survival"
    description = ("Kaplan-Meier curves of a censored time per level of a factor, with the "
                   "log-rank trend test (needs a sensitivity section of method oat and an "
                   "output the model declares censored)")
    methods = ("oat",)
    keys = """
        output:
          type: string
          description: >-
            The censored time drawn: one of the study's sensitivity outputs that the model
            declares censored (e.g. turn_time, first_capture_time).
        parameter:
          type: string
          default: ""
          description: The factor whose levels get one curve each ("" = the first factor).
    """
    required = ("output",)

    def check_study(self, where: str, figure: Mapping[str, Any], study: Study,
                    context: FigureContext) -> None:
        """Oat study; ``output`` among its outputs and censored; ``parameter`` a factor."""
        from flocklab.core.registry import get_model

        super().check_study(where, figure, study, context)
        outputs = context.config["studies"][study.name]["sensitivity"]["outputs"]
        censored = [metric.name for metric in get_model(study.model).run_metrics
                    if metric.censored]
        if figure["output"] not in outputs or figure["output"] not in censored:
            raise ConfigError(f"config key '{where}.output': '{figure['output']}' is not a "
                              f"censored output of study '{study.name}'; censored outputs: "
                              f"{', '.join(o for o in outputs if o in censored) or 'none'}")
        factors = [factor.name for factor in study.sensitivity.factors]
        if figure["parameter"] and figure["parameter"] not in factors:
            raise ConfigError(f"config key '{where}.parameter': '{figure['parameter']}' is "
                              f"not a factor; factors: {', '.join(factors)}")

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Figure:
        from flocklab.figures import plotting

        (sensitivity,) = open_inputs(inputs)
        return plotting.survival_figure(sensitivity, figure["output"],
                                        figure["parameter"] or None, title=figure["title"])

    def describe(self, figure: Mapping[str, Any], study: Study) -> list[str]:
        parameter = figure["parameter"] or study.sensitivity.factors[0].name
        return [f"Kaplan-Meier estimate of the share of runs whose {figure['output']} has not "
                f"yet come, against time, one curve per level of {parameter} (steps; shaded: "
                "pointwise 95 % log-log bands with Greenwood errors; ticks: runs censored at "
                "the end without the event). The legend heads with the p of the log-rank test "
                "for trend over the levels (weights: the level values; permutation p), the "
                "test that decides the study's trend claims on this output; numbers in "
                f"{paths.study_file(study.name, 'sensitivity.json')}.", design_text(study)]


class StructureKind(AnalysisKind):
    """A kind drawn from the study's spatial structure (``structure.nc``)."""

    section, file = "structure", "structure.nc"


class NumberFluctuations(StructureKind):
    """Delta N against <n> on log axes (``structure.nc``)."""

    name = "number_fluctuations"
    description = ("number fluctuations Delta N against the mean box count on log axes with "
                   "the fitted exponents (needs the study's structure section)")
    text = ("Number fluctuations: the standard deviation :math:`\\Delta N` of the number of "
            "agents in boxes tiling the domain against their mean :math:`\\langle n\\rangle`, "
            "over the frames after the burn-in, replicates pooled. Independent positions give "
            "slope 1/2, the ordered phase of 2-D polar flocks giant fluctuations of slope "
            "about 0.8 (dashed and dotted guides). Legend: the exponent :math:`\\alpha` fitted "
            "over :math:`10 < \\langle n\\rangle < N/20` with its 95 % moving-block bootstrap "
            "interval over frames, and the same for the positions redrawn uniformly (the "
            "control) (results/<study>/structure.json).")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import number_fluctuations_figure

        return number_fluctuations_figure(summary, analysis, title=title)


class BandProfiles(StructureKind):
    """Density and polar order along the mean heading (``structure.nc``)."""

    name = "band_profiles"
    description = ("density and polar-order profiles along the mean heading with the band "
                   "flag (needs the study's structure section)")
    text = ("Density (over the mean) and polar order along the mean heading, each frame's "
            "profile shifted so that its dominant density mode sits at the centre, averaged "
            "over frames and replicates. A band is flagged when the dominant density mode "
            "along the heading exceeds 0.1 of the mean density and three times the strongest "
            "mode across it (results/<study>/structure.json).")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import band_profiles_figure

        return band_profiles_figure(summary, analysis, title=title)


class VelocityCorrelation(StructureKind):
    """C(r)/C(0) per point (``structure.nc``)."""

    name = "velocity_correlation"
    description = ("connected velocity correlation C(r) per point with its first zero (needs "
                   "the study's structure section)")
    text = ("Connected velocity correlation :math:`C(r)/C(0)` of the velocity fluctuations "
            "about the mean velocity, replicate means; crosses mark the mean first zero "
            ":math:`r_0` (results/<study>/structure.json).")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import velocity_correlation_figure

        return velocity_correlation_figure(summary, analysis, title=title)


class CorrelationLength(StructureKind):
    """r_0 against the flock size with the starlings' line (``structure.nc``)."""

    name = "correlation_length"
    description = ("first zero r_0 of the velocity correlation against the flock size with "
                   "the starlings' r_0 = 0.35 L (needs the study's structure section)")
    text = ("The correlation length :math:`r_0` (first zero of the connected velocity "
            "correlation) against the flock's linear size :math:`L` (the largest distance "
            "between two agents): every run, the point means with their standard errors, a "
            "line through the origin fitted to the means, and the starlings' "
            ":math:`r_0 = 0.35\\,L` (Cavagna et al., PNAS 107, 11865, 2010). A constant "
            "ratio is scale-free correlation; a finite correlation length would make "
            ":math:`r_0` saturate as :math:`L` grows (results/<study>/structure.json).")

    @staticmethod
    def plot(summary: xr.Dataset, analysis: xr.Dataset, title: str) -> Figure:
        from flocklab.figures.plotting import correlation_length_figure

        return correlation_length_figure(summary, analysis, title=title)
