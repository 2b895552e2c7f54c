"""What a build computed once and reads back: content-addressed stores (pages, rendered files),
and build records that let an unchanged site skip its build.
"""
