"""evidencepress: a static site generator for evidence articles."""

__version__ = "0.1.0"
