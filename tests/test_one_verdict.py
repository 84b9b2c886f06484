"""One verdict, whoever reads: generated ledgers in a `ledger init` project, held to one verdict by `ledger
check`, `ledger pages`, `mkdocs build --strict` and `ledger verify-site`, never a traceback.

Hypothesis generates each ledger: runs of a generated probe (replicate sets among them, noisy or quiet,
sometimes a tampered file), claims of every kind and status citing them (stated values that agree or
drift, tolerances, `asserts:`, replicates, units that convert), borrowed claims with checks of every
strength (plain, `within Nx`, above, below, bounds and ranges, across testbeds) and bounds or ranges of
their own, a page citing them with tables and a chart, and README markers (surfaces). Each is written
into one `ledger init` project, reused (the previous example's files taken out first), and read by the
four, in this process: where `ledger check` passes, `ledger pages`, the strict build and verify-site
pass; where it fails, `ledger pages` and the build fail with the same summary (the same rules, counted
alike); `ledger show` answers for every claim. A failure prints the ledger's files (the example's repr).

`make test` runs it with a fixed seed and EXAMPLES examples. More when asked:

    LEDGER_ONE_VERDICT_EXAMPLES=500 .venv/bin/python -m pytest -q tests/test_one_verdict.py
    LEDGER_ONE_VERDICT_SEED=7 ...   # another fixed seed (default 44)

What the gate cannot see is left out on purpose: figure code runs only in the build (a figure that
raises fails the build where the gate passed: tests/test_fresh_project.py holds that it loses nothing).
"""

from __future__ import annotations

import io
import json
import logging
import math
import os
import random
import re
import shutil
import statistics
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from helpers import init_project, write_tree
from helpers_rounds import rounds_run
from hypothesis import HealthCheck, Phase, event, given, note, seed, settings
from hypothesis import strategies as st

from generator import cli
from generator.lang import stats, units

pytestmark = pytest.mark.site

EXAMPLES = int(os.environ.get("LEDGER_ONE_VERDICT_EXAMPLES", "60"))
SEED = int(os.environ.get("LEDGER_ONE_VERDICT_SEED", "44"))

PROBE = "gen"
BATCHES = (1, 2, 4)
TESTBEDS = ("linux-cpu", "mac-m1")
NOW = datetime.now(timezone.utc).replace(microsecond=0)
PRISTINE: dict[Path, dict[str, bytes]] = {}  # each project's files as init wrote them, that an example rewrites
GENERATED = ("claims/gen.yaml", "docs/gen.md", f"measurements/{PROBE}", "site", "out")  # taken out between examples

FIGURES = '''"""Figures of the generated ledgers (tests/test_one_verdict.py)."""

import altair as alt

from generator.site.figure_api import chart, table


@table("gen-rates")
def gen_rates(data):
    """Rates by batch
    Every run of the generated probe."""
    frame = data.frame("gen", latest=False)[["run", "testbed", "batch", "rate", "rounds"]]
    frame.attrs["units"] = {"rate": "GB/s"}
    return frame


@table("gen-claims")
def gen_claims(data):
    """Every claim
    Each with its badges."""
    return data.claims()[["id", "kind", "status", "claim"]]


@chart("gen-chart")
def gen_chart(data):
    """Rate against batch
    The newest run per testbed."""
    frame = data.frame("gen")
    return alt.Chart(frame).mark_line(point=True).encode(x="batch:Q", y="rate:Q", color="testbed:N")
'''


# -- the ledgers ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSpec:
    testbed: str
    rounds: dict[int, tuple[float, ...]]  # batch -> its rounds (GB/s)
    tampered: bool = False

    def median(self, batch: int) -> float:
        return statistics.median(self.rounds[batch])


@dataclass
class Ledger:
    """One generated ledger: its runs, and the text of each file it writes besides them."""

    runs: list[RunSpec]
    files: dict[str, str] = field(default_factory=dict)
    faulty: bool = False  # drawn with faults (Choices)

    def __repr__(self) -> str:
        runs = "\n".join(
            f"run {i}: {run.testbed}{' (tampered)' if run.tampered else ''}: "
            + ", ".join(f"batch {b}: {[round(x, 4) for x in xs]}" for b, xs in run.rounds.items())
            for i, run in enumerate(self.runs)
        )
        texts = "\n".join(f"--- {path}\n{text}" for path, text in self.files.items())
        return f"\n{'faulty' if self.faulty else 'clean'}\n{runs}\n{texts}"


def significant(value: float, digits: int) -> Written:
    """value with about `digits` significant digits, never rounded past its units (3991, not 4e+03)."""
    places = max(0, digits - 1 - math.floor(math.log10(abs(value)))) if value else digits
    return Written(f"{value:.{places}f}")


class Written(str):
    """A number as the claim file writes it (its digits are its precision): YAML's plain scalar, unquoted."""


class Dumper(yaml.SafeDumper):
    pass


Dumper.add_representer(
    Written,
    lambda dumper, text: dumper.represent_scalar(f"tag:yaml.org,2002:{'float' if '.' in text else 'int'}", text),
)


def mostly(usual, *others):
    """usual, four times in five (the rest spread over the others)."""
    return st.sampled_from((usual,) * (4 * len(others) or 1) + others)


def rarely():
    """True one time in ten."""
    return st.sampled_from((False,) * 9 + (True,))


class Choices:
    """What a ledger is drawn with: variety always (kinds, statuses, units, forms, strengths); faults (drifted
    values, a tampered run, contradicting checks, typed figures, unknown references, a glued marker) only in
    a faulty ledger, so about half the ledgers pass the gate and half fail it."""

    def __init__(self, draw, faulty: bool) -> None:
        self.draw, self.faulty = draw, faulty

    def vary(self, usual, *others):
        return self.draw(mostly(usual, *others))

    def fault(self, usual, *faults):
        return self.draw(mostly(usual, *faults)) if self.faulty else usual

    def rarely(self) -> bool:
        return self.faulty and self.draw(rarely())


@st.composite
def run_specs(draw, faulty: bool, testbed: str | None = None) -> RunSpec:
    noise = (0.002, 0.03, 0.03, 0.2, 0.6) if faulty else (0.002, 0.01, 0.03)  # noisy rounds: inconclusive checks
    cv = draw(st.sampled_from(noise))
    n = draw(st.sampled_from((3, 5, 9, 15) if faulty else (9, 15)))
    rng = random.Random(draw(st.integers(0, 10_000)))
    level = draw(st.sampled_from((0.05, 1.0, 1.7, 40.0)))
    rounds = {b: tuple(stats.lognormal_rounds(rng, n, cv, scale=level * b)) for b in BATCHES}
    return RunSpec(testbed or draw(st.sampled_from(TESTBEDS)), rounds, faulty and draw(rarely()))


# Text a claim carries into every page that shows it: markup, braces, entities and look-alike figures are data.
STATEMENTS = (
    "the generated rate",
    "rate <b>in bold</b> & <i>friends</i>",
    'a {{ claim("gen-rate-0") }} written inside',
    "quotes «» and \u201ctypographic\u201d ones, a tab\tand &amp; an entity",
    "B=16, 4-bit, 8192×2048: labels, not figures",
    "\u202eright to left\u202c and back",
)
PROSE = (  # lines a page may hold besides its references
    "Plain words, no figure.",
    'A label: <span class="ledger-label">8 GB</span> of memory.',
    "Code is not read: `about 5 GB/s`.",
    "- a list item\n- another, at B=16",
    '!!! note "A note"\n    Inside an admonition.',
    "| a | b |\n| --- | --- |\n| x | y |",
)
FAULTY_RELATIONS = ("within 1.1x", "within 1.0001x", "above", "below", ">= 1 GB/s", "< 0.1", "between 0 and 1000",
                    "between 0.9 and 1.1")  # fmt: skip
STATUSES = ("lead", "refuted", "superseded", "retracted")
FORMULAS = {  # formula -> (its unit, its value from a's and b's in GB/s)
    "a * 2": ("GB/s", lambda a, b: a * 2),
    "a / b": ("×", lambda a, b: a / b),
    "a + b": ("GB/s", lambda a, b: a + b),
    "min(a, b)": ("GB/s", lambda a, b: min(a, b)),
    "a * 0 + 1": ("GB/s", lambda a, b: 1.0),  # a dimension error, and an input that does not move it
}


def pooled(runs: list[RunSpec], index: int, batch: int) -> float:
    """The value of `replicates: all`: the geometric mean of the medians of the cited run's replicates up to it."""
    same = [run.median(batch) for run in runs[: index + 1] if run.testbed == runs[index].testbed]
    return math.exp(statistics.fmean(math.log(value) for value in same))


@st.composite
def ledgers(draw) -> Ledger:
    faulty = draw(st.booleans())
    pick = Choices(draw, faulty)
    first = draw(run_specs(faulty))
    runs = [first] + draw(st.lists(st.one_of(run_specs(faulty, first.testbed), run_specs(faulty)), max_size=2))
    claims: list[dict] = []
    values: dict[str, tuple[float, str]] = {}  # claim id -> (its value as computed here, in GB/s or ×; unit)
    testbeds: dict[str, str] = {}

    for i in range(draw(st.integers(0 if len(runs) == 1 else 1, 4))):
        index = draw(st.integers(0, len(runs) - 1))
        run, batch = runs[index], draw(st.sampled_from(BATCHES))
        claim_id = f"gen-rate-{i}"
        replicated = pick.vary(False, True)
        value = pooled(runs, index, batch) if replicated else run.median(batch)
        unit = pick.vary("GB/s", "MB/s")
        shown = value * (1000 if unit == "MB/s" else 1) * pick.fault(1, 1.3, 0.97)
        claim = {
            "id": claim_id,
            "statement": f"{pick.vary(*STATEMENTS)} at batch {batch}",
            "value": significant(shown, draw(st.integers(2, 4))),
            "unit": unit,
            "kind": "measured",
            "testbed": run.testbed,
            "evidence": {
                "run": f"@run{index}",
                "file": "results.csv",
                "where": {"batch": batch},
                "column": "rate",
            },
        }
        if replicated:
            claim["evidence"]["replicates"] = "all"
        tolerance = pick.vary(None, "5%", "20%", "precision")
        if tolerance:
            claim["tolerance"] = tolerance
        asserts = pick.fault(pick.vary(None, "> 0"), "> 1000 GB/s", "between 0.5 and 2 GB/s")
        if asserts:
            claim["asserts"] = asserts
        claims.append(claim)
        values[claim_id], testbeds[claim_id] = (value, "GB/s"), run.testbed
    measured = list(values)

    for i in range(draw(st.integers(0, 2)) if measured else 0):
        a, b = draw(st.sampled_from(measured)), draw(st.sampled_from(measured))
        if testbeds[a] != testbeds[b] and not faulty:
            b = a  # a formula over two testbeds must say so
        formula = pick.fault(pick.vary("a * 2", "a / b", "a + b", "min(a, b)"), "a * 0 + 1")
        unit, compute = FORMULAS[formula]
        value = compute(values[a][0], values[b][0])
        if formula == "a / b" and a == b:
            formula, unit, compute = "a * 2", *FORMULAS["a * 2"]  # a / a does not move: unused-input
            value = compute(values[a][0], values[b][0])
        claim_id = f"gen-derived-{i}"
        derived = {
            "id": claim_id,
            "statement": f"{formula}, derived",
            "kind": "extrapolated",
            "formula": formula,
            "inputs": {"a": a, "b": b} if "b" in formula else {"a": a},
            "value": significant(value * pick.fault(1, 1.2), 3),
            "unit": unit,
        }
        holding = ("> 0", "below") if formula == "a * 2" else ("> 0",)  # a < 2a: a bounds it from below
        expects = pick.vary(None, *holding, *(FAULTY_RELATIONS if faulty else ()))
        if expects is not None and unit == "GB/s":  # a check in the claim's dimension
            derived["checked_by"] = [{"claim": a, "expects": expects}]
        claims.append(derived)
        values[claim_id], testbeds[claim_id] = (value, unit), testbeds[a]
    checkable = [*values, "sha256-1mib-throughput"]

    for i in range(draw(st.integers(0, 4))):
        target = draw(st.sampled_from(checkable))
        value, unit = values.get(target, (None, "GB/s"))
        claim_id = f"gen-borrowed-{i}"
        claim: dict = {
            "id": claim_id,
            "statement": f"{pick.vary(*STATEMENTS)}, about {target}",
            "kind": "borrowed",
            "unit": unit,
            "source": {"title": "a log line", "quote": "as quoted"},
        }
        if target in testbeds and pick.vary(True, False):
            claim["testbed"] = testbeds[target]
        base = value if value is not None else 1.0
        form = pick.vary("value", "states", "range", "both") if value is not None else "value"
        factor = pick.fault(pick.vary(1, 1.05), 1.5, 3, 0.3)
        if form in ("value", "both"):
            claim["value"] = significant(base * factor, 3) if value is not None else Written("1.0")
            tolerance = pick.fault(pick.vary("10%", None, "50%"), "0.01%")
            if tolerance:
                claim["tolerance"] = tolerance
        if form in ("states", "both"):
            bound = pick.fault(
                pick.vary(f">= {significant(base * 0.6, 2)}", f"< {significant(base * 2, 2)}"),
                f"> {significant(base * 3, 2)}",
            )
            claim["states"] = bound
        if form == "range":
            claim["range"] = [significant(base * 0.5, 2), significant(base * 2, 2)]
        checks: list = [target] if value is not None and pick.fault(True, False) else []
        extras = ("> 0",)  # relations that hold here
        if "value" in claim:
            extras += ("within 3x", *(("below",) if factor == 1.05 else ()))
        for _ in range(draw(st.integers(0, 1)) if checks or faulty else 0):
            expects = pick.fault(pick.vary(*extras), *FAULTY_RELATIONS)
            checker = pick.fault(target, draw(st.sampled_from(checkable)))
            checks.append({"claim": checker, "expects": expects})
        if checks:
            claim["checked_by"] = checks
        status = pick.vary("asserted", *STATUSES) if checks or faulty else pick.vary(*STATUSES)  # else: only borrowed
        if status != "asserted":
            claim["status"] = status
        retirer = pick.fault(target if value is not None else draw(st.sampled_from(measured or checkable)), claim_id)
        if status in ("refuted", "retracted"):
            claim["refuted_by"] = retirer
        elif status == "superseded":
            claim["superseded_by"] = retirer
        claims.append(claim)

    ids = [claim["id"] for claim in claims]
    files = {"claims/gen.yaml": yaml.dump({"claims": claims}, Dumper=Dumper, sort_keys=False, allow_unicode=True)}
    lines = ["# Generated", ""]
    if pick.rarely():
        lines = ["---", "ledger: {leads: forbid}", "---", *lines]
    for claim_id in draw(st.lists(st.sampled_from(ids), max_size=4)) if ids else []:
        where = pick.vary("The figure {} is cited here.", "## A heading with {}", "- in a list: {}", "| {} | cell |")
        if where.startswith("|"):
            lines += ["| claim | note |", "| --- | --- |"]
        lines += [where.format(f'{{{{ claim("{claim_id}") }}}}'), ""]
    lines += [line for line in draw(st.lists(st.sampled_from(PROSE), max_size=3)) for line in (line, "")]
    if pick.rarely():
        lines += ['A reference to {{ claim("gen-nowhere") }} that names nothing.', ""]
    if pick.rarely():
        lines += ["A figure typed into prose: about 5 GB/s.", ""]
    forbids = lines[0] == "---"
    figures = ["gen-rates", "gen-chart"] + ([] if forbids else ["gen-claims"])  # leads in a table: the build's
    for figure in draw(st.lists(st.sampled_from(figures), max_size=2, unique=True)):
        lines += [f'{{{{ {"chart" if figure == "gen-chart" else "table"}("{figure}") }}}}', ""]
    files["docs/gen.md"] = "\n".join(lines)
    readme = []
    asserted = [claim["id"] for claim in claims if "status" not in claim and "value" in claim]
    for claim_id in draw(st.lists(st.sampled_from(asserted), max_size=2, unique=True)) if asserted else []:
        claim = next(c for c in claims if c["id"] == claim_id)
        stated = f"{claim['value']}{units.gap(claim['unit'])}{claim['unit']}"
        text = pick.fault(stated, "?", f"1{stated}")
        before = pick.fault(pick.vary("", "("), "2")
        readme.append(f"Generated: {before}<!-- ledger: {claim_id} -->{text}<!-- /ledger --> here.")
    if readme:
        files["README.md"] = "\n\n".join(readme) + "\n"
    return Ledger(runs, files, faulty)


# -- one project, and the four readers in this process ---------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = init_project(tmp_path_factory)
    write_tree(root, {"figures/gen.py": FIGURES})
    PRISTINE[root] = {"README.md": (root / "README.md").read_bytes()}  # as init wrote it
    return root


def taken_out(root: Path, pristine: dict[str, bytes]) -> None:
    """The project as init made it: the last example's files taken out, the files it rewrote put back."""
    for path in GENERATED:
        if (root / path).is_dir():
            shutil.rmtree(root / path)
        (root / path).unlink(missing_ok=True)
    for path, content in pristine.items():
        (root / path).write_bytes(content)


def written(root: Path, ledger: Ledger, pristine: dict[str, bytes]) -> None:
    """The example's files in the project, the previous example's taken out first."""
    taken_out(root, pristine)
    paths = []
    for i, run in enumerate(ledger.runs):
        when = NOW - timedelta(hours=10 - i)
        path = rounds_run(
            root, dict(run.rounds), column="rate", probe=PROBE, testbed=run.testbed, when=when, unit="GB/s"
        )
        if run.tampered:
            results = root / path / "results.csv"
            results.write_text(results.read_text().replace(",", ", ", 1))
        paths.append(path)
    for relative, text in ledger.files.items():
        for i, path in enumerate(paths):
            text = text.replace(f"@run{i}", path)
        if relative == "README.md":
            text = pristine["README.md"].decode() + "\n" + text
        write_tree(root, {relative: text})


def ledger_verb(root: Path, *args: str) -> tuple[int, str, str]:
    """The `ledger` command in this process: its status, stdout and stderr (LEDGER_DEBUG: a bug raises)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = cli.main(["--root", str(root), *args])
    return status, out.getvalue(), err.getvalue()


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def mkdocs_build(root: Path) -> tuple[bool, str]:
    """`mkdocs build --strict` in this process: whether it passed, and what it logged (a bug raises)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    lines = Lines()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(lines)
    try:
        build(load_config(str(root / "mkdocs.yml"), strict=True))
        return True, "\n".join(lines.lines)
    except Abort as stopped:
        return False, "\n".join([*lines.lines, str(stopped)])
    finally:
        logger.removeHandler(lines)


SUMMARY = re.compile(r"\((\d+ claims? .*)\)$", re.M)


@given(ledger=ledgers())
@seed(SEED)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    phases=(Phase.explicit, Phase.generate),  # no shrinking: an example takes seconds, and prints whole
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
def test_check_pages_the_strict_build_and_verify_site_reach_one_verdict(project, ledger, monkeypatch):
    monkeypatch.setenv("LEDGER_NO_CACHE", "1")
    monkeypatch.setenv("LEDGER_DEBUG", "1")
    written(project, ledger, PRISTINE[project])

    status, out, err = ledger_verb(project, "check", "--format", "json")
    assert status in (0, 1), err
    checked = json.loads(out)
    summary = checked["summary"]
    note(f"ledger check: {summary}")
    mode = "faulty" if ledger.faulty else "clean"
    event(f"{mode}: the gate {'passes' if checked['ok'] else 'fails'}")  # --hypothesis-show-statistics
    for rule in sorted({f["rule"] for f in checked["findings"]}):
        event(f"finding: {rule}")
    for verdict in checked["verdicts"].values():
        event(f"strength: {verdict['strength'] or 'none'}")
    for claim_id in checked["verdicts"]:
        shown, _, trouble = ledger_verb(project, "show", claim_id)
        assert shown == 0, trouble

    status_pages, out_pages, err_pages = ledger_verb(project, "pages", str(project / "out"))
    note(f"ledger pages: {status_pages}\n{out_pages}{err_pages}")
    built, log = mkdocs_build(project)
    note(f"mkdocs build --strict: {built}\n{log}")
    found = SUMMARY.search(out_pages.splitlines()[0]) if out_pages else None
    assert found is not None, out_pages + err_pages
    assert found.group(1) == summary
    if checked["ok"]:
        assert status_pages == 0
        assert built, log
        status_verify, out_verify, err_verify = ledger_verb(project, "verify-site", str(project / "site"))
        assert status_verify == 0, out_verify + err_verify
    else:
        assert status_pages == 1
        assert not built
        assert f"ledger gate failed: {summary}" in log


# -- what the test found, each a test of its own -----------------------------------------------------


def copied(project: Path, tmp_path: Path) -> Path:
    root = tmp_path / "p"
    shutil.copytree(project, root)
    taken_out(root, PRISTINE[project])
    return root


UNNAMED = '''
from generator.site.figure_api import table


@table("gen-unnamed")
def gen_unnamed(data):
    """Rates of every run, the rows' runs left out"""
    frame = data.frame("gen", latest=False)[KEPT]
    frame.attrs["units"] = {"rate": "GB/s"}
    return frame
'''


@pytest.mark.parametrize(
    ("kept", "passes"), [(["batch", "rate"], False), (["run", "testbed", "batch", "rate"], True)]
)  # fmt: skip
def test_a_table_of_several_runs_that_keeps_no_run_column_fails_the_build_as_verify_site_would(
    project, tmp_path, monkeypatch, kept, passes
):
    """Found here: the gate and the build passed, verify-site refused every number of such a table (its rows
    name no run). The build and `ledger pages` now refuse it, at the figure's line."""
    monkeypatch.setenv("LEDGER_DEBUG", "1")
    root = copied(project, tmp_path)
    for hours in (3, 2):  # two runs of one probe, each its own (a copy is no replicate)
        rounds_run(root, {1: [1.0, 1.01, 0.99 + hours / 1000], 2: [2.0, 2.02, 1.98]}, column="rate", probe=PROBE,
                   unit="GB/s", when=NOW - timedelta(hours=hours))  # fmt: skip
    write_tree(
        root, {"figures/unnamed.py": UNNAMED.replace("KEPT", repr(kept)), "docs/gen.md": '{{ table("gen-unnamed") }}\n'}
    )
    checked = ledger_verb(root, "check")
    assert checked[0] == 0, checked[1]
    built, log = mkdocs_build(root)
    status, out, err = ledger_verb(root, "pages", str(root / "out"))
    if passes:
        assert built, log
        assert status == 0, out + err
        assert ledger_verb(root, "verify-site", str(root / "site"))[0] == 0
        return
    problem = (
        "figures/unnamed.py:4: table 'gen-unnamed': reads 2 runs but keeps no `run` and `testbed` columns: no row "
        "says which run it comes from, so verify-site would refuse its numbers with a unit (rate) as literals"
    )
    assert not built and problem in log
    assert status == 1 and problem in err


@pytest.mark.parametrize("heading", ["## SHA-256 at {}", "# At {}", "SHA-256 at {}\n---"])
def test_a_claim_cited_in_a_heading_fails_the_gate_the_build_and_ledger_pages_alike(project, tmp_path, heading):
    """Found here: the gate passed a claim cited in a heading, the build refused the value the table of contents
    repeats from it (a figure the gate did not see), and verify-site refuses every figure in the navigation."""
    root = copied(project, tmp_path)
    write_tree(root, {"docs/gen.md": heading.format('{{ claim("sha256-1mib-throughput") }}') + "\n\nText.\n"})
    status, out, _ = ledger_verb(root, "check")
    assert status == 1
    column = heading.index("{") + 1
    assert out.startswith(
        f'docs/gen.md:1:{column}: unbound-number: {{{{ claim("sha256-1mib-throughput") }}}} in a heading: the table '
        "of contents and the navigation repeat a heading as plain text, where its value would stand without the "
        "claim's badge and link\n  fix: cite the claim in the text under the heading\n"
    )
    built, log = mkdocs_build(root)
    assert not built and "1 failure: 1 unbound-number" in log
    assert ledger_verb(root, "pages", str(root / "out"))[0] == 1
