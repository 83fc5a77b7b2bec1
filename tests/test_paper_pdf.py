"""The paper's PDF (``paper/builder/pdf.py``), read as a reader would.

A small Markdown with a table, inline and display math and a figure is
printed by headless Chromium, and the PDF is read back with poppler's
``pdfinfo``, ``pdftotext`` and ``pdfimages`` (Debian's poppler-utils, which
``.ci/run`` installs beside Chromium): its pages, the words on each, and the
figure at the resolution it was drawn at. Skipped where Chromium, poppler or
the paper's libraries (``pip install ".[paper]"``) are missing; the
command's one-line errors are checked everywhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paper.builder import pdf

ROOT = Path(__file__).resolve().parent.parent
POPPLER = ("pdfinfo", "pdftotext", "pdfimages")
FIGURE_DPI = 100
SMALL = r"""# A small paper

Words before the table, *emphasised* ones, and $R_{w,m'}(t, n)$ and $x_i$
whose underscores stay math; $5 or $6 are prices.

| game | dice | target |
| --- | ---: | ---: |
| pig | 1 | 100 |
| cinq-mille | 5 | 5,000 |

*Table 1. Three columns of games.*

$$\hat p(s) = \frac{\sum_x x\, P(x)}{\sum_x P(x)},$$

<div style="break-before: page"></div>

![Figure 1. A blue rectangle.](figures/blue.png)

*Figure 1. A blue rectangle.*

Words after the figure.
"""


def write_small(folder: Path) -> Path:
    """The small paper and its figure (2 x 1 inches at 100 dpi) in ``folder``."""
    from matplotlib.figure import Figure

    (folder / "figures").mkdir()
    figure = Figure(figsize=(2, 1))
    figure.patch.set_facecolor("tab:blue")
    figure.savefig(folder / "figures" / "blue.png", dpi=FIGURE_DPI)
    markdown = folder / "small.md"
    markdown.write_text(SMALL, encoding="utf-8")
    return markdown


def libraries():
    for name in ("markdown_it", "mdit_py_plugins", "latex2mathml", "matplotlib"):
        pytest.importorskip(name)


def run_pdf(*args, env=None):
    return subprocess.run([sys.executable, "-m", "paper.builder.pdf", *args], check=False,
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)


# ---------------------------------------------------------------- everywhere
def test_missing_markdown_is_one_line_and_exit_2(tmp_path):
    result = run_pdf(str(tmp_path / "none.md"))
    assert result.returncode == 2
    missing = tmp_path / "none.md"
    assert result.stderr.splitlines() == [f"paper.builder.pdf: no Markdown file {missing}"]


def test_missing_chromium_is_one_line_and_exit_2(tmp_path):
    """With no Chromium on the PATH (or no library: whichever is missing
    first), one line and exit 2, no traceback, and no PDF, not even a part."""
    markdown = tmp_path / "small.md"
    markdown.write_text("# Title\n\nWords.\n", encoding="utf-8")
    empty = tmp_path / "bin"
    empty.mkdir()
    result = run_pdf(str(markdown), env={**os.environ, "PATH": str(empty)})
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert re.fullmatch(r"paper\.builder\.pdf: (no Chromium to print with|the library \S+ "
                        r"is missing): .*\n", result.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "small.md"]


# ---------------------------------------------------------------- the HTML
def test_html_keeps_math_from_emphasis_and_prints_each_caption_once(tmp_path):
    libraries()
    page = pdf.to_html(write_small(tmp_path))
    assert page.count("<math") == 3
    assert 'display="block"' in page
    assert "<em>w" not in page and "<em>i" not in page  # the underscores stayed math
    assert "$5 or $6 are prices" in page
    assert page.count("<figure>") == 1 and page.count("A blue rectangle.") == 2  # alt, caption
    assert page.count("<figcaption>") == 1
    assert '<p class="caption after">' in page
    assert 'src="data:image/png;base64,' in page  # embedded: the HTML stands alone
    assert "width: 192.0px" in page  # 200 px at 100 dpi: 2 inches


@pytest.mark.parametrize(("latex", "error"), [
    (r"\foo x", r"unknown LaTeX command \\foo in \$\\foo x\$"),
    (r"\frac{a}{", r"cannot read the math \$\\frac\{a\}\{\$: NoAvailableTokensError"),
])
def test_bad_latex_is_an_error_not_a_backslash_in_the_pdf(tmp_path, latex, error):
    libraries()
    markdown = tmp_path / "bad.md"
    markdown.write_text(f"A ${latex}$ here.\n", encoding="utf-8")
    with pytest.raises(pdf.PdfError, match=error):
        pdf.to_html(markdown)


# ---------------------------------------------------------------- the PDF
@pytest.fixture(scope="module")
def small_pdf(tmp_path_factory):
    libraries()
    try:
        pdf.find_chromium()
    except pdf.Missing as error:
        pytest.skip(str(error))
    folder = tmp_path_factory.mktemp("small-paper")
    markdown = write_small(folder)
    result = run_pdf(str(markdown))
    assert result.returncode == 0, result.stderr
    return folder, markdown.with_suffix(".pdf")


def poppler(*args) -> str:
    missing = [tool for tool in POPPLER if not shutil.which(tool)]
    if missing:
        pytest.skip(f"no {', '.join(missing)} (apt-get install poppler-utils)")
    return subprocess.run(args, capture_output=True, text=True, check=True, timeout=60).stdout


def test_the_pdf_is_beside_the_markdown_and_nothing_else(small_pdf):
    folder, path = small_pdf
    assert path.read_bytes()[:5] == b"%PDF-"
    assert sorted(p.name for p in folder.iterdir()) == ["figures", "small.md", "small.pdf"]


def test_a_reader_sees_two_a4_pages_with_the_table_math_and_numbers(small_pdf):
    _, path = small_pdf
    info = poppler("pdfinfo", str(path))
    assert re.search(r"^Pages:\s+2$", info, re.MULTILINE), info
    assert re.search(r"^Page size:.*\(A4\)", info, re.MULTILINE), info
    assert re.search(r"^Title:\s+A small paper$", info, re.MULTILINE), info
    first = " ".join(poppler("pdftotext", "-f", "1", "-l", "1", str(path), "-").split())
    for words in ("A small paper", "Words before the table", "emphasised", "$5 or $6 are prices",
                  "game dice target", "pig 1 100", "cinq-mille 5 5,000",
                  "Table 1. Three columns of games."):
        assert words in first, (words, first)
    # The math is typeset, not its LaTeX: no dollar around it, no command, but
    # the math font's italic letters (U+1D445 is an italic R) and a sum sign.
    assert "\\" not in first and "$R" not in first and "$x" not in first, first
    assert "\N{MATHEMATICAL ITALIC CAPITAL R}" in first and "\N{N-ARY SUMMATION}" in first, first
    assert re.search(r" 1 ?/ ?2\b", first), first  # the page number, in the margin
    second = " ".join(poppler("pdftotext", "-f", "2", "-l", "2", str(path), "-").split())
    assert re.fullmatch(r"Figure 1\. A blue rectangle\. Words after the figure\. 2 ?/ ?2",
                        second), second


def test_the_figure_is_printed_once_at_its_own_resolution(small_pdf):
    _, path = small_pdf
    # Columns: page num type width height color comp bpc enc interp object ID
    # x-ppi y-ppi size ratio (the object's ID is two numbers).
    rows = [row.split() for row in poppler("pdfimages", "-list", str(path)).splitlines()[2:]]
    assert len(rows) == 1, rows
    assert rows[0][0] == "2" and rows[0][3:5] == ["200", "100"], rows[0]
    x_ppi, y_ppi = int(rows[0][12]), int(rows[0][13])
    assert abs(x_ppi - FIGURE_DPI) <= 1 and abs(y_ppi - FIGURE_DPI) <= 1, rows[0]
