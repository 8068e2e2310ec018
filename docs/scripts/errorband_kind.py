"""A figure kind drawing a replicate-averaged quantity with a shaded ±1 s.e. band."""

from collections.abc import Mapping, Sequence
from typing import Any

from flocklab.config import ConfigError
from flocklab.figures.kinds import FigureContext, StudyKind, open_inputs


class ErrorBand(StudyKind):
    """A summary quantity against one swept coordinate with a shaded error band."""

    name = "errorband"
    description = "a replicate-averaged quantity against a coordinate with a ±1 s.e. band"
    required = ("x", "y")
    keys = """
        x: {type: string, description: swept coordinate on the horizontal axis}
        y: {type: string, description: summary quantity (its _err variable gives the band)}
    """

    def check_study(self, where: str, figure: Mapping[str, Any], study: Any,
                    context: FigureContext) -> None:
        swept = study.swept()
        if figure["x"] not in swept:
            raise ConfigError(f"config key '{where}.x': '{figure['x']}' is not swept by "
                              f"study '{study.name}'; allowed: {', '.join(swept)}")

    def inputs(self, figure: Mapping[str, Any], context: FigureContext) -> list[str]:
        return [context.study_path(figure["study"], "summary.nc")]

    def draw(self, figure: Mapping[str, Any], inputs: Sequence[Any]) -> Any:
        import matplotlib.pyplot as plt

        (summary,) = open_inputs(inputs)
        y, err = summary[figure["y"]], summary[f"{figure['y']}_err"]
        fig, ax = plt.subplots()
        x = summary[figure["x"]].values
        ax.plot(x, y.values)
        ax.fill_between(x, (y - err).values, (y + err).values, alpha=0.3)
        ax.set(xlabel=figure["x"], ylabel=figure["y"], title=figure["title"])
        return fig

    def describe(self, figure: Mapping[str, Any], study: Any) -> list[str]:
        return [f"{figure['y']} against {figure['x']}, shaded: ±1 standard error."]
