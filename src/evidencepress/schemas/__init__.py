"""The JSON Schemas a site is checked against: loaded and compiled once, and their errors
explained as located problems.
"""
