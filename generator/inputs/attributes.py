""".gitattributes -> the rules that would convert a run's bytes on checkout. Pure.

A manifest hashes the bytes a probe wrote. git converts a file's bytes between the repository and
the work tree when an attribute says so: `text` (or `text=auto`, or `eol=` with `text` unset by
nothing) normalises line endings, `filter=` runs a driver (git-lfs is configured on most CI
runners), `working-tree-encoding=` re-encodes, `ident` expands `$Id$`. Any of these on a file under
measurements/ makes the checkout differ from what was measured, so the gate names the line that sets
it. `ledger init` writes `measurements/** -text`.

Matching follows gitattributes(5): gitignore patterns without negation, relative to the folder of
the file that holds them, a deeper file overriding a shallower one and a later line an earlier one;
macros (`binary`, and `[attr]name ...` lines of the top-level file) expand in place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..records import Finding, Source

CONVERTING = ("text", "eol", "filter", "working-tree-encoding", "ident", "crlf")
_MACROS = {"binary": ("-diff", "-merge", "-text")}
MAX_LINES = 10_000
MAX_PATTERN = 1_000


@dataclass(frozen=True, slots=True)
class Rule:
    where: Source  # the .gitattributes file and line
    folder: str  # the folder the file sits in, relative to the ledger's root ("" for the root)
    pattern: re.Pattern[str]
    line: str  # as written
    settings: tuple[tuple[str, object], ...]  # (attribute, True / False / None (unspecified) / value)


def parse(path: str, folder: str, text: str, top: bool) -> list[Rule]:
    """The rules of one .gitattributes file; `top`: the repository's root one (only it may define macros)."""
    macros: dict[str, tuple[str, ...]] = dict(_MACROS)
    rules = []
    for number, raw in enumerate(text.splitlines()[:MAX_LINES], start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, _, rest = line.partition(" ") if " " in line else line.partition("\t")
        words = rest.split()
        if pattern.startswith("[attr]"):
            if top:
                macros[pattern[len("[attr]") :]] = tuple(words)
            continue
        if pattern.startswith("!") or len(pattern) > MAX_PATTERN:
            continue  # negative patterns are forbidden (git ignores the line)
        settings = tuple(_settings(words, macros))
        if any(name in CONVERTING for name, _ in settings):
            rules.append(Rule(Source(path, number), folder, _regex(pattern.strip('"')), line, settings))
    return rules


def _settings(words: Iterable[str], macros: dict[str, tuple[str, ...]], depth: int = 0) -> Iterable[tuple[str, object]]:
    for word in words:
        name = word.lstrip("-!").partition("=")[0]
        if name in macros and depth < 8 and "=" not in word:
            if word.startswith("-") or word.startswith("!"):
                continue  # unsetting a macro unsets nothing we read
            yield from _settings(macros[name], macros, depth + 1)
        elif word.startswith("-"):
            yield name, False
        elif word.startswith("!"):
            yield name, None
        elif "=" in word:
            yield name, word.partition("=")[2]
        else:
            yield name, True


def _regex(pattern: str) -> re.Pattern[str]:
    """A gitignore pattern (relative to its file's folder) as a regular expression over relative paths."""
    anchored = "/" in pattern.rstrip("/")
    body = pattern.lstrip("/")
    out, index = [], 0
    while index < len(body):
        if body.startswith("**/", index) and (index == 0 or body[index - 1] == "/"):
            out.append("(?:[^/]*/)*")
            index += 3
        elif body.startswith("/**", index) and index + 3 == len(body):
            out.append("/.*")
            index += 3
        elif body[index] == "*":
            out.append("[^/]*")
            index += 2 if body.startswith("**", index) else 1
        elif body[index] == "?":
            out.append("[^/]")
            index += 1
        elif body[index] == "[" and "]" in body[index + 2 :]:
            end = body.index("]", index + 2)
            inner = body[index + 1 : end]
            inner = "^" + inner[1:] if inner.startswith("!") else inner
            out.append("[" + inner.replace("\\", "\\\\") + "]")
            index = end + 1
        elif body[index] == "\\" and index + 1 < len(body):
            out.append(re.escape(body[index + 1]))
            index += 2
        else:
            out.append(re.escape(body[index]))
            index += 1
    prefix = "" if anchored else "(?:[^/]*/)*"
    try:
        return re.compile(prefix + "".join(out) + r"\Z")
    except re.error:
        return re.compile(r"(?!)")  # a pattern git would not match either


def converting(rules: list[Rule], paths: Iterable[str]) -> list[tuple[Rule, str, str]]:
    """(rule, attribute, first path) for each rule whose setting is in force on a path and converts its bytes.

    rules: in order of precedence (shallow files first, lines in order); paths relative to the root.
    """
    found: dict[tuple[Source, str], tuple[Rule, str, str]] = {}
    for path in paths:
        state: dict[str, tuple[object, Rule]] = {}
        for rule in rules:
            relative = path[len(rule.folder) + 1 :] if rule.folder else path
            if rule.folder and not path.startswith(rule.folder + "/"):
                continue
            if not rule.pattern.match(relative):
                continue
            for name, value in rule.settings:
                if name in CONVERTING:
                    state[name] = (value, rule)
        for name, rule in _in_force(state):
            found.setdefault((rule.where, name), (rule, name, path))
    return sorted(found.values(), key=lambda item: (item[0].where, item[1]))


def _in_force(state: dict[str, tuple[object, Rule]]) -> list[tuple[str, Rule]]:
    value = {name: setting[0] for name, setting in state.items()}
    text = value.get("text", value.get("crlf"))
    active = []
    if text is True or text == "auto" or text == "input":
        active.append("text" if "text" in state else "crlf")
    elif text is None and value.get("eol") not in (None, False):
        active.append("eol")
    for name in ("filter", "working-tree-encoding", "ident"):
        if value.get(name) not in (None, False):
            active.append(name)
    return [(name, state[name][1]) for name in active]


def findings(rules: list[Rule], paths: Iterable[str], prefix: str = "") -> list[Finding]:
    """A finding at each .gitattributes line whose setting would convert a run's bytes on checkout.

    paths: relative to the repository's top; prefix: the ledger root's path from there (not shown)."""
    return [
        Finding(
            rule.where,
            "",
            "invalid",
            f"`{rule.line[:120]}` sets {name} on {path.removeprefix(prefix)}: git would convert the bytes of runs on checkout, "
            "so they would differ from what their manifests hashed",
            "remove the setting for measurements/, or end the file with `measurements/** -text` "
            "(and no filter, working-tree-encoding or ident there)",
        )
        for rule, name, path in converting(rules, paths)
    ]
