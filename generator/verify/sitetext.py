"""What a reader may see on a built site, from a fresh Report: the figures the ledger itself shows, the
labels authors typed, which pages are hand-written and which forbid leads. Pure but for reading docs/.

verify-site scans the rendered text of every page (sitepage.py) and fails on a figure that no element
it re-derived holds. What it re-derives: a claim link's value (the claim's), a chart's rows (its
runs'), a figure table's cells (claims, or cells of the run each row names). An author's label
(`<span class="ledger-label">`) holds only figures typed into a label on a hand-written page. On a
generated page (a claim's, a run's, the indexes, the gate's), whose every figure the ledger's
renderer formats from the Report, a figure in its content must be one the Report gives: a claim's
stated or computed value, interval, tolerance, statement, note or source, a run's recorded cell,
its stability's words and its machine record, a finding's words, a setting of the policy. Nothing else: not the chrome around any page (title,
navigation, footer), where no figure of the ledger's belongs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .. import machine
from ..inputs import load
from ..inputs.bounded import repository_texts
from ..inputs.config import shown_settings
from ..judging import leads
from ..lang.stability import Stability
from ..lang.values import allowed_text, format_value, level_text, parse_number, range_text
from ..points import Series
from ..prose import numbers
from ..records import ClaimVerdict, Report, Unit
from ..series.words import table_words
from ..text import summary
from ..trust.digest import code_versions
from ..trust.verdicts import sign_texts, stability_detail, stability_text
from ..wording import ONE_RUN, displayed, interval_text, prediction_text, shared_text, stated
from .framed import Kept

_LABEL = re.compile(
    r"""<span\b[^>]*\bclass\s*=\s*["'][^"']*\bledger-label\b[^"']*["'][^>]*>(.*?)</span>""", re.S | re.I
)
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True, slots=True)
class SiteContext:
    """What every page of one site is verified against."""

    report: Report
    handwritten: Mapping[str, str]  # site path of each hand-written page -> its Markdown (x/index.html -> docs/x.md)
    forbid_leads: frozenset[str]  # site paths of the pages whose front matter forbids leads
    labels: frozenset[str]  # figures typed inside labels on hand-written pages
    shown: Shown  # figures the ledger's own pages show, from the Report
    directory_urls: bool
    code: Mapping[str, str] = field(default_factory=dict)  # each code file a run hashes -> the repository's text
    code_pages: Mapping[str, str] = field(default_factory=dict)  # the page of a version of a code file -> the file
    kept: Kept = field(default_factory=Kept)  # what reading its pages keeps from page to page (framed.py)


def context(root: Path, report: Report, directory_urls: bool) -> SiteContext:
    policy = report.policy
    texts, _ = load.pages(root, policy.docs_dir)
    docs = policy.docs_dir.rstrip("/") + "/"
    dests = {path: dest_of(path.removeprefix(docs), directory_urls) for path in texts}
    forbidding = {dests[path] for path, text in texts.items() if leads.forbids_leads(text, path)[0]}
    labels = {figure.text for text in texts.values() for figure in _label_figures(text)}
    code = code_texts(root, report)
    pages = {dest_of(page + ".md", directory_urls): path for page, path, _ in code_versions(report.runs.values())}
    return SiteContext(
        report,
        {dest: path for path, dest in dests.items()},
        frozenset(forbidding),
        frozenset(labels),
        Shown(report),
        directory_urls,
        code,
        pages,
    )


def code_texts(root: Path, report: Report) -> dict[str, str]:
    """The repository's text of every code file a run's manifest hashes (the pages of the code's versions
    must show exactly these); a file outside the repository, under a link or unreadable is none."""
    wanted = {path for run in report.runs.values() for path in run.declared_code if path not in run.code_problems}
    return repository_texts(root, wanted)


def dest_of(src: str, directory_urls: bool) -> str:
    """Where MkDocs writes a docs page: index.md and README.md -> index.html, x.md -> x/index.html."""
    path = PurePosixPath(src)
    stem = path.with_suffix("")
    if stem.name in ("index", "README", "readme"):
        return (stem.parent / "index.html").as_posix().removeprefix("./")
    return (stem / "index.html").as_posix() if directory_urls else stem.with_suffix(".html").as_posix()


def _label_figures(text: str) -> Iterator[numbers.Figure]:
    for match in _LABEL.finditer(text):
        yield from numbers.figures(_TAG.sub(" ", match.group(1)))


def shown(report: Report) -> set[str]:
    """Every figure the ledger's renderer can put on a generated page, from the Report (normalised)."""
    counts = count_texts(len(report.claims))
    return figures_of(_texts(report)) | figures_of(counts) | figures_of(_series_of(report))


class Shown:
    """shown(report), found when asked: the counts of claims a caption may give (count_texts) only once
    a figure is neither among the rest nor such a count read alone, the claims' series and the runs' cells
    (_series_of) only once a figure is not among those either. Compared and hashed as itself."""

    def __init__(self, report: Report):
        self._report, self._found = report, figures_of(_texts(report))
        self._counts: set[str] | None = None
        self._series: set[str] | None = None

    def __contains__(self, text: object) -> bool:
        if text in self._found:
            return True
        if self._counts is None:
            if isinstance(text, str) and a_count(text, len(self._report.claims)):
                return True
            self._counts = figures_of(count_texts(len(self._report.claims)))
        if text in self._counts:
            return True
        if self._series is None:
            self._series = figures_of(_series_of(self._report))
        return text in self._series


_COUNT = re.compile(r"([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+) claims")


def a_count(text: str, claims: int) -> bool:
    """Whether the text is one of count_texts(claims) that numbers.py reads as one figure, itself (a figure
    figures_of(count_texts(claims)) holds, found without making the others)."""
    found = _COUNT.fullmatch(text)
    if found is None:
        return False
    n = int(found.group(1).replace(",", ""))
    return (
        0 < n < claims
        and text in (f"{n} claims", f"{n:,} claims")
        and text in {figure.text for figure in numbers.figures(text)}
    )


def count_texts(claims: int) -> Iterator[str]:
    """A figure's caption counts the claims it drew ("24 claims (24 measured)"); which claims a figure draws
    is decided at build, so any count up to the ledger's is the ledger's own words (drawing.py writes the
    count plain: "1000 claims"; a thousands comma reads the same)."""
    return (text for n in range(1, claims) for text in (f"{n} claims", f"{n:,} claims"))


def figures_of(texts: Iterable[str]) -> set[str]:
    distinct = set(texts)  # a series' points repeat values: each text is scanned once
    return {figure.text for text in distinct if text for figure in numbers.figures(text)}


def _series_of(report: Report) -> Iterator[str]:
    """The claims' series and the runs' cells with words: most of the texts of a ledger with long series
    and large runs."""
    for verdict in report.verdicts.values():
        if verdict.series is not None:
            yield from _series_texts(verdict.series, verdict.unit)
    yield from _cell_words(report.runs.values())


def _texts(report: Report) -> Iterable[str]:
    """What the ledger's pages can show, but for _series_of's."""
    for verdict in report.verdicts.values():
        yield from _verdict_texts(verdict)
    for finding in report.findings:
        yield finding.problem
        yield finding.fix
    yield from shown_settings(report.policy).values()
    yield f"{len(report.claims)} claims"  # the indexes count them (counts are figures)
    yield summary(report)  # the gate page's line, with its counts by kind ("1 claim (1 measured; …)")
    for run in report.runs.values():
        yield from _run_texts(run)
        yield from _stability_texts(run, report.run_state(run.path).stability)


def _verdict_texts(verdict: ClaimVerdict) -> Iterator[str]:
    """What the claim's page (and every table of claims) can show of one claim."""
    claim, unit = verdict.claim, verdict.unit
    yield from (claim.id, stated(verdict), displayed(verdict), claim.statement, claim.note, claim.asserts)
    if claim.source:
        yield from (claim.source.title, claim.source.quote, claim.source.locator)
    if claim.tolerance:
        yield claim.tolerance.text
    yield allowed_text(verdict.tolerance)
    yield from (spec.expects for spec in claim.checks)
    if verdict.value is not None:
        yield format_value(verdict.value, unit)
    if verdict.interval is not None:
        yield range_text(verdict.interval.low, verdict.interval.high, unit)
        yield level_text(verdict.interval.level)
        yield interval_text(verdict.interval, unit)  # with its basis: "(29 rounds)", "(between 3 replicate runs)"
    yield from (prediction_text(verdict), shared_text(verdict), ONE_RUN)
    for result in verdict.checks:
        yield from (result.relation, result.claimed, result.found, result.why)
    if verdict.asserted is not None:
        yield from vars_of(verdict.asserted)
    yield from (verdict.no_rounds, verdict.noise_unknown)


def _series_texts(line: Series, unit: Unit) -> Iterator[str]:
    """A claim's series as its page's history shows it: each point's value and interval, each step's levels."""
    for point in line.points:
        yield format_value(point.value, unit)
        if point.low is not None and point.high is not None:
            yield range_text(point.low, point.high, unit)
    for step in (*line.steps, *((line.moved,) if line.moved else ())):
        yield from (format_value(step.before, unit), format_value(step.after, unit))
    for boundary in line.boundaries:
        yield from boundary.changes
    yield from table_words(line, unit)


def vars_of(record: object) -> list[str]:
    """The string fields of a slotted or plain record (its words, whatever its fields are called)."""
    names = getattr(record, "__slots__", ()) or getattr(record, "__dict__", {})
    return [value for name in names if isinstance(value := getattr(record, name, None), str)]


def _run_texts(run) -> Iterator[str]:
    """A run's words as its page and the claim pages show them: its folder, manifest, columns (its text
    cells: _cell_words)."""
    yield run.path
    if run.started and run.finished:
        yield f"{(run.finished - run.started).total_seconds():,.0f} s"  # as runpage.py shows it
    yield from _flat(run.parameters)
    yield from _flat(run.environment)
    for table in run.tables.values():
        yield f"{len(table.rows):,} rows"  # as the measurements page lists each file
        yield from table.columns


def _stability_texts(run, found: Stability) -> Iterator[str]:
    """A run's stability as its page and the claim pages word it, and its machine record field by field."""
    yield from (stability_text(found), stability_detail(found), *sign_texts(found))
    if run.machine is not None:
        yield from (str(value) for value in run.machine.values() if value is not None)
        yield from (meaning for _, _, meaning in machine.FIELDS)


def _cell_words(runs: Iterable) -> Iterator[str]:
    """Every distinct cell of the runs' tables a figure could hide in (_words), each once."""
    cells: set[str] = set()
    for run in runs:
        for table in run.tables.values():
            cells.update(*table.rows)
    return (cell for cell in cells if _words(cell))


# A decimal with a point: a plain number (parse_number reads it), so no words; most cells of a run are one.
_DECIMAL = re.compile(r"-?[0-9]{1,40}\.[0-9]{1,40}")


def _words(cell: str) -> bool:
    """A cell a figure could hide in: digits beside other characters, and not a plain number."""
    if cell.isdigit() or _DECIMAL.fullmatch(cell) or not any(map(str.isdigit, cell)):
        return False
    return parse_number.__wrapped__(cell) is None  # uncached: a run's distinct cells would flush the gate's cache


def _flat(value: object, depth: int = 0) -> Iterator[str]:
    if depth > 16:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            yield str(key)
            yield from _flat(inner, depth + 1)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            yield from _flat(inner, depth + 1)
    elif value is not None:
        yield str(value)
