"""Rendering to bytes: article and generated pages (HTML, JSON, Markdown, CSV), data files,
feeds, the search index, ``exports/``, and the writer, the only code that touches an output folder.
"""
