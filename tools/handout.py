"""A private term's handout: what learners get, and nothing else.

    python tools/handout.py [--package URL] [--out handout]     (what `make handout PACKAGE=…` runs)

The public repository holds the solutions, the hidden tests' references and the lesson sources. A class graded for
counted grades hands out only:
- the lessons' learner notebooks (notebooks/ja, notebooks/ko: the release, no solution and no hidden test in them),
  whose first cell installs the course's package from PACKAGE instead of the public repository (not the home
  page, whose links and clone line lead to the repository);
- the package itself, attn_course, as a wheel (the checks, the probes, the explorer; no reference, no solution).
PACKAGE is where learners' notebooks find the wheel: a URL the instructor hosts it at (an LMS file link, a
private web server; what Colab needs), or by default the wheel's file name, for notebooks that sit beside it
(JupyterLab, a lab server). Nothing here is committed: handout/ is git-ignored.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from build import COURSE_PIP   # the install line every lesson notebook's first cell carries

ROOT = Path(__file__).resolve().parent.parent


def wheel(out: Path) -> Path:
    """attn_course's wheel, built from this checkout with the installed setuptools (no download)."""
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(ROOT)], check=True)
    return max(out.glob("attn_course-*.whl"), key=lambda p: p.stat().st_mtime)


def notebooks(out: Path, package: str) -> list[Path]:
    """The learner notebooks, their install line pointing at package."""
    written = []
    for lang in ("ja", "ko"):
        for source in sorted((ROOT / "notebooks" / lang).glob("0[1-9]_*.ipynb")):   # not the home page
            text = source.read_text(encoding="utf-8")
            install = json.dumps(COURSE_PIP)[1:-1]   # as the notebook's JSON writes it
            if install not in text:
                raise SystemExit(f"{source.relative_to(ROOT)}: no install line to point at {package}")
            target = out / lang / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text.replace(install, json.dumps(package)[1:-1]), encoding="utf-8")
            json.loads(target.read_text(encoding="utf-8"))   # still a notebook
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package", default="", help="where the notebooks install the wheel from (a URL); "
                                                      "default: the wheel's file name beside the notebooks")
    parser.add_argument("--out", type=Path, default=ROOT / "handout")
    args = parser.parse_args(argv)
    if args.out.exists():
        shutil.rmtree(args.out)
    built = wheel(args.out / "package")
    package = args.package or built.name
    written = notebooks(args.out, package)
    for lang in ("ja", "ko"):   # beside the notebooks, where a relative name finds it
        shutil.copy(built, args.out / lang / built.name)
    print(f"handout: {len(written)} notebooks in {args.out}/ja and /ko, installing {package}; wheel {built}")


if __name__ == "__main__":
    main()
