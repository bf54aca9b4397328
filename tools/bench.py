"""Execute every solution notebook on a fresh kernel and report the wall time of each; then time
the attention explorer's controls in Python (tools/bench_explorer.py) and in the browser
(tools/bench_browser.py).

    python tools/bench.py [--out FILE.json] [--strict] [--no-explorer] [--no-browser] [notebook.ipynb ...]

The budgets, on this 2-core CPU, are BUDGETS below. This is a measurement, not a test: it reports
what is over budget and exits non-zero for that only with --strict (`make bench STRICT=1`), and
for a notebook that fails always. Given notebooks, only those are run.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
# Seconds per solution notebook; ms per explorer control change in Python (median, worst); ms from a
# move in the browser to its new picture (tools/bench_browser.py's limit, for every move).
BUDGETS = {"notebook_s": 60, "explorer_median_ms": 150, "explorer_worst_ms": 300, "browser_move_ms": 500}


def run(path: Path) -> dict:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - start
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    stderr = [o.text for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "stream" and o.name == "stderr"]
    return {"notebook": str(path.relative_to(ROOT)), "seconds": round(seconds, 2), "errors": len(errors),
            "stderr": stderr, "executed": nb}


def over_budget(report: dict) -> list[str]:
    """Each budget the report exceeds, or could not be measured against, in words."""
    over = [f"{r['notebook']}: {r['seconds']} s > {BUDGETS['notebook_s']} s" for r in report["notebooks"]
            if r["seconds"] > BUDGETS["notebook_s"]]
    for r in report.get("explorer", []):
        name = f"explorer {r['shape']} {r['kind']}"
        if r["median_ms"] > BUDGETS["explorer_median_ms"]:
            over.append(f"{name}: median {r['median_ms']} ms > {BUDGETS['explorer_median_ms']} ms")
        if r["worst_ms"] > BUDGETS["explorer_worst_ms"]:
            over.append(f"{name}: worst {r['worst_ms']} ms > {BUDGETS['explorer_worst_ms']} ms")
    if "browser" in report:
        if report["browser"] is None:
            over.append(f"browser: not measured ({report['browser_why']})")
        else:
            over += [f"browser {m['where']}: {m['control']}: {m['last_ms']} ms > {BUDGETS['browser_move_ms']} ms"
                     for m in report["browser"]["over_limit"]]
    return over


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--strict", action="store_true", help="exit non-zero when anything is over budget")
    parser.add_argument("--no-explorer", action="store_true")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("paths", nargs="*", type=Path)
    args = parser.parse_args()
    paths = args.paths or sorted((ROOT / "solutions").glob("*/*.ipynb"))
    results = []
    for path in paths:
        result = run(path.resolve())
        result.pop("executed")
        results.append(result)
        print(f"{result['notebook']:40s} {result['seconds']:7.2f} s  errors={result['errors']}", flush=True)
    report = {"notebooks": results, "budgets": BUDGETS}
    # After the notebooks, whose kernels are gone by now: the explorer is timed on a quiet machine.
    if not (args.paths or args.no_explorer):
        import bench_explorer
        report.update(bench_explorer.measure())
    if not (args.paths or args.no_browser):
        import bench_browser
        report.update(bench_browser.measure())
    report["over_budget"] = over_budget(report)
    print("over budget:" if report["over_budget"] else "everything within budget", *report["over_budget"],
          sep="\n  ")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    failed = any(r["errors"] for r in results)
    sys.exit(1 if failed or (args.strict and report["over_budget"]) else 0)


if __name__ == "__main__":
    main()
