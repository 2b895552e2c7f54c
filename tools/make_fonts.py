"""Write the web fonts of the default theme: DejaVu Sans (regular, bold, oblique) as WOFF2 subsets.

Charts are laid out by matplotlib with the DejaVu Sans it bundles; the site
ships the same font so that a browser draws chart text with the metrics the
layout assumed. Run after a matplotlib upgrade (it needs fonttools, which
matplotlib installs, and brotli for WOFF2):

    .venv/bin/pip install brotli && .venv/bin/python tools/make_fonts.py
"""

from __future__ import annotations

import shutil
from pathlib import Path

import matplotlib
from fontTools import subset

OUT = Path(__file__).resolve().parents[1] / "templates" / "static" / "fonts"
FACES = {"DejaVuSans": "DejaVuSans.ttf", "DejaVuSans-Bold": "DejaVuSans-Bold.ttf",
         "DejaVuSans-Oblique": "DejaVuSans-Oblique.ttf"}
# Latin, Latin-1, Latin Extended-A, Greek (µ), punctuation incl. U+202F, super/subscripts,
# currency, letterlike, arrows, math operators, box and geometric shapes, check marks.
UNICODES = ("U+0020-007E,U+00A0-017F,U+0370-03FF,U+2000-206F,U+2070-209F,U+20A0-20BF,U+2100-214F,"
            "U+2190-21FF,U+2200-22FF,U+25A0-25FF,U+2713-2718")


def main() -> None:
    fonts = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    OUT.mkdir(parents=True, exist_ok=True)
    for name, file in FACES.items():
        options = subset.Options()
        options.flavor = "woff2"
        options.layout_features = ["kern", "liga"]
        options.name_IDs = ["*"]  # keep the copyright and license names
        options.notdef_outline = True
        font = subset.load_font(str(fonts / file), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=subset.parse_unicodes(UNICODES))
        subsetter.subset(font)
        subset.save_font(font, str(OUT / f"{name}.woff2"), options)
    shutil.copyfile(fonts / "LICENSE_DEJAVU", OUT / "LICENSE_DEJAVU")


if __name__ == "__main__":
    main()
