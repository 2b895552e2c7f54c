"""Two published documents of one article compared, and the change in words (used by review/ and site/)."""
