"""The report file (``python -m analysis report``) of the bundled demo: its size and the time to write it.

Targets (issue: a result a colleague can open): the demo with every model and method in one file of <= 10 MB, written
in <= 10 s. Measured on a fresh copy of the demo store (the reports it ships with; nothing computed before), three
times; the size of each part of the file is printed too. Run: ``.venv/bin/python bench/bench_report.py``
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from analysis.demo_store import bundled_demo_store  # noqa: E402
from analysis.report_file import report_html  # noqa: E402
from analysis.runs.store import Store  # noqa: E402
from app.report_file import figures  # noqa: E402

REPEATS = 3


def parts(html: str) -> dict[str, float]:
    """MB of each part: Plotly's JavaScript, the figures, the packed blocks, the replies shown, the rest."""
    out = {"plotly.js": sum(len(m) for m in re.findall(r"<script>(.{100000,}?)</script>", html, re.S)),
           "figures": sum(len(m) for m in re.findall(r'id="figure-[^"]+-data">(.*?)</script>', html, re.S)),
           "tables": len(re.search(r'id="rolescope-tables">(.*?)</script>', html, re.S).group(1)),
           "reports": len(re.search(r'id="rolescope-reports">(.*?)</script>', html, re.S).group(1)),
           "replies": sum(len(m) for m in re.findall(r"<article.*?</article>", html, re.S))}
    out["rest"] = len(html) - sum(out.values())
    return {k: v / 1e6 for k, v in out.items()}


def main() -> int:
    demo = bundled_demo_store()
    print(f"store: {demo} ({demo.stat().st_size / 1e6:.1f} MB); load average (1 min): {os.getloadavg()[0]:.1f}")
    times, size = [], 0
    with tempfile.TemporaryDirectory(prefix="rolescope-bench-report-") as tmp:
        for i in range(REPEATS):
            copy = Path(shutil.copy(demo, Path(tmp) / f"demo-{i}.db"))
            started = time.perf_counter()
            with Store(copy) as store:
                html = report_html(store, figures=figures)
            times.append(time.perf_counter() - started)
            size = len(html.encode("utf-8"))
    print("seconds per report (fresh copy each):", ", ".join(f"{t:.1f}" for t in times))
    print("parts (MB):", ", ".join(f"{k} {v:.2f}" for k, v in parts(html).items()))
    built, mb = statistics.median(times), size / 1e6
    print(f"report of the demo: {mb:.1f} MB (target <= 10 -> {'OK' if mb <= 10 else 'MISSED'}), "
          f"written in {built:.1f} s median (target <= 10 -> {'OK' if built <= 10 else 'MISSED'})")
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f}")
    return 0 if mb <= 10 and built <= 10 else 1


if __name__ == "__main__":
    raise SystemExit(main())
