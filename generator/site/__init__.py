"""The site wing: the MkDocs plugin, generated pages, HTML fragments, tables, charts and the figure API.

It needs the site stack, the package's [site] extra: imported without it, it says what to install.
"""

from ..inputs.stack import require

require()
