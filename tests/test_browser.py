"""The built site in headless Chromium (Debian's), served from a local port with every other
request refused: charts draw, the console stays clean, every kind of generated page is reachable
from the navigation, and badge links lead to their claims."""

import json
import os
import re
import shutil

import pytest
from helpers_site import serving

playwright = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs chromium (scripts/ensure-chromium)"),
]
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (Debian's), one per module: Playwright's sync API allows one at a time."""
    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def browser_page(built_site, browser):  # noqa: F811
    """A page in Chromium that may only talk to the local server; collects errors and refusals."""
    with serving(built_site) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.base, page.errors, page.refused = base, [], []
        page.on("console", lambda m: m.type == "error" and page.errors.append(f"{page.url}: {m.text}"))
        page.on("pageerror", lambda e: page.errors.append(f"{page.url}: {e}"))

        def route(request_route):
            if request_route.request.url.startswith(base):
                request_route.continue_()
            else:
                page.refused.append(request_route.request.url)
                request_route.abort()

        page.route("**/*", route)
        yield page
        page.close()


def test_every_chart_draws_offline_with_a_clean_console(browser_page):
    page = browser_page
    page.goto(page.base)
    page.wait_for_selector(
        "figure.ledger-chart.ledger-chart--live .ledger-chart-view svg .mark-line path", timeout=15000
    )
    for figure in page.query_selector_all("figure.ledger-chart"):
        assert figure.query_selector_all(".ledger-chart-view svg [class^='mark-'] path, .ledger-chart-view canvas"), (
            figure.get_attribute("data-chart")
        )
        assert not figure.query_selector(".ledger-chart-fallback").is_visible()
    page.click("label.md-header__button[for^='__palette']:visible")  # dark palette: redrawn, no errors
    page.wait_for_timeout(300)
    assert page.query_selector(".ledger-chart-view svg .mark-line path")
    assert page.errors == [] and page.refused == []


def test_badge_links_lead_to_their_claim_pages(browser_page):
    page = browser_page
    page.goto(page.base)
    claims = [a.get_attribute("data-claim") for a in page.query_selector_all("article a.ledger-claim[data-claim]")]
    assert len(claims) >= 5
    for claim_id in dict.fromkeys(claims):
        page.goto(page.base)
        with page.expect_navigation():
            page.click(f"article p a.ledger-claim[data-claim='{claim_id}']")
        assert page.url == f"{page.base}claim/{claim_id}/"
        assert page.inner_text("article h1").strip() == claim_id
    assert page.errors == [] and page.refused == []


def test_each_kind_of_generated_page_is_reachable_from_the_navigation(browser_page):
    page = browser_page
    reached = set()

    def follow(selector):
        with page.expect_navigation():
            page.click(selector)
        reached.add(page.inner_text("article h1").strip())

    page.goto(page.base)
    follow("nav.md-tabs a.md-tabs__link:has-text('Claims')")
    page.select_option("select[data-filter='status']", "refuted")  # the index filters...
    assert page.locator(".ledger-index tbody tr:visible").count() == 1
    page.select_option("select[data-filter='status']", "")
    page.click(".ledger-index th:has-text('value')")  # ...and sorts
    assert page.get_attribute(".ledger-index th:has-text('value')", "aria-sort") == "ascending"
    follow(".ledger-index a[href*='claim/moe-speedup-b16/']")
    follow("article a.ledger-run")
    assert page.locator("#probe-source").count() == 1
    follow("nav.md-tabs a.md-tabs__link:has-text('Claims')")
    follow("article a[href$='fell/']")
    follow("nav.md-tabs a.md-tabs__link:has-text('Measurements')")
    follow("article a.ledger-run")
    follow("nav.md-tabs a.md-tabs__link:has-text('Gate')")
    assert {"Claims", "moe-speedup-b16", "The claims that fell", "Measurements", "The gate"} <= reached
    assert sum(name.endswith("-linux-cpu") for name in reached) == 2  # both runs' pages
    assert page.errors == [] and page.refused == []


def test_report_fits_a_phone(browser_page):
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page.base)
    page.wait_for_selector(".ledger-chart--live svg")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1280, "height": 900})


REPORT_PAGES = [
    "",
    "report/batching/",
    "report/batch-of-one/",
    "report/testbeds/",
    "report/method/",
    "claims/",
    "claims/fell/",
    "measurements/",
    "gate/",
    "claim/h200-grid-b16-speedup/",  # a claim page: its evidence row comes from a 40-column CSV
]
# A table wider than the text column that does not scroll inside a frame of its own (Material's scroll
# wrapper, or the table itself with overflow: auto): its header's first cell.
WIDER_THAN_ARTICLE = """() => {
  const article = document.querySelector('article').getBoundingClientRect();
  const scrolls = e => e && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  return [...document.querySelectorAll('article table')]
    .filter(t => t.getBoundingClientRect().right > article.right + 1)
    .filter(t => !scrolls(t.closest('.md-typeset__scrollwrap')) && !scrolls(t))
    .map(t => t.querySelector('th') ? t.querySelector('th').innerText : '?');
}"""


def test_report_tables_frames_fit_the_text_column_and_the_page_never_scrolls_sideways_on_a_phone(report_site, browser):
    with serving(report_site) as base:
        desktop = browser.new_page(viewport={"width": 1280, "height": 900})
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        too_wide, page_scrolls = {}, {}
        for path in REPORT_PAGES:
            desktop.goto(base + path)
            wide = desktop.evaluate(WIDER_THAN_ARTICLE)
            if wide:
                too_wide[path] = wide
            phone.goto(base + path)
            if phone.evaluate("document.documentElement.scrollWidth") > 390:
                page_scrolls[path] = phone.evaluate("document.documentElement.scrollWidth")
        desktop.close()
        phone.close()
    assert too_wide == {}
    assert page_scrolls == {}


# A line break inside a text node: in an identifier or value (code, a key cell, a data table's cell) any
# break at all; in prose, one between two letters or digits (mid-word). Prose may break at its spaces.
MID_WORD = r"""() => {
  const IDENTIFIERS = "code:not(.ledger-prose), .ledger-key, figure.ledger-figure td:not(.ledger-text), .ledger-index td, "
    + ".ledger-series td:not(:last-child), a.ledger-run";
  const word = /[\p{L}\p{N}_]/u;
  const found = [];
  for (const cell of document.querySelectorAll("article td, article th")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const inside = node.parentElement.closest(IDENTIFIERS);
      const text = node.data;
      let last = null;
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect || rect.width === 0) continue;
        const before = text[i - 1] || " ";
        const broken = inside ? /\S/.test(before) && /\S/.test(text[i]) : word.test(before) && word.test(text[i]);
        if (last && rect.top >= last.bottom - 1 && broken) {
          found.push(text.slice(Math.max(0, i - 24), i) + "|" + text.slice(i, i + 12));
          break;
        }
        last = rect;
      }
    }
  }
  return found;
}"""
# The index rows whose statement takes more than one line or whose id is broken.
TALLER_ROWS = """() => [...document.querySelectorAll(".ledger-index tbody tr")].filter(row => {
  const clamp = row.querySelector(".ledger-clamp");
  const tall = clamp.clientHeight > 1.5 * parseFloat(getComputedStyle(clamp).lineHeight);
  return tall || [...row.querySelectorAll("code")].some(code => code.getClientRects().length > 1);
}).map(row => row.innerText.slice(0, 60))"""


def test_generated_tables_never_break_an_identifier_and_index_rows_are_one_line(report_site, browser):
    with serving(report_site) as base:
        broken = {}
        for width in (1280, 390):
            page = browser.new_page(viewport={"width": width, "height": 900})
            for path in [*REPORT_PAGES, "claim/cpu-read-ceiling/", "run/whole_graph/2026-12-01T01-17-45Z-nvidia-h200/"]:
                page.goto(base + path)
                found = page.evaluate(MID_WORD)
                if found:
                    broken[f"{width} {path}"] = found[:5]
            if width == 1280:
                page.goto(base + "claims/")
                rows = page.evaluate("document.querySelectorAll('.ledger-index tbody tr').length")
                taller = page.evaluate(TALLER_ROWS)
                heights = set(
                    page.evaluate("[...document.querySelectorAll('.ledger-index tbody tr')].map(r => r.offsetHeight)")
                )
            page.close()
    assert broken == {}
    assert rows > 500 and taller == [] and len(heights) == 1  # every row one line, all the same height


# A figure table's cell whose value and badge do not sit on one line (its id and its text).
TWO_LINE_CELLS = """() => [...document.querySelectorAll("article figure.ledger-figure td")]
  .filter(td => td.querySelector("a.ledger-claim .ledger-badge"))
  .filter(td => {
    const boxes = [...td.querySelectorAll(".ledger-value, .ledger-badge")].map(e => e.getBoundingClientRect());
    const tall = Math.max(...boxes.map(b => b.bottom)) - Math.min(...boxes.map(b => b.top));
    return tall > 1.5 * parseFloat(getComputedStyle(td).lineHeight);
  }).map(td => td.closest("figure").id + ": " + td.innerText)"""
# A sentence's punctuation that a line break left alone after a claim's badge.
LONE_MARKS = """() => [...document.querySelectorAll("article a.ledger-claim")].filter(a => {
    const next = a.nextSibling;
    if (!next || next.nodeType !== 3 || !/^[.,;:)]/.test(next.data)) return false;
    const range = document.createRange(); range.setStart(next, 0); range.setEnd(next, 1);
    const mark = range.getClientRects()[0], boxes = a.getClientRects(), last = boxes[boxes.length - 1];
    return mark && last && mark.top > last.top + last.height / 2;
  }).map(a => a.dataset.claim + " " + a.nextSibling.data.slice(0, 12))"""
# An identifier (code outside a block and outside a table's prose, a run's link) broken over two lines, or one
# whose text carries an invisible break point (a soft hyphen, a zero-width space): copied, it would differ.
BROKEN_IDS = """() => [...document.querySelectorAll("article code:not(.ledger-prose), article a.ledger-run")]
  .filter(e => !e.closest("pre"))
  .filter(e => e.getClientRects().length > 1 || /[\u00ad\u200b\u2060]/.test(e.textContent))
  .map(e => e.textContent)"""
REPORT_TEXT = ["", "report/batching/", "report/batch-of-one/", "report/testbeds/", "report/method/"]


def test_report_tables_keep_each_value_with_its_badge_and_identifiers_whole(report_site, browser):
    with serving(report_site) as base:
        found = {}
        for width in (1280, 1024, 390):
            page = browser.new_page(viewport={"width": width, "height": 900})
            for path in REPORT_TEXT:
                page.goto(base + path)
                checks = {"broken ids": BROKEN_IDS, "lone marks": LONE_MARKS}
                if width >= 1024:
                    checks["two-line cells"] = TWO_LINE_CELLS
                for name, script in checks.items():
                    if page.evaluate(script):
                        found[f"{width} {path or 'index'} {name}"] = page.evaluate(script)[:4]
            page.close()
    assert found == {}


# The lead chart's parts in its view: the box of the plotted marks, the legend and the view's own box.
CHART_PARTS = """() => {
  const figure = document.querySelector("figure.ledger-chart");
  const view = figure.querySelector(".ledger-chart-view");
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const lines = [...view.querySelectorAll(".mark-line.role-mark path")].map(box);
  const labels = [...view.querySelectorAll(".mark-text.role-mark text")].filter(e => e.textContent.startsWith("B="));
  return {view: box(view), scrolls: view.scrollWidth > view.clientWidth, lines, labels: labels.map(box),
          legend: [...view.querySelectorAll(".role-legend")].map(box), chart: box(view.querySelector("svg"))};
}"""


def test_the_lead_charts_curves_and_legend_are_on_a_phones_screen_and_its_labels_apart(report_site, browser):
    with serving(report_site) as base:
        seen = {}
        for width, height in ((390, 844), (1280, 900)):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(base)
            page.wait_for_selector("figure.ledger-chart.ledger-chart--live svg .mark-line path", timeout=15000)
            page.evaluate("document.querySelector('figure.ledger-chart').scrollIntoView()")
            seen[width] = page.evaluate(CHART_PARTS)
            page.close()
    phone = seen[390]
    assert not phone["scrolls"] and len(phone["lines"]) >= 4 and phone["legend"]
    inside = [part for part in [*phone["lines"], *phone["legend"]] if part[0] < 0 or part[2] > 390]
    assert inside == []  # every curve and the legend within the screen's width: nothing scrolls sideways
    assert phone["chart"][3] - phone["chart"][1] < 844 - 100  # and the whole chart on one screen below the header
    for width, parts in seen.items():
        labels = parts["labels"]
        overlaps = [
            (a, b)
            for i, a in enumerate(labels)
            for b in labels[i + 1 :]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
        ]
        assert len(labels) >= 14 and overlaps == [], width


def test_a_timeline_draws_offline_on_a_claim_page(series_site, browser):
    site, _ = series_site
    with serving(site) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors, refused = [], []
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route(
            "**/*",
            lambda r: r.continue_() if r.request.url.startswith(base) else (refused.append(r.request.url), r.abort()),
        )
        loaded = []  # the series' data asset, fetched by the chart (the page holds no copy of its points)
        page.on("response", lambda r: "/assets/ledger/series/" in r.url and loaded.append((r.url, r.status)))
        page.goto(base + "claim/moe-speedup-b16/")
        page.wait_for_selector("figure.ledger-timeline.ledger-chart--live .ledger-chart-view svg", timeout=15000)
        figure = page.query_selector("figure.ledger-timeline")
        assert len(figure.query_selector_all(".mark-symbol.role-mark path")) == 12  # a point per run (not the legends)
        assert len(figure.query_selector_all(".mark-rule.role-mark line")) == 12 + 1  # the intervals, the step
        labels = [t.text_content() for t in figure.query_selector_all(".role-axis-label text")]
        times = [label for label in labels if re.fullmatch(r"2026-\d\d-\d\d \d\d:\d\d", label)]
        assert times and all(0 <= int(t[11:13]) < 24 for t in times), labels  # 24-hour UTC, as the runs name it
        spec = json.loads(figure.query_selector("script.ledger-chart-spec").text_content())
        urls = {layer["data"]["url"] for layer in spec["layer"] if "url" in layer.get("data", {})}
        assert len(urls) == 1 and "points" not in spec.get("datasets", {})
        assert [(url.split("/assets/", 1)[1], status) for url, status in loaded] == [
            ("ledger/series/" + next(iter(urls)).rsplit("/", 1)[1], 200)
        ]
        page.close()
    assert errors == [] and refused == []
