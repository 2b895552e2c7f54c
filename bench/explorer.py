"""The explorer at scale, in Debian's Chromium: time to interactive, keystroke/filter/sort to paint,
renderer memory; layout shift and long tasks on a throttled phone; and, at 5,000 results,
Lighthouse's mobile profile (the median of three runs) when make has installed it.

    python explorer.py [RESULTS ...]        (default: 20000 100000)

A small corpus (bench/corpus.py) is built once; its ``data/results.js`` is then replaced by the one
the build's own writer (``output.data.results_script``) makes of RESULTS synthetic rows, each with a
label, result id and evidence URL of its own (the worst case for the explorer's dictionaries), spread
over RESULTS / 20 articles and five records. Figures are printed as one line each; nothing is asserted.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

from browserkit import ARGS, CHROMIUM, served
from corpus import make_corpus

from evidencepress.core import jsontext
from evidencepress.output.data import results_script
from evidencepress.site.dataset import ResultRow

REV = "abcdef" * 6 + "abcd"  # no digit: a typed number finds values, labels and lines, not the revision
PHONE = {"width": 375, "height": 812}
KEYS = "kimi 42"  # typed one character at a time into the "Contains" box: each narrows the rows


def built_site(scratch: Path) -> Path:
    site = make_corpus(scratch / "corpus", 5, results=20, charts=0)
    out = scratch / "public"
    subprocess.run([sys.executable, "-m", "evidencepress.cli", "build", "--root", str(site), "--out", str(out)],
                   check=True, capture_output=True)
    return out


def synthetic_rows(out: Path, count: int) -> list[ResultRow]:
    """``count`` rows like the corpus' own, each with its own label, id, value and evidence line."""
    table = json.loads((out / "data/results.json").read_bytes(), parse_float=jsontext.parse_float)
    columns = tuple(table["columns"])
    models, engines = ("Qwen3.8-Flash", "Kimi K3", "GLM-5 Air", None), ("SGLang", "vLLM", "llama.cpp", None)
    rows = []
    for number in range(count):
        cells = dict(table["results"][number % len(table["results"])])
        article = number // 20
        cells.update({
            "page": f"/guides/synthetic-{article:04d}/", "source_record_id": f"record-{article % 5}",
            "label": f"Cell {number % 20} run {number}", "result_id": f"cell-{number % 20}-run-{number}",
            "value": jsontext.parse_float(f"{(number * 7919) % 100000 / 100:.2f}"),
            "evidence_url": f"https://github.com/example/bench-{article}/blob/{REV}/README.md#L{number % 20 + 1}",
            "conditions.model": models[number % 4], "conditions.engine": engines[(number // 3) % 4],
            "conditions.concurrency": 1 + number % 16, "comparison_key": f"k{number % 997:04x}" if number % 5 else None,
        })
        rows.append(ResultRow(cells["page"], columns, tuple(cells.get(column) for column in columns)))
    return rows


def write_results(out: Path, count: int) -> int:
    rows = synthetic_rows(out, count)
    pages = sorted({row.page for row in rows})
    index = SimpleNamespace(
        results=SimpleNamespace(columns=rows[0].columns, rows=tuple(rows)),
        entries=[SimpleNamespace(page=SimpleNamespace(url=p, front=SimpleNamespace(title=f"Synthetic {p[-5:-1]}")))
                 for p in pages],
        records=[SimpleNamespace(id=f"record-{n}", title=f"Synthetic record {n}") for n in range(5)])
    rules = SimpleNamespace(keys_of=lambda metric: ("concurrency", "input_tokens"))
    data = b"".join(results_script(index, rules))  # type: ignore[arg-type]
    (out / "data/results.js").write_bytes(data)
    return len(data)


PAINTED = """async (act) => {
  const t0 = performance.now();
  await act();
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}"""


def _timed(page: Any, script: str) -> float:
    return float(page.evaluate(f"({PAINTED})(async () => {{ {script} }})"))


def renderer_kib(browser: Any) -> int:
    """The largest resident set of this browser's renderer processes (the explorer's tab), KiB."""
    session = browser.new_browser_cdp_session()
    found = 0
    for process in session.send("SystemInfo.getProcessInfo")["processInfo"]:
        if process["type"] != "renderer":
            continue
        try:
            status = Path(f"/proc/{process['id']}/status").read_text()
        except OSError:
            continue
        found = max(found, *(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")))
    session.detach()
    return found


def desktop(browser: Any, url: str) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    session = context.new_cdp_session(page)
    session.send("Performance.enable")
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    # from the first byte: the count is not there until the page is parsed (a predicate that throws fails the wait)
    page.wait_for_function("document.getElementById('explore-count')?.textContent", timeout=600_000)
    page.evaluate("new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
    interactive = time.perf_counter() - start
    keys = []
    for length in range(1, len(KEYS) + 1):
        text = json.dumps(KEYS[:length])
        keys.append(_timed(page, f"const q = document.getElementById('filter-q'); q.value = {text};"
                                 "q.dispatchEvent(new Event('input', {bubbles: true}));"))
    clear = _timed(page, "const q = document.getElementById('filter-q'); q.value = '';"
                         "q.dispatchEvent(new Event('input', {bubbles: true}));")
    choose = _timed(page, "const s = document.getElementById('filter-engine'); s.value = 'vLLM';"
                          "s.dispatchEvent(new Event('change', {bubbles: true}));")
    sorts = [_timed(page, f"document.querySelector(\"th[data-column='{column}'] button\").click();")
             for column in ("value", "value", "label", "conditions.model")]
    metrics = {m["name"]: m["value"] for m in session.send("Performance.getMetrics")["metrics"]}
    rss = renderer_kib(browser)
    elements = page.evaluate("document.getElementsByTagName('*').length")
    context.close()
    return {"interactive_s": round(interactive, 2), "keystroke_ms_median": round(statistics.median(keys), 1),
            "keystroke_ms_max": round(max(keys), 1), "clear_ms": round(clear, 1), "filter_ms": round(choose, 1),
            "sort_ms_max": round(max(sorts), 1), "js_heap_mib": round(metrics["JSHeapUsedSize"] / 2**20, 1),
            "dom_elements": elements, "keystrokes_ms": [round(k) for k in keys], "sorts_ms": [round(t) for t in sorts], "renderer_rss_mib": round(rss / 1024)}


OBSERVE = """
window.__shifts = 0; window.__blocking = 0; window.__longest = 0;
new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts += e.value; })
  .observe({type: 'layout-shift', buffered: true});
new PerformanceObserver(list => { for (const e of list.getEntries()) {
  window.__blocking += Math.max(0, e.duration - 50); window.__longest = Math.max(window.__longest, e.duration); } })
  .observe({type: 'longtask', buffered: true});
"""


def phone(browser: Any, url: str) -> dict[str, Any]:
    """CLS and total blocking time of loading the explorer at 375 px, CPU throttled 4x."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    context.add_init_script(OBSERVE)
    page = context.new_page()
    session = context.new_cdp_session(page)
    session.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.goto(url, wait_until="load", timeout=600_000)
    page.wait_for_function("document.getElementById('explore-count')?.textContent", timeout=600_000)
    page.wait_for_timeout(1500)
    found = page.evaluate("({cls: window.__shifts, tbt: window.__blocking, longest: window.__longest})")
    context.close()
    return {"cls": round(found["cls"], 4), "tbt_ms": round(found["tbt"]), "longest_task_ms": round(found["longest"])}


LIGHTHOUSE = Path(os.environ.get("BENCH_TOOLS", HERE.parent / ".bench-tools")) / "lighthouse/node_modules/.bin/lighthouse"


def lighthouse(url: str, runs: int = 3) -> dict[str, Any]:
    """Lighthouse's mobile performance figures (its default profile: Moto G class, CPU 4x, slow 4G),
    the median of ``runs``; or why they were not taken."""
    if not LIGHTHOUSE.exists():
        return {"skipped": f"{LIGHTHOUSE} not found (make bench installs it with npm)"}
    found: dict[str, list[float]] = {"score": [], "cls": [], "tbt_ms": [], "lcp_s": [], "fcp_s": []}
    audits = {"cls": ("cumulative-layout-shift", 1), "tbt_ms": ("total-blocking-time", 1),
              "lcp_s": ("largest-contentful-paint", 1000), "fcp_s": ("first-contentful-paint", 1000)}
    for _ in range(runs):
        report = json.loads(subprocess.run(
            [str(LIGHTHOUSE), url, "--only-categories=performance", f"--chrome-path={CHROMIUM}",
             "--chrome-flags=--headless=new --no-sandbox --disable-gpu", "--output=json", "--quiet"],
            check=True, capture_output=True, timeout=600).stdout)
        found["score"].append(report["categories"]["performance"]["score"] * 100)
        for name, (audit, scale) in audits.items():
            found[name].append(report["audits"][audit]["numericValue"] / scale)
    return {"lighthouse": report["lighthouseVersion"], "form_factor": report["configSettings"]["formFactor"],
            **{name: round(statistics.median(values), 4 if name == "cls" else 2) for name, values in found.items()}}


def main(argv: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    sizes = [int(arg) for arg in argv] or [20_000, 100_000]
    scratch = Path(tempfile.mkdtemp(prefix="explorer-bench-"))
    try:
        out = built_site(scratch)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for count in sizes:
                size = write_results(out, count)
                with served(out) as url:
                    figures = desktop(browser, url + "explore/")
                    if count <= 5_000:
                        figures.update(phone(browser, url + "explore/"))
                print(json.dumps({"results": count, "results_js_bytes": size, **figures}), flush=True)
            write_results(out, 5_000)
            with served(out) as url:
                print(json.dumps({"results": 5_000, "phone_4x": phone(browser, url + "explore/"),
                                  "lighthouse_mobile": lighthouse(url + "explore/")}), flush=True)
            browser.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
