"""The built documentation's front page and the report of config/test.yaml in headless
Chromium: every image and every embedded figure and animation loads, and the console shows
no error.

The docs page is the output of ``make docs`` (``docs/_build/html``); without it the test is
skipped, saying so (``.ci/run`` builds the docs and then runs this module again). Errors of
resources fetched from the internet are left out: the fixture refuses every network request
(CI has no internet), and the Snakemake report asks a CDN for its stylesheet.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.pipeline

REPO = Path(__file__).resolve().parents[2]
DOCS_INDEX = REPO / "docs" / "_build" / "html" / "index.html"

# Decode each image of the page (<img> elements and data: URIs embedded anywhere in the
# page's source, as the Snakemake report stores its figures) in the browser; report the
# ones that fail.
DECODE_IMAGES = r"""
const done = arguments[arguments.length - 1];
const sources = Array.from(document.images, (image) => image.currentSrc || image.src);
const html = document.documentElement.outerHTML;
const embedded = html.match(/data:image\/[a-z+.-]+;[^"'\s]*?base64,[A-Za-z0-9+\/=]+/g) || [];
const all = Array.from(new Set([...sources, ...embedded])).filter((s) => s);
const failed = [];
let left = all.length;
if (left === 0) { done({count: 0, failed}); }
all.forEach((source) => {
  const image = new Image();
  const finish = (ok) => {
    if (!ok) { failed.push(source.slice(0, 120)); }
    if (--left === 0) { done({count: all.length, failed}); }
  };
  image.onload = () => finish(image.naturalWidth > 0);
  image.onerror = () => finish(false);
  image.src = source;
});
"""


def _is_internet(entry: dict[str, Any]) -> bool:
    """A console entry about a resource requested from the internet (refused offline)."""
    message = entry.get("message", "")
    return entry.get("source") == "network" and ("http://" in message or "https://" in message)


def _open(driver: Any, path: Path) -> dict[str, Any]:
    """Load ``path``; its images decoded and its console errors."""
    driver.get_log("browser")  # drop what earlier pages left
    driver.get(path.resolve().as_uri())
    driver.execute_async_script("const done = arguments[0]; "
                                "if (document.readyState === 'complete') { done(); } "
                                "else { window.addEventListener('load', () => done()); }")
    images = driver.execute_async_script(DECODE_IMAGES)
    errors = [entry for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE" and not _is_internet(entry)]
    return {"title": driver.title, "text": driver.execute_script(
        "return document.body.innerText"), "images": images, "errors": errors}


def test_the_docs_front_page_loads_with_its_images_and_no_console_error(chromium):
    if not DOCS_INDEX.exists():
        pytest.skip(f"the docs are not built ({DOCS_INDEX} is missing): run make docs")
    page = _open(chromium, DOCS_INDEX)
    assert "Flocklab" in page["title"]
    assert "vicsek" in page["text"] and "dragon_chain" in page["text"]
    assert page["images"]["count"] >= 1, "the front page shows no image"
    assert page["images"]["failed"] == [], page["images"]["failed"]
    assert page["errors"] == [], page["errors"]


#: A docs page with inline and display mathematics (MyST dollar math and :math: roles).
DOCS_MATH = DOCS_INDEX.parent / "explanation" / "foraging.html"

# Wait for MathJax's first typesetting; the typeset formulas, the math elements and the raw
# TeX delimiters left in the text.
TYPESET = r"""
const done = arguments[arguments.length - 1];
if (!window.MathJax || !MathJax.startup) { done({loaded: false}); return; }
MathJax.startup.promise.then(() => done({
  loaded: true, formulas: document.querySelectorAll("mjx-container").length,
  math: document.querySelectorAll(".math").length,
  raw: (document.body.innerText.match(/\\\(|\\\[/g) || []).length}));
"""


def test_the_docs_typeset_their_mathematics_offline(chromium):
    """MathJax ships with the site (``_static/mathjax``, the ``sphinx-mathjax-offline``
    package): with every internet request refused, a page's formulas are typeset and no raw
    TeX delimiter is left; no page of the site loads a script or stylesheet from the
    internet."""
    if not DOCS_MATH.exists():
        pytest.skip(f"the docs are not built ({DOCS_MATH} is missing): run make docs")
    site = DOCS_INDEX.parent
    remote = [str(page.relative_to(site)) for page in site.rglob("*.html")
              if re.search(r'<(script|link)[^>]+(src|href)="https?://', page.read_text())]
    assert remote == [], remote
    page = _open(chromium, DOCS_MATH)
    assert page["errors"] == [], page["errors"]
    typeset = chromium.execute_async_script(TYPESET)
    assert typeset["loaded"], "MathJax did not load"
    # every math element (49 on this page) holds a typeset formula
    assert typeset["math"] >= 10 and typeset["formulas"] >= typeset["math"], typeset
    assert typeset["raw"] == 0, typeset


def test_the_report_loads_every_figure_and_animation_and_no_console_error(chromium,
                                                                           test_yaml_run):
    workdir, _ = test_yaml_run
    report = workdir / "results" / "report.html"
    figures = sorted((workdir / "results" / "figures").glob("*.png"))
    animations = sorted((workdir / "results" / "figures").glob("*.gif"))
    page = _open(chromium, report)
    assert "Snakemake" in page["title"] or page["text"].strip()
    # every figure and animation of the run is embedded in the report and decodes
    assert page["images"]["count"] >= len(figures) + len(animations) > 0
    assert page["images"]["failed"] == [], page["images"]["failed"]
    assert page["errors"] == [], page["errors"]
