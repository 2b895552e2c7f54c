"""``evidencepress serve``: the site rendered in memory, served on 127.0.0.1, rebuilt on save.
"""
