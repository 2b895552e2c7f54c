"""What spans pages, derived once from the validated pages: the site index (listings, catalog),
the community source records and the table of every reported result.
"""
