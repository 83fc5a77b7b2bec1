"""The paper's PDF, made beside its Markdown: ``python -m paper.builder.pdf
[paper/paper.md] [-o PDF]``, or :func:`make_pdf` from the builder.

The Markdown becomes one self-contained HTML page (figures embedded as data
URIs, a print stylesheet for A4), which Debian's headless Chromium prints to
PDF. Nothing is fetched from the network, and no LaTeX is needed. On the
way, the parsed Markdown is shaped for print (:func:`mark_figures_and_captions`):
an image alone in its paragraph is a figure with its caption, an emphasised
"Table N." paragraph stays on its table's page, and a few things Chromium
prints badly are mended (:func:`print_math`, :func:`render_text`).

Its libraries, all of the ``paper`` extra:

- markdown-it-py, with its tables: a CommonMark parser (the Markdown of
  GitHub and, for what the paper uses, of pandoc), kept by the Executable
  Books project. Python-Markdown follows Gruber's older rules instead, and
  would need a math extension written here to keep ``$...$`` from its
  emphasis and escapes.
- mdit-py-plugins' ``dollarmath``: ``$...$`` and ``$$...$$`` parsed as math
  tokens before emphasis is, so ``$R_{w,m'}$`` keeps its underscores; with
  pandoc's rules (no space inside the dollars, no digit after the closing
  one), so "$5 or $6" stays text.
- latex2mathml: the LaTeX of the math to MathML, which Chromium lays out
  itself (since version 109), with no MathJax, no network and no TeX.

The page numbers are CSS page-margin boxes (``@page { @bottom-center }``),
which Chromium prints since version 131; its own header and footer (date,
file URL) are turned off.
"""

from __future__ import annotations

import argparse
import base64
import html
import mimetypes
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

PAPER = Path(__file__).resolve().parent.parent / "paper.md"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PRINT_SECONDS = 240
"""How long Chromium may take to print. The paper prints in about 5 s; the
margin is for a 2-core machine busy with other work."""
CSS_DPI = 96
"""CSS pixels per inch: a PNG is shown at the size its own resolution gives."""
EXTRAS = "pip install '.[paper]'"


class PdfError(Exception):
    """The PDF cannot be made; the message is one line for a person."""

    exit_code = 1


class Missing(PdfError):
    """Something the PDF needs is not on this machine (a program, a library or a file)."""

    exit_code = 2


# ---------------------------------------------------------------- Markdown to HTML
CSS = """
@page {
  size: A4;
  margin: 20mm 19mm 20mm;
  @bottom-center {
    content: counter(page) " / " counter(pages);
    font: 9pt "Liberation Serif", "DejaVu Serif", serif;
    color: #555;
  }
}
html {
  font: 10.5pt/1.38 "Liberation Serif", "Times New Roman", "DejaVu Serif", serif;
  color: #000;
  -webkit-print-color-adjust: exact;
  print-color-adjust: exact;
}
body { margin: 0; }
h1 { font-size: 17pt; line-height: 1.2; text-align: center; margin: 0 0 .6em; }
h2 { font-size: 13pt; margin: 1.3em 0 .4em; break-after: avoid; }
h3 { font-size: 11pt; margin: 1.1em 0 .35em; break-after: avoid; }
p, li { text-align: justify; orphans: 2; widows: 2; }
p { margin: .45em 0; }
ul, ol { margin: .45em 0; padding-left: 1.6em; }
li { margin: .2em 0; }
a { color: inherit; text-decoration: none; }
code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: .82em; }
pre { font-size: 7.5pt; line-height: 1.3; margin: .6em 0; padding: .45em .6em;
      background: #f3f3f3; break-inside: avoid; }
pre code { font-size: 1em; }
pre .line { display: block; min-height: 1.3em; white-space: pre-wrap; padding-left: 4ch;
            text-indent: -4ch; }
.nowrap { white-space: nowrap; }
/* The math font matches the body's x-height less than a Times would, so it is
   set a little smaller; DejaVu Math TeX Gyre comes with fonts-dejavu-extra. */
math { font-family: "DejaVu Math TeX Gyre", "Latin Modern Math", "STIX Two Math", math;
       font-size: .93em; }
mtext { font-family: "Liberation Serif", "Times New Roman", "DejaVu Serif", serif; }
div.math.block { margin: .7em 0; text-align: center; break-inside: avoid; }
/* Tables: as wide as their cells, centred, and no wider than the text: the
   widest of the paper has 10 columns, so the type is smaller than the text's
   and cells break their lines; a row is never cut by a page. */
table { border-collapse: collapse; max-width: 100%; margin: .5em auto .8em; font-size: 8.5pt;
        line-height: 1.25; border-top: .8pt solid #000; border-bottom: .8pt solid #000; }
table.wide { font-size: 7.5pt; }
thead { display: table-header-group; }
th { border-bottom: .6pt solid #000; font-weight: bold; text-align: left; }
th.short { white-space: nowrap; }
th, td { padding: .18em .4em; vertical-align: top; }
tbody tr + tr td { border-top: .3pt solid #ccc; }
tr { break-inside: avoid; }
td code, th code { font-size: .9em; }
/* A table's caption, an emphasised paragraph "Table N." before or after it,
   stays on the table's page. */
p.caption { font-size: 9pt; text-align: left; margin: .8em 0 .2em; }
p.caption.before { break-after: avoid; }
p.caption.after { break-before: avoid; margin: -.4em 0 .8em; }
figure { margin: .9em 0; text-align: center; break-inside: avoid; }
figure img { max-width: 100%; max-height: 225mm; height: auto; object-fit: contain; }
figcaption { font-size: 9pt; text-align: left; margin-top: .3em; }
p.abstract { margin: .8em 1.2em 1.2em; }
p.reference { text-align: left; padding-left: 1.6em; text-indent: -1.6em; margin: .35em 0; }
"""

CAPTION = re.compile(r"(Table|Figure)\s+\d+\.")
UNKNOWN_COMMAND = re.compile(r">(\\[A-Za-z]+)<")
PRIME = re.compile(r"<msup>(<mi>[^<]*</mi>)<mi>(&#x0203[234];)</mi></msup>")
OPERATOR_NAME = re.compile(r"<mo>(max|min|sup|inf|lim|arg ?max|arg ?min)</mo>")
NUMBER_RANGE = re.compile(r"\d(?:[\d,.]*\d)?–\d(?:[\d,.]*\d)?")
WIDE_TABLE = 8
"""Columns from which a table's type is smaller still."""
SHORT_HEADER = 12
"""Characters up to which a column's header stays on one line: Chromium
squeezes a column of short cells, and would print "5 dice" as "5" over "dice"."""


def to_html(markdown_path: Path) -> str:
    """The Markdown file as one self-contained HTML page, ready to print."""
    markdown_path = Path(markdown_path)
    if not markdown_path.is_file():
        raise Missing(f"no Markdown file {markdown_path}")
    try:
        import latex2mathml.converter
        from markdown_it import MarkdownIt
        from mdit_py_plugins.dollarmath import dollarmath_plugin
    except ImportError as error:
        raise Missing(f"the library {error.name} is missing: {EXTRAS}") from None

    def math(latex: str, options: dict) -> str:
        display = "block" if options.get("display_mode") else "inline"
        try:
            mathml = latex2mathml.converter.convert(latex, display=display)
        # latex2mathml's errors share no base class but Exception.
        except Exception as error:  # noqa: BLE001
            raise PdfError(f"cannot read the math ${latex}$: {type(error).__name__} {error}"
                           ) from None
        # latex2mathml passes an unknown command through as text: a reader
        # would see "\foo" in the PDF.
        unknown = UNKNOWN_COMMAND.search(mathml)
        if unknown:
            raise PdfError(f"unknown LaTeX command {unknown.group(1)} in ${latex}$")
        return print_math(mathml)

    md = (MarkdownIt("commonmark")
          .enable("table")
          .use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True,
               allow_labels=False, renderer=math))
    env = {"base": markdown_path.resolve().parent}
    tokens = md.parse(markdown_path.read_text(encoding="utf-8"), env)
    mark_figures_and_captions(tokens)
    md.add_render_rule("image", render_image)
    md.add_render_rule("text", render_text)
    md.add_render_rule("fence", render_code)
    md.add_render_rule("code_block", render_code)
    body = md.renderer.render(tokens, md.options, env)
    title = next((tokens[i + 1].content for i, t in enumerate(tokens)
                  if t.type == "heading_open" and t.tag == "h1"), markdown_path.stem)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n"
            f"<body>\n{body}</body>\n</html>\n")


def print_math(mathml: str) -> str:
    """latex2mathml's MathML, mended where Chromium prints it badly.

    A prime is a superscript there (``<msup><mi>m</mi><mi>′</mi></msup>``),
    but U+2032 is already a raised glyph: printed as a superscript it floats
    a line above the letter, so it follows the letter instead. ``\\max`` is an
    operator there (``<mo>max</mo>``), which Chromium spaces as a binary one,
    "1 −  max (W"; as a name (``<mi>``) it prints as TeX does, "1 − max(W".
    A slash is spaced as a binary operator too, "1 / (1 + x)": TeX sets it as
    a letter, "1/(1 + x)".
    """
    mathml = PRIME.sub(r'\1<mo lspace="0" rspace="0">\2</mo>', mathml)
    mathml = mathml.replace("<mo>&#x0002F;</mo>", '<mo lspace="0" rspace="0">/</mo>')
    return OPERATOR_NAME.sub(r"<mi>\1</mi>", mathml)


def mark_figures_and_captions(tokens) -> None:
    """Shape the parsed Markdown for print, in place.

    An image alone in its paragraph becomes a ``<figure>``. Its caption is the
    emphasised paragraph right after it when that starts with the image's
    text (the paper's alt text is the figure's label, "Figure 3"), so it is
    printed once and on the figure's page; else the alt text.
    An emphasised paragraph "Table N. ..." next to a table is its caption.
    The paragraphs under a heading "References" are references: ragged right
    with a hanging indent, as justified lines of long titles gape.
    """
    i = 0
    references = False
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            references = tokens[i + 1].content.strip() == "References"
        if token.type == "table_open" and header_columns(tokens, i) >= WIDE_TABLE:
            token.attrSet("class", "wide")
        if token.type == "th_open" and len(tokens[i + 1].content) <= SHORT_HEADER:
            token.attrSet("class", "short")
        if token.type != "paragraph_open" or i + 2 >= len(tokens):
            i += 1
            continue
        inline = tokens[i + 1]
        children = [c for c in inline.children or [] if not (c.type == "text" and not
                                                             c.content.strip())]
        if len(children) == 1 and children[0].type == "image":
            image = children[0]
            token.tag = tokens[i + 2].tag = "figure"
            caption = emphasised_paragraph(tokens, i + 3)
            # The alt text is the caption, or only its label ("Figure 3").
            if caption is not None and plain(caption).startswith(plain(image.children or [])):
                image.meta["caption"] = caption
                del tokens[i + 3:i + 6]
            else:
                image.meta["caption"] = image.children or []
            i += 3
            continue
        words = emphasised_paragraph(tokens, i)
        if words is not None and CAPTION.match(plain(words)):
            before = i + 3 < len(tokens) and tokens[i + 3].type == "table_open"
            after = i > 0 and tokens[i - 1].type == "table_close"
            if before or after:
                token.attrSet("class", "caption " + ("before" if before else "after"))
        elif plain((inline.children or [])[:3]).startswith("Abstract."):
            token.attrSet("class", "abstract")
        elif references:
            token.attrSet("class", "reference")
        i += 3


def header_columns(tokens, table_index: int) -> int:
    """The number of header cells of the table that opens at ``table_index``."""
    count = 0
    for token in tokens[table_index + 1:]:
        if token.type == "th_open":
            count += 1
        elif token.type == "thead_close":
            break
    return count


def emphasised_paragraph(tokens, index: int):
    """The inline children of the paragraph at ``index`` when the whole of it
    is one emphasis (``*...*``), else None."""
    if index + 2 >= len(tokens) or tokens[index].type != "paragraph_open":
        return None
    children = tokens[index + 1].children or []
    if (len(children) >= 2 and children[0].type == "em_open" and children[-1].type == "em_close"
            and not any(c.type == "em_close" for c in children[1:-1])):
        return children
    return None


def plain(children) -> str:
    """The text of inline tokens, without their markup."""
    text = []
    for child in children:
        if child.type in ("text", "code_inline", "math_inline"):
            text.append(child.content)
        elif child.children:
            text.append(plain(child.children))
        elif child.type in ("softbreak", "hardbreak"):
            text.append(" ")
    return " ".join("".join(text).split())


def render_image(renderer, tokens, idx, options, env) -> str:
    """An image embedded as a data URI, at the size its own resolution gives
    (no wider than the text); inside a figure, with its caption."""
    token = tokens[idx]
    source = token.attrGet("src") or ""
    alt = plain(token.children or [])
    attributes = f'alt="{html.escape(alt)}"'
    if source.startswith("data:"):
        uri = source
    else:
        path = env["base"] / urllib.parse.unquote(source)
        if not path.is_file():
            raise Missing(f"no figure {source} beside {env['base']}")
        data = path.read_bytes()
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        uri = f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"
        width = png_css_width(data)
        if width:
            attributes += f' style="width: {width:.1f}px"'
    image = f'<img src="{uri}" {attributes}>'
    if "caption" not in token.meta:
        return image
    caption = renderer.renderInline(token.meta["caption"], options, env)
    return f"{image}\n<figcaption>{caption}</figcaption>"


def render_text(renderer, tokens, idx, options, env) -> str:
    """Text, with a range of numbers ("350–9,950") kept on one line: Chromium
    would break it after the dash, in the narrow cells of a table above all."""
    text = html.escape(tokens[idx].content, quote=False)
    return NUMBER_RANGE.sub(r'<span class="nowrap">\g<0></span>', text)


def render_code(renderer, tokens, idx, options, env) -> str:
    """A code block, a line of it to a block: a line too long for the page
    goes on indented under itself, so the reader still sees where lines start."""
    lines = tokens[idx].content.rstrip("\n").split("\n")
    body = "".join(f'<span class="line">{html.escape(line, quote=False)}</span>'
                   for line in lines)
    return f"<pre><code>{body}</code></pre>\n"


def png_css_width(data: bytes) -> float | None:
    """The width in CSS pixels of a PNG printed at its own resolution (its
    pHYs chunk: matplotlib writes the figure's dpi there), or None."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width = struct.unpack(">I", data[16:20])[0]
    at = 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"pHYs" and length == 9:
            per_metre, _, unit = struct.unpack(">IIB", data[at + 8:at + 17])
            if unit == 1 and per_metre:
                return width * CSS_DPI / (per_metre * 0.0254)
        if kind in (b"IDAT", b"IEND"):
            break
        at += 12 + length
    return None


# ---------------------------------------------------------------- HTML to PDF
def find_chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise Missing("no Chromium to print with: apt-get install chromium")


def print_pdf(html_path: Path, pdf_path: Path, profile: Path) -> None:
    """Print ``html_path`` to ``pdf_path`` with headless Chromium."""
    command = [find_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
               "--no-first-run", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--disable-extensions", f"--user-data-dir={profile}",
               "--no-pdf-header-footer", f"--print-to-pdf={pdf_path}", html_path.as_uri()]
    # Its own session, so that a Chromium that hangs is ended with all its
    # helper processes, and none is left behind.
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=PRINT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise PdfError(f"Chromium did not print within {PRINT_SECONDS} s") from None
    written = pdf_path.is_file() and pdf_path.read_bytes()[:5] == b"%PDF-"
    if process.returncode != 0 or not written:
        last = [line for line in output.decode(errors="replace").splitlines() if line.strip()]
        raise PdfError(f"Chromium did not print (exit {process.returncode})"
                       + (f": {last[-1].strip()}" if last else ""))


def make_pdf(markdown_path: Path, pdf_path: Path | None = None) -> Path:
    """Print the Markdown to a PDF, by default beside it (``paper.md`` to
    ``paper.pdf``), and return the PDF's path.

    The PDF is written to a temporary file in its own directory and renamed
    when complete: a failed or interrupted print leaves the previous PDF, or
    none, never a partial one. Raises :class:`PdfError` (:class:`Missing`
    when Chromium, a library or a file is missing).
    """
    markdown_path = Path(markdown_path)
    pdf_path = Path(pdf_path) if pdf_path is not None else markdown_path.with_suffix(".pdf")
    if not pdf_path.parent.is_dir():
        raise Missing(f"no directory {pdf_path.parent} for the PDF")
    page = to_html(markdown_path)
    find_chromium()
    with tempfile.TemporaryDirectory(prefix="paper-pdf-") as work:
        work = Path(work)
        html_path = work / "paper.html"
        html_path.write_text(page, encoding="utf-8")
        descriptor, partial = tempfile.mkstemp(prefix=f".{pdf_path.name}.", suffix=".part",
                                               dir=pdf_path.parent)
        os.close(descriptor)
        partial = Path(partial)
        try:
            print_pdf(html_path, partial, work / "profile")
            partial.chmod(0o644)
            os.replace(partial, pdf_path)
        finally:
            partial.unlink(missing_ok=True)
    return pdf_path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paper.builder.pdf",
                                     description="Print the paper's Markdown to a PDF beside it.")
    parser.add_argument("markdown", nargs="?", type=Path, default=PAPER,
                        help="the Markdown file (default: paper/paper.md)")
    parser.add_argument("-o", "--output", type=Path, help="the PDF (default: beside the Markdown)")
    args = parser.parse_args(argv)
    try:
        pdf = make_pdf(args.markdown, args.output)
    except PdfError as error:
        print(f"paper.builder.pdf: {error}", file=sys.stderr)
        return error.exit_code
    print(f"wrote {pdf} ({pdf.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
