"""Feedback pages that read well with nothing fetched: formulas as MathML, long lines that wrap.

nbconvert's feedback page loads MathJax from a CDN, so offline (an exam room, a train) every formula
shows as raw LaTeX (`$T \\le 12$`). Here each `$…$` and `$$…$$` in the page's text is converted to
MathML when the feedback is written (latex2mathml, pure Python); browsers draw MathML themselves
(Chromium since 109, Firefox, Safari), and the MathJax script is removed. Outputs are `<pre>` blocks,
which never wrap: a Japanese or Korean hint, a line without spaces, ran off the right edge.
"""
from __future__ import annotations

import html
import re

from latex2mathml.converter import convert

# Text between tags, skipping what is code or markup: math is only ever in the rendered markdown's text.
_PROTECTED = re.compile(r"(<script\b.*?</script>|<style\b.*?</style>|<pre\b.*?</pre>|<code\b.*?</code>|"
                        r"<textarea\b.*?</textarea>|<[^>]+>)", re.S | re.I)
_MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?!\s)([^$\n]+?)(?<![\s\\])\$", re.S)
_MATHJAX = re.compile(r"<!-- Load mathjax -->.*?</script>\s*<!-- MathJax configuration -->\s*<script[^>]*>.*?</script>"
                      r"|<script[^>]*mathjax[^>]*>.*?</script>", re.S | re.I)

STYLE = """<style type="text/css">
/* Outputs wrap: a hint in Japanese or Korean has no spaces to break at. */
div.output_area pre, div.output_subarea pre, div.output_text pre {
  white-space: pre-wrap; overflow-wrap: anywhere; word-break: normal; }
div.output_subarea { max-width: 100%; overflow-x: hidden; }
math { font-size: 1.05em; }
math[display="block"] { display: block; margin: 0.5em 0; overflow-x: auto; }
</style>
"""


def _formula(match: re.Match) -> str:
    display, inline = match.group(1), match.group(2)
    tex = html.unescape(display if display is not None else inline)
    try:
        return convert(tex.strip(), display="block" if display is not None else "inline")
    except Exception:  # noqa: BLE001 - a formula the converter cannot read stays as the author wrote it
        return match.group(0)


def mathml(page: str) -> str:
    """Every formula in the page's text as MathML; code, outputs and markup untouched."""
    parts = _PROTECTED.split(page)
    return "".join(part if i % 2 else _MATH.sub(_formula, part) for i, part in enumerate(parts))


def offline(page: str) -> str:
    """The page without MathJax, its formulas in MathML, its output lines wrapping."""
    page = _MATHJAX.sub("", page)
    page = mathml(page)
    return page.replace("</head>", STYLE + "</head>", 1)
