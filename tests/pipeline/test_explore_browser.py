"""The live explorer in a real browser: for every registered model, ``flocklab explore``
serves a page that headless Chromium loads; pressing Start makes the plotted observables
grow, moving a parameter slider is applied (at the next step or by a restart, said on the
page) and the plotted values change; a model that declares kinematics shows its structure
plot, the others none; the console shows no error."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flocklab.core.registry import available_models, get_model

pytest.importorskip("panel", reason="the explorer needs Panel (pip install 'flocklab[explore]')")

#: JavaScript: every element under ``document`` matching a selector, shadow roots included.
FIND_ALL = """
const selector = arguments[0]; const found = [];
const walk = (node) => {
  if (!node) return;
  if (node.matches && node.matches(selector)) found.push(node);
  if (node.shadowRoot) walk(node.shadowRoot);
  for (const child of node.children || []) walk(child);
};
walk(document.body); return found;
"""
#: JavaScript: ``[number of points, last values]`` of the plotted observables.
SERIES = """
const doc = Bokeh.documents[0]; if (!doc) return null;
const source = doc.get_model_by_name('series'); if (!source) return null;
const names = Object.keys(source.data).filter(k => k !== 't');
const length = source.data.t.length;
return [length, JSON.stringify(names.map(k => length ? source.data[k][length - 1] : null))];
"""
#: JavaScript: points of the structure plot's current frame (null: no structure plot).
STRUCTURE = """
const doc = Bokeh.documents[0]; const source = doc && doc.get_model_by_name('structure-frame');
return source ? source.data.x.length : null;
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        return sock.getsockname()[1]


def _wait_for(condition, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


@pytest.fixture
def server(tmp_path: Path, repo: Path):
    """``start(model) -> url``: ``flocklab explore MODEL`` on a free port, stopped after."""
    processes = []

    def start(model: str) -> str:
        port = _free_port()
        log = open(tmp_path / f"{model}.log", "w")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(repo / "src"), os.environ.get("PYTHONPATH", "")])}
        process = subprocess.Popen(
            [sys.executable, "-m", "flocklab.cli.main", "explore", model, "--port", str(port),
             "--no-browser", "--out-dir", str(tmp_path / "saved")],
            stdout=log, stderr=subprocess.STDOUT, env=env)
        processes.append((process, log))

        def listening() -> bool:
            assert process.poll() is None, (tmp_path / f"{model}.log").read_text()
            with socket.socket() as sock:
                return sock.connect_ex(("localhost", port)) == 0
        _wait_for(listening, 60, f"the {model} explorer to listen")
        return f"http://localhost:{port}/"

    yield start
    for process, log in processes:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def _click_button(driver, text: str) -> None:
    clicked = driver.execute_script(
        FIND_ALL.replace("return found;", "const b = found.filter(e => e.textContent.trim() "
                                          "=== arguments[1]); if (b.length) b[0].click(); "
                                          "return b.length;"), "button", text)
    assert clicked, f"no button {text!r} on the page"


def _status(driver) -> str:
    return driver.execute_script(FIND_ALL.replace(
        "return found;", "return found.map(e => e.textContent).join(' ');"),
        ".explore-message")


def _move_first_parameter_slider(driver) -> None:
    """Click 30 % along the track of the first parameter slider (the speed slider is the
    first slider of the page)."""
    from selenium.webdriver.common.action_chains import ActionChains

    sliders = driver.execute_script(FIND_ALL, ".noUi-target")
    assert len(sliders) >= 2, "no parameter slider on the page"
    track = sliders[1]
    width = track.size["width"]
    ActionChains(driver).move_to_element_with_offset(track, int(-0.2 * width), 0).click() \
        .perform()


@pytest.mark.parametrize("model", available_models())
def test_explorer_in_chromium(model: str, chromium, server) -> None:
    url = server(model)
    chromium.get("about:blank")
    time.sleep(1.0)
    chromium.get_log("browser")  # drop what earlier pages logged as they closed
    chromium.get(url)
    first = _wait_for(lambda: chromium.execute_script(SERIES), 90, "the page's series")
    assert first[0] >= 1
    _click_button(chromium, "Start")
    grown = _wait_for(lambda: (s := chromium.execute_script(SERIES)) and s[0] > first[0] + 3
                      and s, 90, "the observable to be plotted")
    if get_model(model).kinematics is None:  # no structure plot
        assert chromium.execute_script(STRUCTURE) is None
    else:
        _wait_for(lambda: chromium.execute_script(STRUCTURE), 30, "the structure plot")
    _move_first_parameter_slider(chromium)
    _wait_for(lambda: "changed" in _status(chromium), 90, "the slider change to be applied")
    _click_button(chromium, "Reset")  # the changed run from t = 0, still running
    _wait_for(lambda: "reset" in _status(chromium), 60, "the reset")
    after = _wait_for(lambda: (s := chromium.execute_script(SERIES)) and s[0] > 4 and s, 120,
                      "the observable of the changed run")
    values = {first[1], grown[1], after[1]}
    assert len(values) > 1, f"the plotted observables never changed: {values}"
    errors = [entry for entry in chromium.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors


def test_an_obstacle_typed_into_the_zonal_table_is_applied(chromium, server) -> None:
    """The structured editor: add a row to the obstacles table, type a centre and a radius
    into its cells, and the page reports the obstacles set (after refusing the row while it
    had no radius)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    url = server("zonal")
    chromium.get("about:blank")
    time.sleep(1.0)
    chromium.get_log("browser")  # drop what earlier pages logged as they closed
    chromium.get(url)
    _wait_for(lambda: chromium.execute_script(SERIES), 90, "the page's series")
    added = chromium.execute_script(FIND_ALL.replace(
        "return found;", "found.forEach(host => (host.shadowRoot || host).querySelector("
                         "'button').click()); return found.length;"), ".add-obstacles")
    assert added == 1, "no 'add row' button of the obstacles table"
    cells = ".tabulator-row .tabulator-cell[tabulator-field='{}']"  # obstacles' fields

    def type_into(field: str, text: str) -> bool:
        """Click the cell of the new row, type into its editor; False where the table was
        redrawn meanwhile (the next try finds the new cell)."""
        from selenium.common.exceptions import StaleElementReferenceException

        try:
            cell = chromium.execute_script(FIND_ALL, cells.format(field))[-1]
            chromium.execute_script("arguments[0].scrollIntoView({block: 'center'});", cell)
            cell.click()
            if not cell.find_elements("css selector", "input"):
                return False
            ActionChains(chromium).send_keys(text, Keys.ENTER).perform()  # to the editor
            return True
        except (StaleElementReferenceException, IndexError):
            return False
    for field, text in (("centre", "20, 3, 0"), ("radius", "1.5")):
        _wait_for(lambda f=field, x=text: type_into(f, x), 30, f"the {field} cell's editor")
    try:  # a row with the centre alone is refused (radius is required); then applied
        _wait_for(lambda: "obstacles" in (s := _status(chromium)) and "not applied" not in s,
                  30, "the obstacle to be applied")
    except AssertionError as error:
        raise AssertionError(f"{error}; the page says: {_status(chromium)}") from None
    errors = [entry for entry in chromium.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors
