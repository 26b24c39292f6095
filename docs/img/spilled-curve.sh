#!/usr/bin/env bash
# Remakes docs/img/spilled-curve.png: the curve dashboard template computed by `rates-xl calc`
# against the local sandbox (no key, no network), printed by LibreOffice, page 1 cropped.
# Needs soffice and pdftoppm. Run from the repository root.
set -euo pipefail
work=$(mktemp -d)
rates-xl calc templates/curve_dashboard.xlsx --sandbox --no-progress -o "$work/dash.xlsx"
soffice --headless --convert-to pdf --outdir "$work" "$work/dash.xlsx" >/dev/null
pdftoppm -r 100 -png -f 1 -l 1 -x 50 -y 45 -W 1040 -H 735 "$work/dash.pdf" "$work/shot"
cp "$work/shot-1.png" docs/img/spilled-curve.png
rm -rf "$work"
