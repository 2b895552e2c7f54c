"""The old and new SVG files of every changed chart, for `diff --charts-dir` (a CI artifact)."""

from __future__ import annotations

from .model import Review


def chart_pictures(review: Review) -> dict[str, bytes]:
    """``old/<page path><file>`` and ``new/<page path><file>`` -> SVG bytes."""
    pictures: dict[str, bytes] = {}
    for page in review.pages:
        for chart in page.charts:
            for file in chart.files:
                rel = page.path.lstrip("/") + file.name
                if file.old_svg is not None:
                    pictures[f"old/{rel}"] = file.old_svg
                if file.new_svg is not None:
                    pictures[f"new/{rel}"] = file.new_svg
    return pictures
