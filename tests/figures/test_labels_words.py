"""Figure labels in words: notes on missing values and 0/1 indicators read for the eye."""

import doctest

import pytest

from flocklab.core.registry import get_model
from flocklab.figures import labels


def test_doctests():
    assert doctest.testmod(labels, raise_on_error=False).failed == 0


@pytest.mark.parametrize(("model", "name", "expected"), [
    ("zonal", "first_capture_time", "time of the first capture (s)"),
    ("springs", "stable", "share of runs: did not blow up"),
    ("springs", "t_blowup", "time of blow-up (s)"),
    ("dragon_agents", "delay", "perception delay of the control terms $\\tau$ (s)"),
    ("dragon_agents", "method", "integration method"),
    ("vicsek", "time_to_order", "time to order $t_{v_a}$"),
])
def test_declared_names_read_as_words(model, name, expected):
    assert labels.quantity(get_model(model), name).axis() == expected


def test_every_declared_label_is_free_of_code_notes():
    """No model's figure label keeps a NaN/never/censored note or a '1 if' indicator."""
    from flocklab.core.registry import available_models

    for model_name in available_models():
        model = get_model(model_name)
        names = [*(o.name for o in model.observables), *(m.name for m in model.run_metrics)]
        for name in names:
            text = labels.quantity(model, name).long_name
            assert "NaN" not in text and "never:" not in text and not text.startswith("1 if"), \
                (model_name, name, text)


def test_caption_doctests():
    from flocklab.figures import captions

    assert doctest.testmod(captions, raise_on_error=False).failed == 0


def test_captions_cite_every_model_briefly():
    """A caption cites each source of its model by first author, venue and year (or title):
    no source's title in quotes where it has authors, and none longer than 200 characters."""
    from flocklab.core.registry import available_models
    from flocklab.figures.captions import short_citations

    for name in available_models():
        cited = short_citations(get_model(name).reference)
        for source in cited.split("; "):
            assert len(source) < 200, (name, source)
        assert "Self-propelled particles with soft-core" not in cited
