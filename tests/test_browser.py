"""The built site in headless Chromium (Debian's), served from a local port with every other
request refused: charts draw, the console stays clean, every kind of generated page is reachable
from the navigation, and badge links lead to their claims."""

import os
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
    "claim/h200-wg-speedup-b16/",  # a claim page: its evidence row comes from a 40-column CSV
]
WIDER_THAN_ARTICLE = """() => {
  const article = document.querySelector('article').getBoundingClientRect();
  return [...document.querySelectorAll('article table')]
    .filter(t => t.getBoundingClientRect().right > article.right + 1)
    .map(t => t.querySelector('th') ? t.querySelector('th').innerText : '?');
}"""


def test_report_tables_fit_the_text_column_on_a_desktop_and_scroll_in_their_frame_on_a_phone(report_site, browser):
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
        desktop.goto(base + "claims/")
        heights = desktop.evaluate("[...document.querySelectorAll('.ledger-index tbody tr')].map(r => r.offsetHeight)")
        desktop.close()
        phone.close()
    assert too_wide == {}
    assert page_scrolls == {}
    assert sorted(heights)[len(heights) // 2] <= 72  # compact rows: two lines of statement at most


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
        page.goto(base + "claim/moe-speedup-b16/")
        page.wait_for_selector("figure.ledger-timeline.ledger-chart--live .ledger-chart-view svg", timeout=15000)
        figure = page.query_selector("figure.ledger-timeline")
        assert len(figure.query_selector_all(".mark-symbol.role-mark path")) == 12  # a point per run (not the legends)
        assert len(figure.query_selector_all(".mark-rule.role-mark line")) == 12 + 1  # the intervals, the step
        page.close()
    assert errors == [] and refused == []
