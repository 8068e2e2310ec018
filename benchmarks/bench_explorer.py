"""Frame rate of the live explorer (``flocklab explore``): Vicsek with N = 1000 and the tongue.

Two measurements per case:

* **server**: one frame of :class:`flocklab.explore.app.Explorer` in this process (the model's
  steps in its compiled kernels, the recent frames as a dataset, the drawing's glyphs, the
  Bokeh sources and plots updated, the status text), timed over ``--frames`` frames after a
  warm-up; its inverse is the largest frame rate the server can give.
* **browser**: ``flocklab explore MODEL`` served in a subprocess and loaded in headless
  Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by Selenium); the preset is
  clicked, then Start, and the frames plotted in the page are counted over ``--seconds`` s
  (everything end to end: kernels, websocket, the browser's drawing). The page asks for a
  frame every 40 ms, so 25 frames/s is its ceiling. Skipped without a browser.

The cases: Vicsek preset ``transition`` (N = 1000, L = 15.8, one step a frame) and the
springs preset ``tongue, Verlet`` (6 points, dt = 0.01 s, five steps a frame: real time).
One kernel thread (the explorer's default). Writes ``benchmarks/results/explorer.md``.

Usage::

    .venv/bin/python benchmarks/bench_explorer.py [--frames 200] [--seconds 10]
        [--screenshot docs/_static/explorer.png]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: (model, preset, steps per frame).
CASES = (("vicsek", "transition", 1), ("springs", "tongue, Verlet", 5))
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


def server_rate(model_name: str, preset_name: str, speed: int, frames: int) -> float:
    """Frames per second of :class:`Explorer` frames in this process."""
    from flocklab.core.registry import get_model
    from flocklab.core.threads import set_threads
    from flocklab.explore.app import Explorer

    model = get_model(model_name)
    explorer = Explorer(model)
    preset = next(p for p in model.presets if p.name == preset_name)
    explorer.live.apply_preset(preset)
    explorer.live.steps_per_frame = speed
    set_threads(1)
    explorer.running = True
    for _ in range(20):
        explorer.tick()
    started = time.perf_counter()
    for _ in range(frames):
        explorer.tick()
    return frames / (time.perf_counter() - started)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        return sock.getsockname()[1]


def browser_rate(model_name: str, preset_name: str, seconds: float,
                 screenshot: Path | None = None) -> float | None:
    """Frames per second plotted in headless Chromium (``None`` without a browser); with
    ``screenshot``, the page is saved there as PNG at the end."""
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
    server = subprocess.Popen([sys.executable, "-m", "flocklab.cli.main", "explore",
                               model_name, "--port", str(port), "--no-browser"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1400,1000"):
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--screenshot", type=Path, default=None,
                        help="save the first case's page as this PNG (the docs' picture)")
    args = parser.parse_args()
    rows = []
    for index, (model, preset, speed) in enumerate(CASES):
        server = server_rate(model, preset, speed, args.frames)
        browser = browser_rate(model, preset, args.seconds,
                               args.screenshot if index == 0 else None)
        shown = "skipped (no browser)" if browser is None else f"{browser:.1f}"
        rows.append(f"| {model} | {preset} | {speed} | {server:.0f} | {shown} |")
        print(rows[-1], flush=True)
    load = os.getloadavg()[0]
    text = "\n".join([
        "# Live explorer frame rates",
        "",
        f"`benchmarks/bench_explorer.py --frames {args.frames} --seconds {args.seconds:g}` on "
        f"{platform.node() or 'this machine'} ({os.cpu_count()} cores, load average "
        f"{load:.1f} at the end; Python {platform.python_version()}). Server: frames per "
        "second of the explorer's frame in one process (kernels, glyphs, Bokeh sources, "
        "plots), after a warm-up. Browser: frames plotted per second in headless Chromium "
        "(the page asks for one every 40 ms: at most 25).",
        "",
        "| model | preset | steps per frame | server (frames/s) | browser (frames/s) |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
    ])
    out = REPO / "benchmarks" / "results" / "explorer.md"
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
