"""The schema pass of config validation: the JSON schema, its defaults and :class:`ConfigError`.

The schema ships as package data (``schema.yaml``, linked from ``workflow/schemas/``) so that
a wheel install can validate a config. Validation fills the schema's defaults into the config
in place; the first problem raises :class:`ConfigError` with one line naming the key.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from flocklab.core.names import nearest_names
from flocklab.core.parameters import ConfigError

#: The config schema, shipped as package data (so a wheel install can validate a config).
DEFAULT_SCHEMA = Path(__file__).resolve().parent / "schema.yaml"


def _with_defaults(validator_class: type) -> type:
    """``validator_class`` whose ``properties`` keyword also fills in the defaults."""
    set_properties = validator_class.VALIDATORS["properties"]

    def properties_with_defaults(validator: Any, properties: Mapping[str, Any], instance: Any,
                                 schema: Mapping[str, Any]) -> Iterator[Any]:
        if isinstance(instance, dict):
            for name, subschema in properties.items():
                if isinstance(subschema, dict) and "default" in subschema:
                    instance.setdefault(name, copy.deepcopy(subschema["default"]))
        yield from set_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": properties_with_defaults})


def _key_path(path: Any) -> str:
    """Dotted config key of a jsonschema error path (``figures.fig1.panels[0]``)."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def load_schema(path: str | Path | None = None) -> dict:
    """The config schema file as it is (default: the package's ``schema.yaml``); the figure
    kinds' keys are added above this package (:func:`flocklab.pipeline.config_schema`).

    Parameters
    ----------
    path : path, optional
        A YAML or JSON schema file.

    Returns
    -------
    dict
        The JSON schema.
    """
    with open(path or DEFAULT_SCHEMA, encoding="utf-8") as stream:
        schema = yaml.safe_load(stream)
    return schema


def _describe(schema: Mapping[str, Any]) -> str:
    return f" ({schema['description'].strip()})" if "description" in schema else ""


def _message(error: Any) -> str:
    """One line for a schema error: the key, what is wrong, what is allowed."""
    key = _key_path(error.absolute_path)
    if error.validator in ("oneOf", "anyOf"):
        return (f"config key '{key}': {error.instance!r} matches none of the allowed "
                f"forms{_describe(error.schema)}")
    if error.validator == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        extra = [name for name in error.instance if name not in allowed]
        where = "" if key == "(top level)" else f"{key}."
        if len(extra) == 1:
            return (f"config key '{where}{extra[0]}': unknown key"
                    f"{nearest_names(extra[0], allowed)}")
        return (f"config key '{key}': {error.message}; allowed keys: "
                f"{', '.join(allowed) or 'none'}")
    return f"config key '{key}': {error.message}{_describe(error.schema)}"


def schema_problems(config: dict, schema: Mapping[str, Any]) -> dict[tuple, str]:
    """Validate ``config`` in place against ``schema``, filling defaults where it is valid;
    return one message per key path that fails (its most relevant error,
    :func:`jsonschema.exceptions.best_match`), naming the key."""
    validator_class = _with_defaults(jsonschema.Draft202012Validator)
    validator = validator_class(schema)
    by_key: dict[tuple, list] = {}
    for error in validator.iter_errors(config):
        by_key.setdefault(tuple(error.absolute_path), []).append(error)
    return {path: _message(jsonschema.exceptions.best_match(errors))
            for path, errors in by_key.items()}


def validate_schema(config: dict, schema: Mapping[str, Any]) -> dict:
    """Validate ``config`` in place against ``schema`` and fill defaults.

    Parameters
    ----------
    config : dict
        Parsed YAML; modified in place (defaults added).
    schema : mapping
        JSON schema (:func:`load_schema`).

    Returns
    -------
    dict
        ``config``.

    Raises
    ------
    ConfigError
        With one line per key that fails (:func:`schema_problems`).
    """
    problems = schema_problems(config, schema)
    if problems:
        raise ConfigError("\n".join(problems.values()))
    return config
