"""Validation: ``site.toml``, a parsed page to a validated Page (schema, semantic checks, charts,
inline values, prose numbers), record prose and the site-wide link check.
"""
