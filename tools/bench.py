"""Execute every solution notebook on a fresh kernel and report the wall time of each;
then time the attention explorer's controls (tools/bench_explorer.py).

    python tools/bench.py [--out FILE.json] [--no-explorer] [notebook.ipynb ...]

The budget is 60 s per notebook and 150 ms per explorer control change (median; 300 ms worst)
on the 2-core CPU; this is a measurement, not a test. Given notebooks, only those are run.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--no-explorer", action="store_true")
    parser.add_argument("paths", nargs="*", type=Path)
    args = parser.parse_args()
    paths = args.paths or sorted((ROOT / "solutions").glob("*/*.ipynb"))
    results = []
    for path in paths:
        result = run(path.resolve())
        result.pop("executed")
        results.append(result)
        print(f"{result['notebook']:40s} {result['seconds']:7.2f} s  errors={result['errors']}", flush=True)
    report = {"notebooks": results}
    if not (args.paths or args.no_explorer):
        # After the notebooks, whose kernels are gone by now: the explorer is timed on a quiet machine.
        import bench_explorer
        report.update(bench_explorer.measure())
    if args.out:
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    sys.exit(1 if any(r["errors"] for r in results) else 0)


if __name__ == "__main__":
    main()
