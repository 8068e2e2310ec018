"""Frame rate of the live explorer (``flocklab explore``): Vicsek with N = 1000, the zonal
model and the tongue, with and without the structure plot.

Three measurements per case:

* **server**: one frame of :class:`flocklab.explore.app.Explorer` in this process (the model's
  steps in its compiled kernels, the recent frames as a dataset, the drawing's glyphs, the
  Bokeh sources and plots updated, the status text), timed over ``--frames`` frames after a
  warm-up; its inverse is the largest frame rate the server can give. Measured with the
  structure plot (a model that declares kinematics: its measure every
  :data:`~flocklab.explore.structure.STRUCTURE_EVERY` frames) and without it (the plot
  switched off), alternately over ``--rounds`` rounds; the medians are reported.
* **structure**: one computation of each structure measure of the current frame and its
  sending to the plot (:meth:`Explorer._update_structure`, forced), in ms, the median of
  ``--repeats``; divided by the refresh period k, its share of the page's 40 ms frame
  budget.
* **browser**: ``flocklab explore MODEL`` served in a subprocess and loaded in headless
  Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by Selenium); the preset is
  clicked, then Start, and the frames plotted in the page are counted over ``--seconds`` s
  (everything end to end: kernels, websocket, the browser's drawing). The page asks for a
  frame every 40 ms, so 25 frames/s is its ceiling. Skipped without a browser.

The cases: Vicsek preset ``transition`` (N = 1000, L = 15.8, one step a frame; periodic:
number fluctuations), the zonal preset ``highly parallel`` (N = 50 in 3-D open space, five
steps a frame; density profile) and the springs preset ``tongue, Verlet`` (6 points,
dt = 0.01 s, five steps a frame: real time; no kinematics, no structure plot). One kernel
thread (the explorer's default). Writes ``benchmarks/results/explorer.md``.

Usage::

    .venv/bin/python benchmarks/bench_explorer.py [--frames 200] [--seconds 10]
        [--rounds 3] [--repeats 30] [--screenshot docs/_static/explorer.png]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
#: (model, preset, steps per frame).
CASES = (("vicsek", "transition", 1), ("zonal", "highly parallel", 5),
         ("springs", "tongue, Verlet", 5))
#: Python: serve the explorer as ``flocklab explore MODEL --no-browser`` does.
SERVE = ("from flocklab.core.registry import get_model; "
         "from flocklab.core.threads import set_threads; "
         "from flocklab.explore.app import serve; set_threads(1); "
         "serve(get_model({model!r}), port={port}, show=False, structure={structure})")
#: Frame period of the page (ms): the budget a frame's work shares.
BUDGET_MS = 40.0
#: JavaScript: number of plotted points of the observables.
POINTS = ("const d = Bokeh.documents[0]; const s = d && d.get_model_by_name('series');"
          "return s ? s.data.t.length : 0;")
#: JavaScript: click the button labelled arguments[0] (inside shadow roots too).
CLICK = """
const found = []; const walk = (n) => { if (!n) return;
  if (n.tagName === 'BUTTON' && n.textContent.trim() === arguments[0]) found.push(n);
  if (n.shadowRoot) walk(n.shadowRoot); for (const c of n.children || []) walk(c); };
walk(document.body); if (found.length) found[0].click(); return found.length;
"""


def _explorer(model_name: str, preset_name: str, speed: int, structure: bool = True) -> Any:
    """An :class:`Explorer` running the preset, warmed up; ``structure=False`` switches its
    structure plot off."""
    from flocklab.core.registry import get_model
    from flocklab.core.threads import set_threads
    from flocklab.explore.app import Explorer

    model = get_model(model_name)
    explorer = Explorer(model, structure=structure)
    preset = next(p for p in model.presets if p.name == preset_name)
    explorer._apply(lambda: explorer.live.apply_preset(preset))
    explorer.live.steps_per_frame = speed
    set_threads(1)
    explorer.running = True
    for _ in range(20):
        explorer.tick()
    return explorer


def server_rate(model_name: str, preset_name: str, speed: int, frames: int,
                structure: bool = True) -> tuple[float, float]:
    """Frames per second of :class:`Explorer` frames in this process (with or without the
    structure plot), and the milliseconds per frame spent on the structure plot."""
    explorer = _explorer(model_name, preset_name, speed, structure)
    spent = [0.0]
    if explorer.structure is not None:
        update = explorer._update_structure

        def timed(full: bool) -> None:
            begun = time.perf_counter()
            update(full)
            spent[0] += time.perf_counter() - begun
        explorer._update_structure = timed
    started = time.perf_counter()
    for _ in range(frames):
        explorer.tick()
    return frames / (time.perf_counter() - started), 1e3 * spent[0] / frames


def structure_cost(model_name: str, preset_name: str, speed: int, repeats: int
                   ) -> dict[str, float]:
    """Milliseconds of one structure computation sent to the plot, per measure (median of
    ``repeats``, each on a new frame); empty for a model without kinematics."""
    from flocklab.explore.structure import MEASURES

    explorer = _explorer(model_name, preset_name, speed)
    if explorer.structure is None:
        return {}
    costs = {}
    for measure in MEASURES:
        explorer.structure_measure.value = measure
        times = []
        for _ in range(repeats):
            explorer.live.advance()
            started = time.perf_counter()
            explorer._update_structure(full=True)
            times.append(time.perf_counter() - started)
        costs[measure] = 1e3 * statistics.median(times)
    return costs


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        return sock.getsockname()[1]


def browser_rate(model_name: str, preset_name: str, seconds: float,
                 screenshot: Path | None = None, structure: bool = True) -> float | None:
    """Frames per second plotted in headless Chromium (``None`` without a browser); with
    ``screenshot``, the page is saved there as PNG at the end. The page is served as
    ``flocklab explore MODEL`` serves it (one kernel thread), with or without the structure
    plot."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None
    binary, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if binary is None or driver_path is None:
        return None
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    code = SERVE.format(model=model_name, port=port, structure=structure)
    server = subprocess.Popen([sys.executable, "-c", code], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1400,1100"):
        options.add_argument(argument)
    options.binary_location = binary
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        time.sleep(8)
        driver.get(f"http://localhost:{port}/")
        while not driver.execute_script(POINTS):
            time.sleep(0.5)
        driver.execute_script(CLICK, preset_name)
        time.sleep(3)
        driver.execute_script(CLICK, "Start")
        time.sleep(5)  # warm-up
        first, started = driver.execute_script(POINTS), time.perf_counter()
        time.sleep(seconds)
        rate = (driver.execute_script(POINTS) - first) / (time.perf_counter() - started)
        if screenshot is not None:
            driver.save_screenshot(str(screenshot))
        return rate
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=20)


def _rate_text(rate: float | None) -> str:
    return "skipped (no browser)" if rate is None else f"{rate:.1f}"


def case_rows(model: str, preset: str, speed: int, args: argparse.Namespace,
              screenshot: Path | None) -> tuple[str, dict[str, float]]:
    """The table row of one case (server rates without and with the structure plot,
    alternately; its time per frame; browser rates without and with it) and the cost of
    one structure computation per measure."""
    rates: dict[bool, list[float]] = {True: [], False: []}
    spent = []
    for _ in range(args.rounds):
        for structure in (False, True):
            rate, ms = server_rate(model, preset, speed, args.frames, structure)
            rates[structure].append(rate)
        spent.append(ms)
    costs = structure_cost(model, preset, speed, args.repeats)
    without, with_ = (statistics.median(rates[s]) for s in (False, True))
    if costs:
        ms = statistics.median(spent)
        server = f"{without:.0f} | {with_:.0f} | {ms:.3f} ({100 * ms * with_ / 1e3:.1f} %)"
        browser = (f"{_rate_text(browser_rate(model, preset, args.seconds, structure=False))}"
                   f" | {_rate_text(browser_rate(model, preset, args.seconds, screenshot))}")
    else:
        server = f"{without:.0f} | (no plot) | –"
        browser = f"{_rate_text(browser_rate(model, preset, args.seconds, screenshot))} | –"
    return f"| {model} | {preset} | {speed} | {server} | {browser} |", costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--screenshot", type=Path, default=None,
                        help="save the first case's page as this PNG (the docs' picture)")
    args = parser.parse_args()
    from flocklab.explore.structure import STRUCTURE_EVERY

    rows, cost_rows = [], []
    for index, case in enumerate(CASES):
        row, costs = case_rows(*case, args, args.screenshot if index == 0 else None)
        rows.append(row)
        print(row, flush=True)
        for measure, cost in costs.items():
            share = cost / STRUCTURE_EVERY / BUDGET_MS
            cost_rows.append(f"| {case[0]} | {measure} | {cost:.2f} | "
                             f"{cost / STRUCTURE_EVERY:.3f} | {100 * share:.1f} % |")
            print(cost_rows[-1], flush=True)
    load = os.getloadavg()[0]
    text = "\n".join([
        "# Live explorer frame rates",
        "",
        f"## {time.strftime('%Y-%m-%d')}",
        "",
        f"`benchmarks/bench_explorer.py --frames {args.frames} --seconds {args.seconds:g} "
        f"--rounds {args.rounds} --repeats {args.repeats}` on "
        f"{platform.node() or 'this machine'} ({os.cpu_count()} cores, load average "
        f"{load:.1f} at the end; Python {platform.python_version()}). Server: frames per "
        "second of the explorer's frame in one process (kernels, glyphs, Bokeh sources, "
        "plots), after a warm-up, without and with the structure plot (median of the "
        "rounds, run alternately), and the time per frame the structure plot took in the "
        "frames with it (its share of the server's frame in brackets). Browser: frames "
        "plotted per second in headless Chromium without and with the structure plot "
        "(the page asks for one every 40 ms: at most 25).",
        "",
        "| model | preset | steps per frame | server without structure plot (frames/s) | "
        "server with it (frames/s) | structure plot per frame (ms) | browser without "
        "(frames/s) | browser with (frames/s) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        f"One structure computation sent to the plot (median of {args.repeats}), and its "
        f"cost per frame at one computation every k = {STRUCTURE_EVERY} frames, as a share "
        f"of the page's {BUDGET_MS:g} ms frame budget:",
        "",
        "| model | measure | per computation (ms) | per frame (ms) | share of the budget |",
        "| --- | --- | --- | --- | --- |",
        *cost_rows,
        "",
    ])
    out = REPO / "benchmarks" / "results" / "explorer.md"
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
