"""Draw the course's diagrams in both languages into assets/<lang>/<name>.png.

    python tools/diagrams.py

The same figures appear in the lessons (course.show(course.diagrams.head_split())) and the README.
"""
from pathlib import Path

from attn_course import diagrams, fonts, messages
from attn_course.plots import _to_png

ROOT = Path(__file__).resolve().parent.parent


def main() -> list[Path]:
    written = []
    for lang in messages.LANGUAGES:
        messages.set_language(lang)
        fonts.use_cjk_fonts(lang)
        for name, draw in diagrams.DIAGRAMS.items():
            path = ROOT / "assets" / lang / f"{name}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(_to_png(draw()))
            written.append(path)
    return written


if __name__ == "__main__":
    for path in main():
        print(path.relative_to(ROOT))
