"""Extraction speed and memory: a 500-page PDF and a folder of 10,000 HTML files.

Each measurement is the whole command ``chunkscope corpus export OUT --corpus DIR`` in a fresh process
(load = extraction of every file, then every text written out), median of ``--runs`` runs:

1. **cold**: an empty extraction cache, so every file is extracted (pypdfium2 for the PDF, lxml for the HTML);
2. **warm**: the cache filled by the cold run, so every file is read from its cache entry.

Speed is pages per second (PDF) or files per second (HTML) of the cold command; memory is the peak resident
set of the command's process (``ru_maxrss``), beside the peak of a process that only imports chunkscope and
loads a one-file corpus (the floor). The PDF (fpdf2, 40 lines a page) and the HTML pages (a heading, two
paragraphs, a nested list and a 4-row table each) are generated in a temporary directory. As a reference in the
same run, the PDF is also read with pypdf when it is installed (pages per second of text extraction alone).

Targets: at least 100 pages/s and 200 HTML files/s cold, peak memory under 400 MiB for either.

Run: ``.venv/bin/python benchmarks/bench_extraction.py [--runs N] [--html-files N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = 500
HTML_FILES = 10_000
PDF_TARGET_PAGES_S = 100.0
HTML_TARGET_FILES_S = 200.0
MEMORY_TARGET_MIB = 400.0
LAUNCH = """
import resource, sys
from chunkscope.cli import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
sys.exit(code)
"""


def write_pdf(path: Path, pages: int) -> None:
    """A PDF of ``pages`` pages, 40 text lines each (fpdf2)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=10)
    for page in range(1, pages + 1):
        pdf.add_page()
        for line in range(1, 41):
            pdf.cell(0, 6, f"Page {page} line {line}: revenue grew {page * line % 97} percent in region {line}.",
                     new_x="LMARGIN", new_y="NEXT")  # fmt: skip
    pdf.output(str(path))


def write_html_folder(directory: Path, count: int) -> None:
    """``count`` HTML pages in 100 subdirectories."""
    for number in range(count):
        folder = directory / f"part{number % 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        rows = "".join(f"<tr><td>item {number}-{row}</td><td>{row * 7}</td></tr>" for row in range(4))
        (folder / f"page{number:05d}.html").write_text(
            f"<!doctype html><html><head><meta charset='utf-8'><title>Page {number}</title></head><body>"
            f"<h1>Topic {number}</h1><p>First paragraph of page {number} with <b>some</b> inline markup.</p>"
            f"<ul><li>one<ul><li>nested {number}</li></ul></li><li>two</li></ul>"
            f"<table><tr><th>Item</th><th>Fee</th></tr>{rows}</table><p>Closing paragraph.</p></body></html>",
            encoding="utf-8",
        )


def command(corpus: Path, out: Path, cache: Path, scratch: Path) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of one ``corpus export`` run."""
    peak_file = scratch / "peak"
    env = {**os.environ, "CHUNKSCOPE_CACHE": str(cache), "PYTHONPATH": str(REPO / "src")}
    argv = [sys.executable, "-c", LAUNCH, str(peak_file), "corpus", "export", str(out), "--corpus", str(corpus)]
    start = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    return wall, int(peak_file.read_text()) / 1024


def measure(corpus: Path, runs: int, scratch: Path) -> dict[str, float]:
    """Median cold and warm wall seconds and the largest peak memory over the runs."""
    cold, warm, peaks = [], [], []
    for run in range(runs):
        cache = scratch / f"cache{run}"
        wall, peak = command(corpus, scratch / f"out-cold{run}", cache, scratch)
        cold.append(wall)
        peaks.append(peak)
        wall, peak = command(corpus, scratch / f"out-warm{run}", cache, scratch)
        warm.append(wall)
        peaks.append(peak)
    return {"cold": statistics.median(cold), "warm": statistics.median(warm), "peak": max(peaks)}


def pypdf_pages_per_second(path: Path) -> float | None:
    """The reference: pypdf's text extraction of the same PDF, pages per second (None when not installed)."""
    try:
        import pypdf
    except ImportError:
        return None
    start = time.perf_counter()
    reader = pypdf.PdfReader(str(path))
    for page in reader.pages:
        page.extract_text()
    return len(reader.pages) / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--html-files", type=int, default=HTML_FILES)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        scratch = Path(temporary)
        pdf_corpus, html_corpus, floor_corpus = scratch / "pdf", scratch / "html", scratch / "floor"
        for directory in (pdf_corpus, html_corpus, floor_corpus):
            directory.mkdir()
        write_pdf(pdf_corpus / "report.pdf", PAGES)
        write_html_folder(html_corpus, args.html_files)
        (floor_corpus / "one.md").write_text("one document\n", encoding="utf-8")
        _, floor = command(floor_corpus, scratch / "out-floor", scratch / "cache-floor", scratch)
        pdf = measure(pdf_corpus, args.runs, scratch)
        html = measure(html_corpus, args.runs, scratch)
        reference = pypdf_pages_per_second(pdf_corpus / "report.pdf")
    pdf_speed = PAGES / pdf["cold"]
    html_speed = args.html_files / html["cold"]
    print(f"floor: a one-file corpus export peaks at {floor:.0f} MiB")
    print(f"PDF, {PAGES} pages: cold {pdf['cold']:.2f} s = {pdf_speed:.0f} pages/s; warm (cache) {pdf['warm']:.2f} s; "
          f"peak {pdf['peak']:.0f} MiB")  # fmt: skip
    if reference is not None:
        print(f"  reference: pypdf extracts the same PDF at {reference:.0f} pages/s in this process "
              f"(chunkscope's whole cold command: {pdf_speed / reference:.2f}x that)")  # fmt: skip
    print(f"HTML, {args.html_files} files: cold {html['cold']:.2f} s = {html_speed:.0f} files/s; "
          f"warm (cache) {html['warm']:.2f} s; peak {html['peak']:.0f} MiB")  # fmt: skip
    judged_html = args.html_files == HTML_FILES  # the interpreter's start-up dominates a small folder
    if not judged_html:
        print(f"(the files/s target applies to {HTML_FILES} files: not judged here)")
    ok = (
        pdf_speed >= PDF_TARGET_PAGES_S
        and (html_speed >= HTML_TARGET_FILES_S or not judged_html)
        and max(pdf["peak"], html["peak"]) < MEMORY_TARGET_MIB
    )
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
