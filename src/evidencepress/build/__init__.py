"""The recipe: load -> plan (read, parse, validate, index) -> draw -> render -> write -> record,
and the worker processes that run its stages on every core.
"""
