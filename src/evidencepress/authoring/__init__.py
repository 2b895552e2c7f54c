"""Tools for editors: ``new`` (an article skeleton), ``import`` (a published index.md back to
source) and the readable schema reference of ``schema --reference``.
"""
