"""Reading and parsing: the only walker of ``content/`` and ``static/``; front matter, Markdown and
the fenced JSON / YAML documents, each value with its line and column in the Markdown file.
"""
