"""Code the build runs cannot change what a reader sees (issue 29, class 6). A figure module or an MkDocs
hook runs inside the build with all its powers, so it can switch off any check made there; verify-site,
in its own process, scans the rendered text of every page and refuses any figure that no claim element
it re-derived holds, naming the page, the text and the element; a figure table's numbers come from
claims or run cells, never from a literal. Each attack is a real project built with `mkdocs build
--strict` (the build passes: the attack switched its checks off, the read-back or the figure-literal rule the
build shares with verify-site) and checked with the real CLI."""

import pytest
from helpers import run_ledger, run_mkdocs, write_tree
from helpers_site import MKDOCS, a_ledger

pytestmark = pytest.mark.site

# A hook that switches off the build's own read-back of the pages (as any hook or figure module can).
SILENCE = """
from generator.site import plugin

plugin.LedgerPlugin._readback = lambda self: None
"""


# A figure module that switches off the build's own figure-literal rule (issue 45 made the build refuse a
# literal as verify-site does); verify-site, in its own process, still reads every cell.
SILENCE_FIGURES = """from generator.prose import literals as _literals

_literals.table_problems = lambda *args, **kwargs: []
_literals.chart_problems = lambda *args, **kwargs: []
"""
# ... and the gate's caption rule, which `ledger check` applies before any build (the build runs the gate
# before it imports a figure module: a hook, loaded with the configuration, can switch it off)
SILENCE_CAPTIONS = """from generator.prose import scan as _scan

_scan.caption_findings = lambda *args, **kwargs: []
"""


def built(tmp_path, hook: str = "", figures: str = "", page: str = "") -> tuple:
    a_ledger(tmp_path)
    files = {}
    if hook:
        files["hooks.py"] = SILENCE + hook
        files["mkdocs.yml"] = MKDOCS + "hooks: [hooks.py]\n"
    if figures:
        files["figures/attack.py"] = (
            "import pandas as pd\nfrom generator.site.figure_api import table\n" + SILENCE_FIGURES + figures
        )
    if page:
        files["docs/attack.md"] = page
        files["mkdocs.yml"] = files.get("mkdocs.yml", MKDOCS).replace(
            "  - Report: [index.md]", "  - Report: [index.md, attack.md]"
        )
    write_tree(tmp_path, files)
    build = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert build.exit_code == 0, build.errors  # the build's own checks were bypassed
    return tmp_path / "site", run_ledger("verify-site", "site", cwd=tmp_path)


def refused(result, *words):
    assert result.exit_code == 1, result.output + result.errors
    assert "Traceback" not in result.errors
    for word in words:
        assert word in result.output, result.output


def test_a_figure_a_hook_types_into_a_page_is_refused_with_the_page_the_text_and_the_element(tmp_path):
    hook = """
def on_page_content(html, page, **kwargs):
    if page.file.src_uri == "index.md":
        return html + "<p>Batching makes it <em>9.9×</em> faster.</p>"
    return html
"""
    _, result = built(tmp_path, hook=hook)
    refused(result, "index.html:", "'9.9×'", "<em>")


def test_a_figure_a_hook_puts_around_the_page_is_refused(tmp_path):
    hook = """
def on_post_page(output, page, **kwargs):
    return output.replace("</body>", '<footer title="9.9× faster on every testbed">ok</footer></body>', 1)
"""
    _, result = built(tmp_path, hook=hook)
    refused(result, "'9.9×'", "title of <footer>")


def test_a_figure_a_hook_adds_to_a_generated_page_is_refused(tmp_path):
    hook = """
def on_page_content(html, page, **kwargs):
    if page.file.src_uri.startswith("claim/"):
        return html + '<div class="ledger-banner">measured at 12.34 GB/s</div>'
    return html
"""
    _, result = built(tmp_path, hook=hook)
    refused(result, "claim/", "'12.34 GB/s'")


def test_a_figure_tables_literal_numbers_are_refused(tmp_path):
    figures = '''
@table("made-up")
def made_up(data):
    """Bandwidth by size"""
    frame = pd.DataFrame({"size_mib": [1, 4], "gb_per_s": [41.5, 99.9]})
    frame.attrs["units"] = {"gb_per_s": "GB/s"}
    return frame
'''
    _, result = built(tmp_path, figures=figures, page='# Attack\n\n{{ table("made-up") }}\n')
    refused(result, "attack/index.html", "made-up", "41.5", "99.9")


def test_a_figure_tables_cell_that_no_run_holds_is_refused(tmp_path):
    figures = '''
@table("shifted")
def shifted(data):
    """Read bandwidth, nudged"""
    frame = data.frame("bandwidth")
    frame = frame[frame["op"] == "read"][["run", "testbed", "size_mib", "gb_per_s"]].copy()
    frame["gb_per_s"] = frame["gb_per_s"] * 2  # no run holds these
    frame.attrs["units"] = {"gb_per_s": "GB/s"}
    return frame
'''
    _, result = built(tmp_path, figures=figures, page='# Attack\n\n{{ table("shifted") }}\n')
    refused(result, "attack/index.html", "shifted", "no cell of run")


def test_a_figure_in_a_figures_own_words_is_refused(tmp_path):
    figures = '''
@table("worded")
def worded(data):
    """Read bandwidth
    Batching reaches 9.9 GB/s here."""
    return data.claims(["moe-speedup-b16"])[["claim"]]
'''
    page = '# Attack\n\n{{ table("worded") }}\n'
    with pytest.raises(AssertionError, match="figure-literal: '9.9 GB/s' in the caption of table 'worded'"):
        built(tmp_path / "gated", figures=figures, page=page)  # the gate, inside the build, refuses it first
    _, result = built(tmp_path / "silenced", hook=SILENCE_CAPTIONS, figures=figures, page=page)  # a hook loads first
    refused(result, "attack/index.html", "'9.9 GB/s'")


def test_a_label_no_page_typed_is_refused(tmp_path):
    hook = """
def on_page_content(html, page, **kwargs):
    if page.file.src_uri == "index.md":
        return html + '<p><span class="ledger-label">it runs at 9.9 GB/s</span></p>'
    return html
"""
    _, result = built(tmp_path, hook=hook)
    refused(result, "'9.9 GB/s'", "label")


def test_an_untouched_site_passes(tmp_path):
    _, result = built(tmp_path)
    assert result.exit_code == 0, result.output
