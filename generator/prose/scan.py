"""Prose: what a reader reads -> the figures typed into it outside a claim reference.

A figure is a number with a unit, ×, or %: "3.71× faster", "42 GB/s", "15% slower" (numbers.py says
exactly which). Such a number belongs in a claim, cited with {{ claim("id") }}, so the gate can keep
it true. Each page is read as the site shows it: rendered by Python-Markdown with the project's
extensions (rendered.py), so admonitions, tables, footnotes, lists, attribute values, entities and
escapes are read as a reader reads them, and each figure is traced back to its line (through an
included snippet to the file it came from). The page's front matter (its title, description) and
every text MkDocs puts on each page from mkdocs.yml (site name, description, author, copyright,
navigation titles, theme and extra strings) are read too. Claim statements and notes are read as
well; a figure there is a warning. Not figures: labels (B=16, 4-bit, 8192×2048, a 9B model), code,
references, and anything an author marks as a label with <span class="ledger-label">…</span>. In a
statement or a note, only a figure of the claim's own kind of quantity is a finding (a warning).
"""

from __future__ import annotations

import bisect
import html
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..lang import units
from ..records import Claim, Finding, PageRef, Policy, Source
from . import numbers, references, rendered, tokens

MARK_LABEL = '<span class="ledger-label">…</span>'
PLACEHOLDER = "LEDGERREF"  # what a reference reads as while a page is rendered: no digits, no unit
RENDER_SECONDS = 5.0  # per page, plus 2 s per MiB: a budget, far above what a page of prose needs
MAX_PER_PAGE = 200  # figures reported one by one on a page; the rest in one finding
_META = re.compile(r"^[ ]{0,3}[A-Za-z0-9_-]+:")
_META_MORE = re.compile(r"^(?:[ ]{4}|\t)")
_SNIPPET = re.compile(r"""^\s*-{1,}8<-{1,}\s+["']?([^"'\s]+)["']?\s*$""", re.M)
_DECODE = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});|\\[^\n]|</?[A-Za-z][^<>\n]*>")
_KEPT = frozenset("%×‰µ")


@dataclass(frozen=True, slots=True)
class TypedFigure:
    where: Source  # file, line and column of the number
    text: str  # as normalised: "3.71×" (the build's read-back compares these)
    seen: str = ""  # as a reader sees it, for messages: "3,71 ×", "½ GB"
    via: str = ""  # for a figure typed in an included snippet: the page and line of its include ("docs/a.md:10")

    @property
    def shown(self) -> str:
        return self.seen or self.text


@dataclass(frozen=True, slots=True)
class Scan:
    """What the prose scan found: figures by the file they are typed in, and findings."""

    findings: tuple[Finding, ...]
    typed: Mapping[str, tuple[tuple[str, Source], ...]]  # page (or mkdocs.yml) -> its figures' texts and places


def scan(
    pages: Mapping[str, str], refs: Iterable[PageRef], policy: Policy, root: Path, claims: Iterable[Claim] = ()
) -> Scan:
    """Figures typed into pages, into what MkDocs shows from mkdocs.yml, and into claim statements and notes."""
    claims = tuple(claims)
    holders: dict[str, tuple[str, ...]] | None = None  # made at the first figure a page types: most pages type none
    by_page: dict[str, list[PageRef]] = {}
    for ref in refs:
        by_page.setdefault(ref.where.path, []).append(ref)
    names, configs = rendered.extension_list(policy.markdown_extensions, root)
    table = policy.units  # the project's own units are figures too
    findings: list[Finding] = []
    typed: dict[str, tuple[tuple[str, Source], ...]] = {}
    ends = time.monotonic() + policy.max_render_seconds  # the whole check's rendering, every page together
    for path, text in pages.items():
        left = ends - time.monotonic()
        if left <= 0:
            findings.append(
                _unrenderable(
                    path,
                    "was not read: the check spent its render budget "
                    f"(max_render_seconds: {policy.max_render_seconds:g}) on the pages before it",
                    SPENT_FIX,
                )
            )
            continue
        found, problem = page_figures(text, path, by_page.get(path, []), names, configs, root, table, left)
        if problem:
            findings.append(problem)
        typed[path] = tuple((figure.text, figure.where) for figure in found)
        if found:
            holders = _holders(claims, table) if holders is None else holders
            findings += unbound(found, policy, "page", holders=holders)
    site = [
        TypedFigure(Source(file, line, column + figure.start + 1), figure.text, figure.seen)
        for file, line, column, value in policy.site_texts
        for figure in numbers.figures(value, table)
    ]
    for typed_figure in site:  # by the file each is typed in: mkdocs.yml, or a file it inherits
        typed[typed_figure.where.path] = (
            *typed.get(typed_figure.where.path, ()),
            (typed_figure.text, typed_figure.where),
        )
    findings += unbound(site, policy, "site's configuration (shown on every page)", SITE_FIX)
    findings += claim_text_findings(claims, table)
    return Scan(tuple(findings), typed)


def _holders(claims: Iterable[Claim], table: units.UnitTable) -> dict[str, tuple[str, ...]]:
    """Each figure text an asserted claim states (its value and unit as a page would type them) -> the claims."""
    found: dict[str, list[str]] = {}
    for claim in claims:
        if claim.value is None or claim.status != "asserted" or not isinstance(claim.unit, str):
            continue
        value = claim.value_text or f"{claim.value:g}"
        joined = f"{value}{claim.unit}" if claim.unit in ("×", "%") else f"{value} {claim.unit}"
        for figure in numbers.figures(joined, table)[:1]:
            found.setdefault(figure.text, []).append(claim.id)
    return {text: tuple(ids) for text, ids in found.items()}


def _citing(ids: tuple[str, ...], shown: str) -> str:
    if not ids:
        return PAGE_FIX
    named = " or ".join(f'{{{{ claim("{claim_id}") }}}}' for claim_id in ids[:3])
    return f"cite {named}, which states {shown}; or mark a label: {MARK_LABEL}"


PAGE_FIX = f'cite the claim that holds it with {{{{ claim("some-id") }}}}, or mark a label: {MARK_LABEL}'
SITE_FIX = "word it without the figure: mkdocs.yml cannot cite a claim (a label like B=16 is fine)"


def unbound(
    found: list[TypedFigure],
    policy: Policy,
    place: str,
    fix: str = PAGE_FIX,
    holders: Mapping[str, tuple[str, ...]] | None = None,
) -> list[Finding]:
    """An unbound-number finding for each figure typed into a page (or a surface, or the site's
    configuration: `place`), the first MAX_PER_PAGE one by one and the rest in one; where a claim states
    the figure (holders: figure text -> claim ids), the fix names it."""
    shown = [
        Finding(
            typed.where,
            "",
            "unbound-number",
            f"{typed.shown!r} is typed into the {place}{f' (included at {typed.via})' if typed.via else ''}; "
            "the gate cannot keep it true",
            _citing(holders.get(typed.text, ()), typed.shown) if holders else fix,
            severity=policy.severity("unbound-number"),
        )
        for typed in found[:MAX_PER_PAGE]
    ]
    if len(found) > MAX_PER_PAGE:
        last = found[MAX_PER_PAGE]
        shown.append(
            Finding(
                last.where,
                "",
                "unbound-number",
                f"and {len(found) - MAX_PER_PAGE} more figures typed into {last.where.path}",
                "cite claims, or mark labels, as for the figures above",
                severity=policy.severity("unbound-number"),
            )
        )
    return shown


CAPTION_FIX = (
    "word the caption without it: a caption cannot cite a claim, so show the number in the figure (from a run "
    "or a claim) or cite its claim on the page"
)


def caption_findings(
    captions: Mapping[str, tuple[Source, str]], table: units.UnitTable = units.BUILT_IN
) -> list[Finding]:
    """A figure typed into a table's or a chart's caption (its function's docstring, shown under it as
    written): `figure-literal`, in verify-site's words. It is no page's source, so no `warn:` makes it a
    warning: verify-site refuses it in every mode."""
    findings = []
    for key, (where, text) in captions.items():
        kind, _, figure_id = key.partition(":")
        for figure in numbers.figures(text, table):
            at = Source(where.path, where.line + text.count("\n", 0, figure.start))
            findings.append(
                Finding(
                    at,
                    "",
                    "figure-literal",
                    f"{figure.seen or figure.text!r} in the caption of {kind} {figure_id!r} is a figure no claim "
                    "the ledger re-derived holds",
                    CAPTION_FIX,
                )
            )
    return findings


def claim_text_findings(claims: Iterable[Claim], table: units.UnitTable = units.BUILT_IN) -> list[Finding]:
    """A figure in a claim's statement or note restating a quantity of the claim's own kind (a throughput
    in a throughput's statement): a warning, as the gate keeps only the claim's value true. A figure of
    another kind is the condition it was measured under (a 1 MiB buffer); retired claims say what was
    believed, and are shown as retired."""
    findings = []
    for claim in claims:
        if claim.retired:
            continue
        own = None
        for field in ("statement", "note"):
            for figure in numbers.figures(getattr(claim, field), table):
                own = numbers.kind(claim.unit, table) if own is None else own
                if numbers.kind(figure.unit, table) != own:
                    continue
                findings.append(
                    Finding(
                        claim.at(field),
                        claim.id,
                        "unbound-number",
                        f"{figure.seen or figure.text!r} is typed into the {field}; the gate keeps only the claim's value true",
                        f"cite the number as a claim's value, or word the {field} without it",
                        severity="warn",
                    )
                )
    return findings


def page_figures(
    text: str,
    path: str,
    refs: list[PageRef],
    names: list[str],
    configs: dict,
    root: Path,
    table: units.UnitTable = units.BUILT_IN,
    left: float = 1e9,
) -> tuple[list[TypedFigure], Finding | None]:
    """Every figure a reader reads on one page, with where its number is typed; or the problem rendering it.
    left: what remains of the check's whole render budget (a page gets its own budget, or less)."""
    starts = references.line_starts(text)
    meta_end = meta_length(text)
    found = [
        TypedFigure(Source(path, *references.locate(starts, figure.start)), figure.text, figure.seen)
        for figure in numbers.figures(text[:meta_end], table)
    ]
    pieces, last = [], 0
    for ref in sorted(refs, key=lambda ref: ref.start):  # a malformed one is shown as written: read it
        if ref.kind != "malformed" and ref.start >= meta_end and ref.start >= last:
            pieces += [text[last : ref.start], PLACEHOLDER.ljust(ref.end - ref.start)[: ref.end - ref.start]]
            last = ref.end
    body = "".join([*pieces, text[last:]])
    own = RENDER_SECONDS + 2 * len(text) / 2**20
    budget = min(own, left)
    try:
        with rendered.deadline(budget):
            seen = rendered.visible(rendered.render(body[meta_end:], names, configs))
    except rendered.RenderTimeout:
        if budget < own:
            return found, _unrenderable(
                path,
                "was not read to its end: the check's render budget (max_render_seconds) ran out while it rendered",
                SPENT_FIX,
            )
        return found, _unrenderable(path, f"takes more than {budget:.0f} s to render with Python-Markdown")
    except RecursionError:
        return found, _unrenderable(path, "is nested too deeply for Python-Markdown to render")
    except MemoryError:
        return found, _unrenderable(path, "needs more memory than there is to render")
    except Exception as error:  # an extension's own bug on this text: say so, never a traceback
        return found, _unrenderable(path, f"cannot be rendered by Python-Markdown ({type(error).__name__}: {error})")
    figures = numbers.figures(seen, table)
    if figures:
        masked = re.sub(r"[^\n]", " ", body[:meta_end]) + body[meta_end:]
        found += _traced(figures, masked, path, root, table, _snippet_bases(configs))
    return found, None


SPENT_FIX = "raise max_render_seconds in mkdocs.yml, or find the page that renders slowly (the pages before it)"


def _unrenderable(path: str, why: str, fix: str = "") -> Finding:
    return Finding(
        Source(path, 0),
        "",
        "invalid",
        f"page {why}, so its text cannot be read for typed figures"
        + ("" if fix else " (the site build would stall on it too)"),
        fix or "simplify the page: look for long runs of brackets, deep nesting or a very long line",
    )


def meta_length(text: str) -> int:
    """How many leading characters MkDocs reads as the page's metadata (YAML front matter or
    MultiMarkdown-style `key: value` lines) rather than as Markdown."""
    if text.startswith("---"):
        first = text.find("\n")
        if first >= 0 and not text[3:first].strip(" \t"):
            at = first + 1
            while at < len(text):
                end = text.find("\n", at)
                line = text[at : end if end >= 0 else len(text)]
                if end >= 0 and line.rstrip(" \t") in ("---", "..."):
                    return end + 1
                if end < 0:
                    break
                at = end + 1
        return 0
    at = 0
    key = False
    while at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[at:end]
        if not line.strip() or not (_META.match(line) or (key and _META_MORE.match(line))):
            return at
        key = True
        at = end + 1
    return at


def _traced(
    figures: list[numbers.Figure],
    source: str,
    path: str,
    root: Path,
    table: units.UnitTable,
    bases: tuple[str, ...] = (".",),
) -> list[TypedFigure]:
    """Each figure read in the rendered text, at the line and column of its number in the page (or the
    included file, with the line of its include) it is typed in: the first figure of the same text in the
    source, read as prose (markup and code left out), after the one before it; failing that, the same
    letters and digits."""
    included = _snippets(source, root, bases)
    files = [(path, source)] + [(name, text) for name, text, _ in included]
    via = {name: f"{path}:{line}" for name, _, line in included}
    placed = [(name, _source_figures(text, table), references.line_starts(text)) for name, text in files]
    cursor = 0
    traced = []
    skeletons: dict = {}
    for figure in figures:
        wanted, _ = _skeleton(figure.text)
        where = None
        for index, (name, by_text, starts) in enumerate(placed):
            at = _first(by_text.get(wanted, []), cursor if index == 0 else 0)
            if at is not None:
                where = Source(name, *references.locate(starts, at))
                cursor = at + 1 if index == 0 else cursor
                break
        where = where or _by_letters(figure, files, skeletons)
        traced.append(TypedFigure(where, figure.text, figure.seen, via.get(where.path, "")))
    return traced


def _first(offsets: list[int], cursor: int) -> int | None:
    """The first offset at or after the cursor, else the first at all (a figure the renderer moved up)."""
    at = bisect.bisect_left(offsets, cursor)
    return offsets[at] if at < len(offsets) else (offsets[0] if offsets else None)


def _source_figures(text: str, table: units.UnitTable) -> dict[str, list[int]]:
    """The figures of a page's source read as prose (tags, entities and escapes decoded; code, comments
    and labels left out), by their letters and digits -> the offsets of their first character, in order."""
    decoded, origin = _decoded(references.mask_code(_mask_invisible(text)))
    found: dict[str, list[int]] = {}
    for figure in numbers.figures(decoded, table):
        found.setdefault(_skeleton(figure.text)[0], []).append(origin[figure.start])
    return found


_HIDDEN = (('<span class="ledger-label">', "</span>"), ("<code", "</code>"), ("<pre", "</pre>"))


def _mask_invisible(text: str) -> str:
    """The text with HTML comments (ended where a browser ends them: tokens.comment_end), labels and inline
    code and pre elements blanked (offsets and newlines kept); each kind is looked for from the end of the
    last, and an unclosed one ends its search (linear)."""
    spans = []
    at = text.find("<!--")
    while at >= 0:
        end = tokens.comment_end(text, at + 4)[1]
        if end < 0:
            break
        spans.append((at, end))
        at = text.find("<!--", end)
    for opener, closer in _HIDDEN:
        at = text.find(opener)
        while at >= 0:
            end = text.find(closer, at + len(opener))
            if end < 0:
                break
            spans.append((at, end + len(closer)))
            at = text.find(opener, end + len(closer))
    if not spans:
        return text
    out, last = [], 0
    for start, end in sorted(spans):
        start = max(start, last)  # a span inside one already blanked
        out += [text[last:start], re.sub(r"[^\n]", " ", text[start:end])]
        last = max(last, end)
    out.append(text[last:])
    return "".join(out)


def _decoded(text: str) -> tuple[str, list[int]]:
    """Text as a reader reads it (entities and escapes decoded, tags dropped), with the offset each
    character comes from."""
    decoded: list[str] = []
    origin: list[int] = []
    last = 0
    for match in _DECODE.finditer(text):
        decoded.append(text[last : match.start()])
        origin.extend(range(last, match.start()))
        token = match.group(0)
        value = token[1] if token.startswith("\\") else "" if token.startswith("<") else html.unescape(token)
        decoded.append(value)
        origin.extend([match.start()] * len(value))
        last = match.end()
    decoded.append(text[last:])
    origin.extend(range(last, len(text)))
    return "".join(decoded), origin


def _by_letters(figure: numbers.Figure, files: list[tuple[str, str]], skeletons: dict) -> Source:
    """Where a figure the source does not read as one is typed: its letters and digits found in a file
    (each file's letters made once, on the first figure that needs them)."""
    wanted, _ = _skeleton(figure.text)
    for name, text in files:
        if name not in skeletons:
            skeletons[name] = (*_skeleton(text), references.line_starts(text))
        skeleton, origin, starts = skeletons[name]
        at = skeleton.find(wanted) if wanted else -1
        if at >= 0:
            return Source(name, *references.locate(starts, origin[at]))
    return Source(files[0][0], 1)


def _snippet_bases(configs: dict) -> tuple[str, ...]:
    """Where pymdownx.snippets looks for an included file: its `base_path` (one path or a list; default the
    project's folder, where MkDocs runs)."""
    bases = (configs.get("pymdownx.snippets") or {}).get("base_path", ".")
    listed = [bases] if isinstance(bases, str) else bases if isinstance(bases, list) else ["."]
    return tuple(str(base) for base in listed if isinstance(base, str)) or (".",)


def _snippets(source: str, root: Path, bases: tuple[str, ...] = (".",)) -> list[tuple[str, str, int]]:
    """Files a page includes with pymdownx.snippets (`--8<-- "file"`), found in its base paths under the
    project only: (the file, its text, the line of the include)."""
    from ..inputs.load import MAX_PAGE_BYTES, Unreadable, read_capped

    found = []
    home = root.resolve()
    starts = references.line_starts(source)
    for match in _SNIPPET.finditer(source):
        for base in bases:
            target = (root / base / match.group(1)).resolve()
            if home not in target.parents or not target.is_file():
                continue
            try:
                text = read_capped(target, MAX_PAGE_BYTES).decode("utf-8", errors="replace")
            except Unreadable:
                continue
            line = references.locate(starts, match.start() + len(match.group(0)) - len(match.group(0).lstrip()))[0]
            found.append((target.relative_to(home).as_posix(), text, line))
            break
    return found[:20]


def _skeleton(text: str) -> tuple[str, list[int]]:
    """Letters, digits and unit signs of text as a reader reads them (entities and escapes decoded),
    with the offset in text each comes from: how a figure found in rendered text is found in its source."""
    decoded, origin = _decoded(text)
    seen, mapping = numbers.normalise(decoded)
    kept = [(char, origin[mapping[i]]) for i, char in enumerate(seen) if char.isalnum() or char in _KEPT]
    return "".join(char for char, _ in kept), [at for _, at in kept]
