"""Prose: page references, what a reader reads (the rendered text) and the figures typed into it."""
