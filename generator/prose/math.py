"""TeX a Markdown math extension leaves for the browser to typeset -> the text a reader then reads. Pure.

pymdownx.arithmatex (and MathJax or KaTeX in the page) turns `$5\\,\\mathrm{GB/s}$` into "5 GB/s" on
screen; the prose scan reads it as that text. Commands that set text keep it (\\text, \\mathrm, ...),
spacing commands are spaces, a few symbols are their characters, \\frac{a}{b} is a/b, braces and the
remaining commands' names go. One pass of regular expressions, linear in the formula's length.
"""

from __future__ import annotations

import re

_DELIMITERS = re.compile(r"^\s*(?:\\\(|\\\[|\$\$?)|(?:\\\)|\\\]|\$\$?)\s*$")
_SYMBOLS = {
    "times": "×", "cdot": "·", "pm": "±", "mu": "µ", "approx": "≈", "sim": "~", "le": "≤", "ge": "≥",
    "leq": "≤", "geq": "≥", "percent": "%", "%": "%", "$": "$", "_": "_", "#": "#", "&": "&",
    ",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "quad": " ", "qquad": " ", "!": "", "enspace": " ",
    "thinspace": " ", "medspace": " ", "thickspace": " ", "times10": "×10",
}  # fmt: skip
_FRACTION = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+|[^A-Za-z])")
_TEXT = {"text", "mathrm", "textrm", "mbox", "mathit", "mathbf", "textbf", "operatorname", "mathsf", "textsf", "rm", "unit", "si"}  # fmt: skip


def as_text(tex: str) -> str:
    """The text a typeset formula shows: `5\\,\\mathrm{GB/s}` -> "5 GB/s", `3.6\\times` -> "3.6×"."""
    tex = _DELIMITERS.sub("", tex)
    tex = _FRACTION.sub(r"\1/\2", tex)

    def command(match: re.Match) -> str:
        name = match.group(1)
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        return "" if name in _TEXT or len(name) > 1 else name

    text = _COMMAND.sub(command, tex)
    text = text.replace("{", "").replace("}", "").replace("^", "").replace("~", " ")
    return re.sub(r"\s+", " ", text).strip()
