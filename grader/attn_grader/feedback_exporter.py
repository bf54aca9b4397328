"""nbconvert's HTMLExporter for feedback pages, without its BeautifulSoup pass.

HTMLExporter (nbconvert 7) parses every page it writes with BeautifulSoup to give images without alt text
one, and notebook cells a tabindex, then prints the whole tree again: 1.4 s of a lesson 8 page's 2.8 s here,
on every learner's every page. The same attributes go in here with one pass over the start tags, and
feedback.py puts the alt text in the learner's language (nbgrader's is English).
"""
from __future__ import annotations

import re

from nbconvert.exporters import HTMLExporter
from nbconvert.exporters.templateexporter import TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

# feedback.py replaces it with feedback_figure_alt in the assignment's language.
ALT_PLACEHOLDER = "attn-course-figure-without-alt-text"

_START_TAG = re.compile(r"<(img|div)\b([^>]*?)(\s*/?)>", re.I)
_FOCUSABLE = {"jp-Cell-inputWrapper", "jp-OutputArea-output"}
_CLASS = re.compile(r'\bclass\s*=\s*"([^"]*)"')
_ALT = re.compile(r"\balt\s*=", re.I)
_TABINDEX = re.compile(r'\btabindex\s*=\s*"[^"]*"', re.I)


def _mark(tag: re.Match) -> str:
    name, attrs, close = tag[1], tag[2], tag[3]
    if name.lower() == "img":
        if not _ALT.search(attrs):
            attrs += f' alt="{ALT_PLACEHOLDER}"'
    else:
        classes = _CLASS.search(attrs)
        if classes and _FOCUSABLE & set(classes[1].split()):
            attrs = _TABINDEX.sub("", attrs).rstrip() + ' tabindex="0"'
    return f"<{name}{attrs}{close}>"


def add_accessibility(html: str) -> str:
    """HTMLExporter's alt text and tabindex, without parsing the page. Every cell and output of a feedback page
    is inside its .jp-Notebook, so the class alone says where a tabindex goes (the lab template's markup)."""
    return _START_TAG.sub(_mark, html)


class FeedbackHTMLExporter(HTMLExporter):
    """HTMLExporter.from_notebook_node up to its BeautifulSoup pass (nbconvert 7.17), then add_accessibility."""

    def from_notebook_node(self, nb, resources=None, **kw):
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        highlight_code = self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self))
        resources = self._init_resources(resources)
        filter_data_type = WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources)
        self.register_filter("highlight_code", highlight_code)
        self.register_filter("filter_data_type", filter_data_type)
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        return add_accessibility(html), resources
