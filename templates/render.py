"""Render every template to PNG pages for a person to review the layout (not run in CI).

    python -m rates_xl.templates.render [--out DIR] [--dpi 80]

Computes each template against an in-process sandbox (values frozen, as `rates-xl demo`
writes them), converts each workbook to PDF with LibreOffice headless and each PDF page to
a PNG with pdftoppm. Needs the Debian packages `libreoffice-calc` and `poppler-utils`
(`apt-get install -y libreoffice-calc poppler-utils`). LibreOffice does not know the
RATES_* functions, which is why it renders the frozen copies.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def render(out_dir: Path, dpi: int = 80) -> list[Path]:
    for tool in ("soffice", "pdftoppm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: apt-get install -y libreoffice-calc poppler-utils")
    from rates_xl.templates.demo import run_demo

    out_dir.mkdir(parents=True, exist_ok=True)
    run = run_demo(out_dir / "values")
    pages: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="rates-xl-render-") as profile:
        for name, book in run.files.items():
            # A private profile: a LibreOffice the user has open does not get in the way.
            subprocess.run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless",
                            "--convert-to", "pdf", "--outdir", str(out_dir), str(book)],
                           check=True, capture_output=True, timeout=180)
            pdf = out_dir / f"{name}.pdf"
            for old in out_dir.glob(f"{name}-*.png"):
                old.unlink()
            subprocess.run(["pdftoppm", "-png", "-r", str(dpi), str(pdf), str(out_dir / name)],
                           check=True, capture_output=True, timeout=180)
            pages.extend(sorted(out_dir.glob(f"{name}-*.png")))
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="rates-render", help="output folder (default ./rates-render)")
    parser.add_argument("--dpi", type=int, default=80)
    args = parser.parse_args(argv)
    for page in render(Path(args.out), args.dpi):
        print(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
