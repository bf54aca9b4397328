"""Look at feedback pages (and the class report) in Chromium with nothing fetched, and take screenshots.

    python tools/feedback_pages.py COURSE [--out assets]     # screenshots of one learner's pages per language

Debian's Chromium (/usr/bin/chromium), driven by Playwright with executable_path: Playwright's own
`playwright install` downloads a browser, which this course never does. Every request that is not a
local file is refused and counted, so a page that needs the network shows it. tests/test_feedback_browser.py
uses inspect(); the screenshots in assets/ come from main().
"""
from __future__ import annotations

import argparse
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-background-networking", "--disable-gpu",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]

# In the page: formulas drawn (MathML with a size), output lines kept inside the page, nothing fetched.
_MEASURE = """() => {
  const maths = [...document.querySelectorAll('math')];
  const drawn = maths.filter(m => { const r = m.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
  const pres = [...document.querySelectorAll('div.output_subarea pre')];
  const wide = pres.filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent.slice(0, 80));
  return {maths: maths.length, drawn: drawn.length, raw_tex: (document.body.innerText.match(/\\$[^$\\n]{1,40}\\$/g) || []).length,
          outputs: pres.length, overflowing: wide, page_width: document.documentElement.scrollWidth,
          view_width: document.documentElement.clientWidth};
}"""


def inspect(pages: list[Path], screenshots: dict | None = None, width: int = 1000, at: str | None = None) -> dict:
    """{page: measures} for each page, offline; screenshots: {page: png path} to write, of the window scrolled to
    the first output that contains `at` (or the top)."""
    from playwright.sync_api import sync_playwright
    found = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for page_path in pages:
                page = browser.new_page(viewport={"width": width, "height": 900})
                fetched = []

                def refuse(route, fetched=fetched):
                    if not route.request.url.startswith(("file:", "data:")):
                        fetched.append(route.request.url)
                        return route.abort()
                    return route.continue_()
                page.route("**/*", refuse)
                page.goto(Path(page_path).resolve().as_uri(), wait_until="load")
                measures = page.evaluate(_MEASURE)
                measures["fetched"] = fetched
                found[page_path] = measures
                if screenshots and page_path in screenshots:
                    if at:
                        target = page.locator("div.output_subarea pre", has_text=at).first
                        if target.count():
                            target.scroll_into_view_if_needed()
                            page.evaluate("() => window.scrollBy(0, -420)")
                    page.screenshot(path=str(screenshots[page_path]), full_page=False)
                page.close()
        finally:
            browser.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="+", type=Path, help="feedback or report pages")
    parser.add_argument("--out", type=Path, default=Path("assets"))
    parser.add_argument("--names", nargs="+", help="a file name for each page's screenshot (default: its stem)")
    parser.add_argument("--at", help="scroll to the first output containing this text before the screenshot")
    args = parser.parse_args()
    names = args.names or [p.stem for p in args.pages]
    shots = {p: args.out / f"{name}.png" for p, name in zip(args.pages, names)}
    for page, measures in inspect(args.pages, shots, at=args.at).items():
        print(page, {k: v for k, v in measures.items() if k != "overflowing"},
              "overflowing:", len(measures["overflowing"]), "->", shots[page])


if __name__ == "__main__":
    main()
