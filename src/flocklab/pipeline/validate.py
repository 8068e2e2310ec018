"""A whole config validated before any job runs: the schema (with the figure kinds' keys),
the studies and tasks (:mod:`flocklab.config.checks`), then the figures (their kinds'
checks, :mod:`flocklab.figures.kinds`). Every problem is reported at once, one line each
naming its key (:class:`~flocklab.core.parameters.ConfigError`).

This is the one place where configs meet figures: the config package knows nothing of the
figure kinds, and the kinds read configs only through the studies handed to them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flocklab.config.checks import check_studies_and_tasks, collect
from flocklab.config.loading import merge_includes, read_yaml
from flocklab.config.schema import load_schema
from flocklab.config.study import Study
from flocklab.core.parameters import ConfigError


def config_schema(path: str | Path | None = None) -> dict[str, Any]:
    """The JSON schema of a config: the schema file (default: the package's,
    :data:`flocklab.config.schema.DEFAULT_SCHEMA`) with ``$defs.figure`` completed by every
    figure kind's keys (:func:`flocklab.figures.kinds.figure_schema`)."""
    from flocklab.figures.kinds import figure_schema

    schema = load_schema(path)
    figure = schema.get("$defs", {}).get("figure")
    if figure is not None and "allOf" not in figure:
        schema["$defs"]["figure"] = figure_schema(figure)
    return schema


def validate_config(config: dict, schema_path: str | Path | None = None) -> dict[str, Study]:
    """Validate a config (in place, filling defaults) and expand its studies.

    Parameters
    ----------
    config : dict
        Parsed YAML; modified in place (defaults added).
    schema_path : path, optional
        JSON schema file (default: the package's).

    Returns
    -------
    dict of str to Study

    Raises
    ------
    ConfigError
        With every problem found, one line each naming the key and what is allowed: the
        schema's, then the model checks of every entry the schema accepted, then the figures
        whose study was built.
    """
    from flocklab.figures.kinds import FigureContext

    checked = check_studies_and_tasks(config, config_schema(schema_path))
    studies, problems = checked.studies, checked.problems
    context = FigureContext(config, studies)
    for name, figure in config["figures"].items():
        study = figure.get("study") if isinstance(figure, dict) else None
        if ("figures", name) in checked.broken or (study in config["studies"]
                                                   and study not in studies):
            continue  # its own schema problem, or its study's problem, is reported already
        with collect(problems):
            context.check(name)
    if problems:
        raise ConfigError("\n".join(problems))
    return studies


def load_config(path: str | Path, schema_path: str | Path | None = None
                ) -> tuple[dict, dict[str, Study]]:
    """Read a YAML config file (and the files it includes), validate it and expand its
    studies.

    Parameters
    ----------
    path : path
        The config file.
    schema_path : path, optional
        JSON schema file (default: the package's).

    Returns
    -------
    config : dict
        The merged config with defaults filled in.
    studies : dict of str to Study
        The expanded studies.

    Raises
    ------
    ConfigError
        With every problem found (:func:`validate_config`).
    """
    config = read_yaml(path)
    merge_includes(config, Path(path).parent)
    return config, validate_config(config, schema_path)
