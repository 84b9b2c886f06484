"""verify-site's reader of a built site: the site's folder and a fresh Report -> every problem, page by page.

The entry point is verify() (whole.py); guide/builders.md states what it refuses. Below it: sitefiles.py
(the site's documents), sitepage.py (one page), sitetext.py (what a reader may see), framed.py (a page
read as a frame around its content), expected.py (the fragments rendered again), registry.py (the runs a
previous site published); a figure's numbers are held by the build's own rule (prose/literals.py).
"""

from .sitepage import Problem
from .whole import verify

__all__ = ["Problem", "verify"]
