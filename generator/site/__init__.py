"""The site wing: the MkDocs plugin, generated pages, HTML fragments, tables, charts and the figure API."""
