"""Writers of the PDF, HTML and DOCX fixtures, each made with a library other than the one chunkscope reads with.

PDFs are written by fpdf2 (chunkscope reads them with pypdfium2); DOCX files by python-docx's writer (read back
through its reader, so the DOCX tests check chunkscope's rendering of the structure, not the library); HTML is
written by hand.
"""

from __future__ import annotations

from pathlib import Path


def write_pdf(path: Path, pages: list[list[str]]) -> Path:
    """A PDF with one page per entry, each line of the entry one text line (Helvetica, ASCII only)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for lines in pages:
        pdf.add_page()
        for line in lines:
            pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


def write_encrypted_pdf(path: Path, lines: list[str]) -> Path:
    """A PDF that needs the user password ``secret`` to open."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    pdf.add_page()
    for line in lines:
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.output(str(path))
    return path


def write_scanned_pdf(path: Path, page_count: int) -> Path:
    """A PDF whose pages hold only drawn shapes: no text layer, like a scan."""
    from fpdf import FPDF

    pdf = FPDF()
    for _ in range(page_count):
        pdf.add_page()
        pdf.rect(20, 20, 100, 50, style="F")
    pdf.output(str(path))
    return path


def write_docx(path: Path) -> Path:
    """A DOCX with a title, two headings, paragraphs, a bulleted list and a 3x2 table."""
    import docx

    document = docx.Document()
    document.add_heading("Refund handbook", level=1)
    document.add_paragraph("Refunds are paid within 14 days.")
    document.add_heading("Fees", level=2)
    document.add_paragraph("Return shipping costs 5 euros.", style="List Bullet")
    document.add_paragraph("Opened software is not refunded.", style="List Bullet")
    table = document.add_table(rows=3, cols=2)
    for row, cells in zip(table.rows, [("Item", "Fee"), ("Shirt", "5"), ("Laptop", "20")], strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    document.add_paragraph("Questions go to the help desk.")
    document.save(str(path))
    return path


HTML_WITH_TABLES = """<!doctype html>
<html><head><meta charset="utf-8"><title>Plans</title><script>var x = "<p>not text</p>";</script></head>
<body>
<h1>Plans and prices</h1>
<p>Every plan is billed <b>monthly</b>.</p>
<ul>
  <li>Basic
    <ul><li>one user</li><li>email support</li></ul>
  </li>
  <li>Team</li>
</ul>
<table>
  <thead><tr><th>Plan</th><th>Price</th></tr></thead>
  <tbody>
    <tr><td>Basic</td><td>10</td></tr>
    <tr><td>Team</td><td>25</td></tr>
    <tr><td>Enterprise</td><td>call us</td></tr>
  </tbody>
</table>
<h2>Cancelling</h2>
<p>Cancel any time from the account page.</p>
</body></html>
"""
"""An HTML page with a heading, a nested list and a table with a header row."""

HTML_WITH_TABLES_TEXT = """# Plans and prices

Every plan is billed monthly.

- Basic

  - one user

  - email support

- Team

| Plan | Price |
| --- | --- |
| Basic | 10 |
| Team | 25 |
| Enterprise | call us |

## Cancelling

Cancel any time from the account page."""
"""What :data:`HTML_WITH_TABLES` extracts to, written out by hand."""
