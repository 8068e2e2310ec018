"""Reference pages generated at build time from the code, never typed by hand.

* ``reference/generated/config.md``: the config reference from the schema
  (:func:`flocklab.pipeline.config_schema`, with the figure kinds' keys);
* ``reference/generated/cli.md``: the command-line reference from the argparse parser
  (:func:`flocklab.cli.main.build_parser`);
* ``reference/generated/models/<name>.md``: one page per model of the package from its
  declarations (parameters with units, ranges and defaults; observables; snapshot variables;
  metrics; derived quantities; critical controls; tasks with their options);
* ``reference/generated/benchmarks.md``: the measured tables under ``benchmarks/results/``.

The pages are rewritten on every build (``builder-inited``), before Sphinx reads sources.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parents[1] / "reference" / "generated"


def cell(text: Any) -> str:
    """Text for a Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown pipe table."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def math(symbol: str) -> str:
    """A LaTeX symbol as inline math, or empty."""
    return f"${symbol}$" if symbol else ""


def code(text: Any) -> str:
    """Inline code (backticks doubled when the text holds one)."""
    text = str(text)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


# ----------------------------------------------------------------------------- config


def schema_type(node: Mapping[str, Any]) -> str:
    """The type of a schema node in words."""
    if "enum" in node:
        return "one of " + ", ".join(str(value) for value in node["enum"])
    if "$ref" in node:
        return node["$ref"].rsplit("/", 1)[-1]
    kind = node.get("type", "see description" if "oneOf" in node else "any")
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def schema_rows(node: Mapping[str, Any], prefix: str) -> Iterator[list[str]]:
    """One row per key under ``node`` (recursively into objects and arrays of objects)."""
    required = set(node.get("required", ()))
    for key, sub in node.get("properties", {}).items():
        if not isinstance(sub, Mapping):
            continue
        path = f"{prefix}{key}"
        default = json.dumps(sub["default"]) if "default" in sub else (
            "required" if key in required else "")
        yield [code(path), schema_type(sub), default, sub.get("description", "")]
        if "properties" in sub:
            yield from schema_rows(sub, path + ".")
        items = sub.get("items")
        if isinstance(items, Mapping) and "properties" in items:
            yield from schema_rows(items, path + "[].")
        extra = sub.get("additionalProperties")
        if isinstance(extra, Mapping) and "properties" in extra:
            yield from schema_rows(extra, path + ".<key>.")


HEADER = ["key", "type", "default", "meaning"]


def config_page() -> str:
    """The config reference from the schema."""
    from flocklab.figures.kinds import KINDS
    from flocklab.pipeline import config_schema

    schema = config_schema()
    defs = schema["$defs"]
    parts = ["# Config reference\n",
             "Generated from the schema (`src/flocklab/config/schema.yaml`) and the figure kinds "
             "(`flocklab.figures.kinds.KINDS`) at build time. "
             "Model parameters are checked against each model's declarations after the schema: "
             "see the [model pages](models/index.md).\n",
             cell(schema.get("description", "")) + "\n",
             "## Top level\n", table(HEADER, list(schema_rows(schema, "")))]
    for name, title in (("study", "studies.NAME"), ("sensitivity", "studies.NAME.sensitivity")):
        described = cell(defs[name].get("description", ""))
        parts += [f"## `{title}`\n", *([described + "\n"] if described else []),
                  table(HEADER, list(schema_rows(defs[name], "")))]
    for name, title in (("values", "swept values"), ("value", "value"),
                        ("parameter", "parameter")):
        parts += [f"## {title} (`$defs.{name}`)\n", cell(defs[name].get("description", "")) + "\n"]
    parts += ["## `figures.NAME`\n",
              "Every figure has `kind`, `title` and (unless the kind says otherwise) `study`; "
              "each kind adds its own keys.\n"]
    branches = {b["if"]["properties"]["kind"]["const"]: b["then"]
                for b in defs["figure"].get("allOf", [])}
    for name, kind in KINDS.items():
        doc = (type(kind).__doc__ or "").strip().split("\n\n")[0]
        rows = [row for row in schema_rows(branches.get(name, {}), "")
                if row[0] not in ("`kind`", "`study`", "`title`")]
        parts += [f"### kind `{name}`\n", cell(doc or kind.description) + "\n",
                  f"Needs a study: {'yes' if kind.needs_study else 'no'}. "
                  f"Animation: {'yes' if kind.animation else 'no'}.\n",
                  table(HEADER, rows) if rows else "No further keys.\n"]
    return "\n".join(parts)


# -------------------------------------------------------------------------------- CLI


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-commands of ``parser`` by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def help_block(title: str, parser: argparse.ArgumentParser, level: int) -> str:
    return f"{'#' * level} `{title}`\n\n```text\n{parser.format_help().rstrip()}\n```\n"


def cli_page() -> str:
    """The command-line reference from the parser."""
    from flocklab.cli.main import build_parser
    from flocklab.core.registry import available_models, get_model

    models = set(available_models())
    parser = build_parser("")
    parts = ["# Command-line reference\n",
             "Generated from the argparse parser (`flocklab.cli.main.build_parser`) at build "
             "time: the same text as `flocklab ... --help`.\n", help_block("flocklab", parser, 2)]
    for name, sub in subparsers(parser).items():
        parts.append(help_block(f"flocklab {name}", sub, 2))
        for model, model_parser in subparsers(sub).items():
            if model in models and not package_model(get_model(model)):
                continue  # a test plugin's model
            parts.append(help_block(f"flocklab {name} {model}", model_parser, 3))
            for task, task_parser in subparsers(model_parser).items():
                parts.append(help_block(f"flocklab {name} {model} {task}", task_parser, 4))
    return "\n".join(parts)


# ----------------------------------------------------------------------------- models


def package_model(model: Any) -> bool:
    """A model of this package (not one of the test plugins)."""
    return type(model).__module__.startswith("flocklab.")


def parameter_rows(specs: Any) -> list[list[str]]:
    return [[code(spec.name), math(spec.symbol), spec.kind, code(spec.unit),
             spec.range_text(), code(json.dumps(spec.default)), spec.description]
            for spec in specs]


PARAMETER_HEADER = ["name", "symbol", "kind", "unit", "allowed", "default", "meaning"]


def model_page(model: Any) -> str:
    """One model's page from its declarations."""
    time = (f"integer steps (`steps`), unit `{model.time_units}`" if model.time_mode == "steps"
            else f"continuous (`t_end`, `dt` in `{model.time_units}`; default "
                 f"dt = {model.default_dt:g})")
    order_note = (", an order parameter on [0, 1] (Binder cumulant, `time_to_order`, "
                  "histogram, critical fits)")
    parts = [f"# `{model.name}`: {model.title}\n", cell(model.description) + ".\n",
             f"**Source.** {cell(model.reference)}.\n", f"**Time.** {time}.\n",
             f"**Primary observable.** `{model.primary_observable}`"
             f"{order_note if model.primary_is_order_parameter else ''}; size parameter: "
             f"`{model.size_parameter}`.\n",
             "## Parameters\n", table(PARAMETER_HEADER, parameter_rows(model.parameters)),
             "## Observables (on `time`)\n",
             table(["name", "symbol", "unit", "range", "meaning"],
                   [[code(o.name), math(o.symbol), code(o.units), f"{o.low} … {o.high}",
                     o.long_name] for o in model.observables])]
    if model.snapshot_variables:
        parts += [f"## Snapshot variables (on `frame`, `{model.entity_dim}`)\n",
                  table(["name", "unit", "type", "entity", "meaning"],
                        [[code(name), code(v.units), v.dtype, v.entity_dim or model.entity_dim,
                          v.long_name] for name, v in model.snapshot_variables.items()])]
    parts += declared_sections(model)
    parts += task_sections(model)
    return "\n".join(parts)


def declared_sections(model: Any) -> list[str]:
    parts = []
    if model.run_metrics:
        parts += ["## Run metrics (`flocklab metrics`, the summary)\n",
                  table(["name", "symbol", "unit", "meaning"],
                        [[code(m.name), math(m.symbol), code(m.units), m.long_name]
                         for m in model.run_metrics])]
    if model.derived_quantities:
        parts += ["## Derived quantities\n",
                  table(["name", "symbol", "unit", "meaning"],
                        [[code(d.name), math(d.symbol), code(d.units), d.long_name]
                         for d in model.derived_quantities])]
    if model.derived_factors:
        parts += ["## Derived sensitivity factors\n",
                  table(["factor", "sets parameter"],
                        [[code(f.name), code(f.target)] for f in model.derived_factors])]
    if model.critical_controls:
        parts += ["## Critical controls (`critical: {control: KEY}`)\n",
                  table(["key", "coordinate", "ordered side", "exponent", "needs"],
                        [[code(c.key), code(c.coordinate), c.ordered_side, c.exponent,
                          ", ".join(c.needs)] for c in model.critical_controls])]
    return parts


def task_sections(model: Any) -> list[str]:
    if not model.tasks:
        return []
    parts = ["## Tasks (`flocklab task " + model.name + " TASK`, config `tasks:`)\n"]
    for task in model.tasks:
        parts += [f"### `{task.name}`\n", cell(task.description) + ".\n"]
        if task.figure:
            parts.append(f"Figure (kind `task`): {cell(task.figure)}.\n")
        if task.options:
            parts.append(table(PARAMETER_HEADER, parameter_rows(task.options)))
    return parts


def models_index(models: list[Any]) -> str:
    rows = [[f"[`{m.name}`]({m.name}.md)", m.description, m.time_mode,
             ", ".join(t.name for t in m.tasks)] for m in models]
    toctree = "\n".join(m.name for m in models)
    return ("# Models\n\nGenerated from each model's declarations at build time.\n\n"
            + table(["model", "what", "time", "tasks"], rows)
            + f"\n```{{toctree}}\n:hidden:\n\n{toctree}\n```\n")


# ---------------------------------------------------------------------------- benchmarks


def benchmarks_page() -> str:
    """The measured tables of ``benchmarks/results/*.md``, included as written."""
    parts = ["# Measured tables\n",
             "The files under `benchmarks/results/`, written by the scripts under `benchmarks/` "
             "(each file says which), included as they are.\n"]
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        body = "\n".join("##" + line if line.startswith("#") else line
                         for line in text.splitlines())
        parts += [f"(bench-{path.stem})=\n", f"## {path.stem}\n",
                  f"*File `benchmarks/results/{path.name}`.*\n", body]
    return "\n".join(parts)


# ---------------------------------------------------------------------------- writing


def write(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (no needless rebuilds)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(app: Any = None) -> None:
    from flocklab.core.registry import available_models, get_model

    models = [get_model(name) for name in available_models()]
    models = [m for m in models if package_model(m)]
    write(OUT / "config.md", config_page())
    write(OUT / "cli.md", cli_page())
    write(OUT / "benchmarks.md", benchmarks_page())
    write(OUT / "models" / "index.md", models_index(models))
    for model in models:
        write(OUT / "models" / f"{model.name}.md", model_page(model))


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
