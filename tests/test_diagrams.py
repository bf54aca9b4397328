"""The diagrams render in both languages with no missing glyph, and assets/ holds each of them."""
import warnings

import pytest
from attn_course import diagrams, fonts, messages
from attn_course.plots import _to_png
from conftest import ROOT


@pytest.mark.parametrize("name", sorted(diagrams.DIAGRAMS))
def test_diagram_renders_without_a_missing_glyph(lang, name, caplog):
    fonts.use_cjk_fonts(lang)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = _to_png(diagrams.DIAGRAMS[name]())
    reports = [str(w.message) for w in caught] + [r.getMessage() for r in caplog.records]
    assert png.startswith(b"\x89PNG") and not [r for r in reports if "glyph" in r.lower()], reports[:3]
    assert (ROOT / "assets" / lang / f"{name}.png").exists(), "run python tools/diagrams.py"
