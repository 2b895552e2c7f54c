"""The old and new SVG files of every changed chart, for `diff --charts-dir` (a CI artifact).

Beside ``old/`` and ``new/`` an ``index.html`` shows each pair side by side,
so a reviewer who downloads the artifact opens one file.
"""

from __future__ import annotations

import jinja2

from .model import Review

_INDEX = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string("""\
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Changed charts: {{ review.base }} → {{ review.head }}</title>
<style>
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.4; }
body { margin: 1.5rem auto; max-width: 90rem; padding: 0 1rem; }
.pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 1rem; }
figure { margin: 0; border: 1px solid #8884; border-radius: 6px; padding: .5rem; background: #fff; color: #000; }
img { max-width: 100%; height: auto; display: block; }
code { font-size: .9em; }
</style>
</head>
<body>
<h1>Changed charts</h1>
<p><code>{{ review.base }}</code> → <code>{{ review.head }}</code></p>
{% for page in review.pages if page.charts %}
<h2>{{ page.title }} <code>{{ page.path }}</code></h2>
{% for chart in page.charts %}{% for file in chart.files %}
<h3><code>{{ file.name }}</code> {{ file.status }}</h3>
<div class="pair">
{% for side, svg in (("old", file.old_svg), ("new", file.new_svg)) if svg is not none %}
<figure><figcaption>{{ side }}</figcaption><img src="{{ side }}{{ page.path }}{{ file.name }}" alt="{{ side }} {{ file.name }}"></figure>
{% endfor %}
</div>
{% endfor %}{% endfor %}
{% endfor %}
</body>
</html>
""")


def chart_pictures(review: Review) -> dict[str, bytes]:
    """``old/<page path><file>``, ``new/<page path><file>`` -> SVG bytes, and ``index.html`` when any."""
    pictures: dict[str, bytes] = {}
    for page in review.pages:
        for chart in page.charts:
            for file in chart.files:
                rel = page.path.lstrip("/") + file.name
                if file.old_svg is not None:
                    pictures[f"old/{rel}"] = file.old_svg
                if file.new_svg is not None:
                    pictures[f"new/{rel}"] = file.new_svg
    if pictures:
        pictures["index.html"] = _INDEX.render(review=review).encode("utf-8")
    return pictures
