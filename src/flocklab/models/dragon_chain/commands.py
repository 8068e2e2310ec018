"""``flocklab dragon all|q1|q2|q3|q4|q5``: the bench-dragon contest answers.

The dragon_chain model's own command (its ``commands`` declaration,
:class:`flocklab.core.commands.Command`): a thin layer over the model's tasks
(:mod:`flocklab.models.dragon_chain.tasks`): each verb runs one task through the task stage
(:func:`flocklab.stages.tasks.run_task`) with the question's defaults (pitch 0.55 m for Q1
and Q2, 1.7 m for Q4 and Q5) and prints the answer in the contest's words, benches and
handles numbered from 1 as in the problem statement. Every verb takes the bench geometry.

Without ``--out-dir`` nothing is kept. With it, the directory receives the workbooks in the
contest's templates (``result1.xlsx``, ``result2.xlsx``, ``result4.xlsx``), the same tables
as CSV (UTF-8 with a byte-order mark), the paper tables (``paper1``, ``paper2``, ``paper4``)
and one JSON document per question (``q1.json`` ... ``q5.json``: answer, checks, parameters,
options, package version and git commit — the provenance of the CSV files beside it; the
workbooks carry the same as custom document properties).

Reference: 2024 China Undergraduate Mathematical Contest in Modeling, problem A.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from flocklab.core.commands import Command, CommandContext

#: Bench geometry parameters of the dragon_chain model (every verb takes them).
GEOMETRY = ("n_benches", "head_board", "body_board", "board_width", "hole_offset")


@dataclasses.dataclass(frozen=True)
class Question:
    """One verb: its task, the model parameters it takes and the defaults it changes."""

    task: str
    title: str
    parameters: tuple[str, ...]
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    paper: str = ""


QUESTIONS: dict[str, Question] = {
    "q1": Question("positions", "Q1: positions and speeds on the in-spiral, 0 ... 300 s",
                   ("pitch", "start_turn", "head_speed"), paper="paper1"),
    "q2": Question("collision", "Q2: the moment two benches first touch",
                   ("pitch", "start_turn", "head_speed"), paper="paper2"),
    "q3": Question("min_pitch", "Q3: smallest pitch reaching the turnaround circle",
                   ("turn_diameter",)),
    "q4": Question("turnaround", "Q4: the S-shaped turnaround, -100 ... 100 s",
                   ("pitch", "turn_diameter", "ratio", "head_speed"), {"pitch": 1.7},
                   paper="paper4"),
    "q5": Question("max_speed", "Q5: largest head speed with every handle <= the limit",
                   ("pitch", "turn_diameter", "ratio"), {"pitch": 1.7}),
}

def _setup(parser: argparse.ArgumentParser, context: CommandContext) -> None:
    """The ``dragon`` command's verbs (``all`` and one per question)."""
    from flocklab.core.registry import get_model

    model = get_model("dragon_chain")
    specs = {spec.name: spec for spec in model.parameters}
    add_parameter = context.add_parameter
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    every = verbs.add_parser("all", help="Q1-Q5 with the contest's values: answers, paper "
                                         "tables and, with --out-dir, the three workbooks")
    _add_common(every, specs, add_parameter, GEOMETRY, {})
    every.set_defaults(question="all")
    for verb, question in QUESTIONS.items():
        task = model.task(question.task)
        aliases = sorted({task.name, task.name.replace("_", "-")})
        sub = verbs.add_parser(verb, aliases=aliases,
                               help=question.title,
                               description=f"{task.description}. {model.reference}.")
        group = sub.add_argument_group("question options")
        for spec in task.options:
            add_parameter(group, spec)
        _add_common(sub, specs, add_parameter, question.parameters + GEOMETRY,
                    question.defaults)
        sub.set_defaults(question=verb)


def _add_common(parser: argparse.ArgumentParser, specs: Mapping[str, Any],
                add_parameter: Callable, names: tuple[str, ...],
                defaults: Mapping[str, Any]) -> None:
    group = parser.add_argument_group("model parameters (bench geometry last)")
    for name in names:
        spec = specs[name]
        if name in defaults:
            spec = dataclasses.replace(spec, default=defaults[name])
        add_parameter(group, spec)
    parser.add_argument("--out-dir", metavar="DIR", default=None,
                        help="write the workbooks, CSV and paper tables and the JSON "
                             "documents here (default: print only, write nothing)")
    parser.add_argument("--json", action="store_true",
                        help="print the answers as one strict JSON document instead of text")


def run_dragon_command(args: argparse.Namespace) -> dict[str, Any]:
    """Run the verb the parsed ``args`` name; print and return ``{verb: answer}``.

    Every question's parameters and options are checked before the first one runs.
    """
    verbs = list(QUESTIONS) if args.question == "all" else [args.question]
    geometry = {name: getattr(args, name) for name in GEOMETRY
                if getattr(args, name) is not None}
    out_dir = Path(args.out_dir) if args.out_dir else None
    plans = {verb: _plan(verb, args, geometry) for verb in verbs}
    answers: dict[str, Any] = {}
    texts: list[str] = []
    for verb, entry in plans.items():
        start = time.perf_counter()
        print(f"flocklab: {QUESTIONS[verb].title} ...", file=sys.stderr, flush=True)
        document, text = _run_question(verb, entry, out_dir)
        print(f"flocklab: {verb} done in {time.perf_counter() - start:.1f} s",
              file=sys.stderr, flush=True)
        answers[verb] = document["result"]["answer"]
        texts.append(text)
    if args.json:
        from flocklab.core.io import json_ready

        print(json.dumps(json_ready(answers), ensure_ascii=False, allow_nan=False))
    else:
        print("\n\n".join(texts))
    if out_dir is not None:
        written = sorted(p.name for p in out_dir.iterdir() if p.suffix in (".xlsx", ".json"))
        print(f"wrote {', '.join(written)} (and the CSV tables) in {out_dir}",
              file=sys.stderr)
    return answers


#: The dragon_chain model's commands (its ``commands`` declaration).
COMMANDS = (
    Command("dragon", "the bench-dragon contest answers (2024 CUMCM problem A)", _setup,
            run_dragon_command,
            description="Answers of 2024 CUMCM problem A (the bench dragon) in the contest's "
                        "words, benches numbered from 1; with --out-dir also result1.xlsx, "
                        "result2.xlsx, result4.xlsx in the contest's templates, the same "
                        "tables as CSV (UTF-8 with a byte-order mark), the paper tables and "
                        "q1..q5.json (answers, checks, parameters, version, git commit). Each "
                        "question has its own defaults (pitch 0.55 m for Q1-Q2, 1.7 m for "
                        "Q4-Q5)."),
)


def _plan(verb: str, args: argparse.Namespace, geometry: Mapping[str, Any]
          ) -> dict[str, Any]:
    """The task entry of ``verb``: its defaults, then the options given on the command line
    (a single verb only), resolved and checked (ParameterError naming the key)."""
    from flocklab.core.registry import get_model

    question = QUESTIONS[verb]
    model = get_model("dragon_chain")
    task = model.task(question.task)
    params = {**question.defaults, **geometry}
    options: dict[str, Any] = {}
    if args.question != "all":
        params.update({name: getattr(args, name) for name in question.parameters
                       if getattr(args, name) is not None})
        options = {spec.name: getattr(args, spec.name) for spec in task.options
                   if getattr(args, spec.name, None) is not None}
    resolved = task.resolve(model.resolve(dict(params)), options)
    return {"model": model.name, "task": task.name, "params": params, "options": resolved,
            "description": question.title}


def _run_question(verb: str, entry: Mapping[str, Any], out_dir: Path | None
                  ) -> tuple[dict[str, Any], str]:
    """Run the task ``entry`` into ``out_dir`` (a temporary directory when None); return the
    written document and the answer's text (with the paper tables read back)."""
    from flocklab.stages.tasks import run_task

    with tempfile.TemporaryDirectory(prefix="flocklab-dragon-") as scratch:
        directory = out_dir if out_dir is not None else Path(scratch)
        document = run_task(entry, directory / f"{verb}.json")
        text = answer_text(verb, document, directory)
    return document, text


# --------------------------------------------------------------------------- wording


def answer_text(verb: str, document: Mapping[str, Any], directory: Path) -> str:
    """The answer of ``verb`` in the contest's words (Chinese, then one English line), with
    the paper tables the question asks for when they were written into ``directory``."""
    from flocklab.models.dragon_chain.geometry import handle_labels

    params, result = document["parameters"], document["result"]
    answer = result["answer"]
    labels = handle_labels(int(params["n_benches"]) + 1)
    lines = _WORDING[verb](params, document["options"], answer, labels)
    paper = QUESTIONS[verb].paper
    for name in ("positions", "speeds") if paper != "paper2" else ("",):
        path = directory / (f"{paper}_{name}.csv" if name else f"{paper}.csv")
        if paper and path.exists():
            lines += ["", format_table(path)]
    return "\n".join(lines)


def _q1(params: Mapping[str, Any], options: Mapping[str, Any], answer: Mapping[str, Any],
        labels: list[str]) -> list[str]:
    return [f"问题1：螺距 {params['pitch']:g} m，龙头前把手速度 {params['head_speed']:g} m/s，"
            f"{options['t_start']:g} s 至 {options['t_end']:g} s 每 {options['t_step']:g} s "
            f"的位置和速度见 result1.xlsx；论文表（每 {options['paper_every']:g} s）如下。",
            f"Q1: {answer['times']} times x {answer['handles']} handles; head at "
            f"{options['t_end']:g} s: ({_xy(answer['at_t_end']['head'])}) m."]


def _q2(params: Mapping[str, Any], options: Mapping[str, Any], answer: Mapping[str, Any],
        labels: list[str]) -> list[str]:
    if answer["time"] is None:
        return ["问题2：盘入至螺线中心前板凳之间不发生碰撞。",
                "Q2: no two benches touch before the head reaches the centre."]
    head = answer["at_contact"]["head"]
    pairs = "；".join(f"{bench_name(j, labels)}与{bench_name(k, labels)}"
                     for j, k in (pair["benches"] for pair in answer["touching"]))
    return [f"问题2：舞龙队盘入到 {answer['time']:.6f} s 时板凳之间发生碰撞，舞龙队无法继续"
            f"盘入。相撞的板凳：{pairs}。此时龙头前把手位于 ({_xy(head)}) m，"
            f"距螺线中心 {answer['head_radius']:.6f} m。各把手位置和速度见 result2.xlsx；"
            "论文表如下。",
            f"Q2: first contact at t = {answer['time']:.6f} s, head radius "
            f"{answer['head_radius']:.6f} m."]


def _q3(params: Mapping[str, Any], options: Mapping[str, Any], answer: Mapping[str, Any],
        labels: list[str]) -> list[str]:
    diameter = params["turn_diameter"]
    return [f"问题3：最小螺距为 {answer['min_pitch']:.6f} m，龙头前把手能够沿相应的螺线盘入到"
            f"直径 {diameter:g} m 的调头空间边界，途中板凳之间不发生碰撞。",
            f"Q3: smallest pitch {answer['min_pitch']:.6f} m (turnaround circle of diameter "
            f"{diameter:g} m)."]


def _q4(params: Mapping[str, Any], options: Mapping[str, Any], answer: Mapping[str, Any],
        labels: list[str]) -> list[str]:
    radii = "、".join(f"{r:.6f}" for r in answer["radii"])
    verdict = "可以" if answer["shorter_by_changing_ratio"] else "不能"
    return [f"问题4：调头曲线长 {answer['s_curve_length']:.6f} m（两段圆弧半径 {radii} m，"
            f"半径比 {params['ratio']:g}）；保持各部分相切时调整圆弧，调头曲线{verdict}变短。"
            f"{options['t_start']:g} s 至 {options['t_end']:g} s 的位置和速度见 "
            "result4.xlsx；论文表如下。",
            f"Q4: S-curve length {answer['s_curve_length']:.6f} m; shorter by changing the "
            f"arcs: {'yes' if answer['shorter_by_changing_ratio'] else 'no'}."]


def _q5(params: Mapping[str, Any], options: Mapping[str, Any], answer: Mapping[str, Any],
        labels: list[str]) -> list[str]:
    handles = "、".join(handle_name(h, labels) for h in answer["binding_handles"])
    limit = options["limit"]
    return [f"问题5：龙头的最大行进速度为 {answer['max_head_speed']:.6f} m/s，此时舞龙队各"
            f"把手的速度均不超过 {limit:g} m/s（达到 {limit:g} m/s 的把手：{handles}）。",
            f"Q5: largest head speed {answer['max_head_speed']:.6f} m/s (peak handle speed "
            f"ratio {answer['max_ratio']:.6f})."]


_WORDING: dict[str, Callable[..., list[str]]] = {"q1": _q1, "q2": _q2, "q3": _q3, "q4": _q4,
                                                  "q5": _q5}


def _xy(point: Mapping[str, float]) -> str:
    return f"{point['x']:.6f}, {point['y']:.6f}"


def bench_name(bench: int, labels: list[str]) -> str:
    """Bench ``bench`` (0 = head bench) numbered from 1 as in the problem statement, with
    the name of its front handle's row: ``第1节板凳（龙头）``, ``第9节板凳（第8节龙身）``."""
    return f"第{bench + 1}节板凳（{labels[bench]}）"


def handle_name(handle: int, labels: list[str]) -> str:
    """Handle ``handle`` (0 = head front) in the contest's words: ``龙头前把手``,
    ``第3节龙身前把手``, ..., ``龙尾后把手``."""
    if handle == len(labels) - 1:
        return "龙尾后把手"
    return f"{labels[handle]}前把手"


def format_table(path: Path) -> str:
    """A table CSV (with its byte-order mark) as aligned text, its file name on top."""
    with open(path, encoding="utf-8-sig", newline="") as stream:
        rows = list(csv.reader(stream))
    width = max(_display_width(row[0]) for row in rows)
    cells = max(len(cell) for row in rows for cell in row[1:])
    lines = [path.name]
    for row in rows:
        label = row[0] + " " * (width - _display_width(row[0]))
        lines.append("  ".join([label, *(cell.rjust(cells) for cell in row[1:])]))
    return "\n".join(lines)


def _display_width(text: str) -> int:
    """Terminal columns of ``text``: CJK and full-width characters take two."""
    return sum(2 if ord(char) >= 0x1100 and not 0xFF61 <= ord(char) <= 0xFFDC else 1
               for char in text)
