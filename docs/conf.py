"""Sphinx configuration of the Flocklab documentation (``make docs``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("COLUMNS", "100")  # argparse help in the CLI reference

import flocklab  # noqa: E402

project = "Flocklab"
author = "the Flocklab authors"
copyright = "2026, the Flocklab authors"
release = flocklab.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax 3 from the package into _static/mathjax: mathematics renders without network
    "sphinx-mathjax-offline",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "flocklab_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "gallery/*.ipynb", "gallery/*.py", "gallery/*.md5",
                    "gallery/*.json", "gallery/*.zip"]
templates_path = ["_templates"]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# API reference: autosummary pages from the docstrings, numpydoc sections.
autosummary_generate = True
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
intersphinx_mapping = {}

# The gallery: examples/ executed at build time, small figures.
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "show_memory": False,
    "min_reported_time": 1,
    # no execution-time pages: their sortable tables load scripts from a CDN
    "write_computation_times": False,
}

html_theme = "pydata_sphinx_theme"
html_title = "Flocklab"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": []}
# An explicit colour mode: without it the theme logs "invalid theme mode" to the console.
html_context = {"default_mode": "auto"}
html_show_sourcelink = False
