"""CJK fonts for matplotlib, offline.

matplotlib's default DejaVu Sans has no kana, kanji or Hangul, so ja/ko labels
would warn "Glyph ... missing" and draw boxes. IPAexGothic (in matplotlib-fontja)
lacks Hangul and NanumGothic (in koreanize-matplotlib) lacks some kanji; listing
both lets matplotlib fall back glyph by glyph. We read the font files the
packages ship instead of importing them: importing changes rcParams as a side
effect, and japanize-matplotlib does not even import on Python 3.12.
"""
import importlib.util
from pathlib import Path

import matplotlib
from matplotlib import font_manager

_SHIPPED = {
    "ja": ("matplotlib_fontja", "fonts/ipaexg.ttf"),
    "ko": ("koreanize_matplotlib", "fonts/NanumGothic.ttf"),
}


def _font_file(lang: str) -> Path | None:
    package, relative = _SHIPPED[lang]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    return path if path.exists() else None


def use_cjk_fonts(lang: str = "ja") -> list[str]:
    """Register both fonts, the notebook's language first; return the family list."""
    names = []
    for code in (lang, *(x for x in _SHIPPED if x != lang)):
        path = _font_file(code)
        if path is None:
            continue
        font_manager.fontManager.addfont(str(path))
        names.append(font_manager.FontProperties(fname=str(path)).get_name())
    families = names + ["DejaVu Sans"]
    # The list must be font.family itself: matplotlib falls back glyph by glyph only
    # across the families named there, while the generic "sans-serif" resolves to one font.
    matplotlib.rcParams["font.family"] = families
    # NanumGothic has no U+2212 MINUS SIGN; an ASCII hyphen renders everywhere.
    matplotlib.rcParams["axes.unicode_minus"] = False
    return families
