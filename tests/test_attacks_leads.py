"""Leads cannot reach a page that forbids them through a table or a chart (issue 29, class 7): a table or
chart counts as citing every claim it reads. Real projects built with `mkdocs build --strict`, and
verify-site on a real built site, through the real CLI."""

import pytest
from helpers import run_ledger, run_mkdocs, write_tree
from helpers_site import MKDOCS, a_ledger

pytestmark = pytest.mark.site

FORBID = "---\nledger: {leads: forbid}\n---\n"
FIGURES = '''
import altair as alt
import pandas as pd
from generator.site.figure_api import chart, table


@table("leads-table")
def leads_table(data):
    """What the hubs see"""
    return pd.DataFrame({"figure": ["single sequences"], "value": [data.claim("hub-batch-of-one")]})


@chart("leads-chart")
def leads_chart(data):
    """What the hubs see, drawn"""
    lead = data.claim("hub-batch-of-one")
    frame = pd.DataFrame({"what": ["single"], "share": [lead.value]})
    return alt.Chart(frame).mark_bar().encode(x="what:N", y="share:Q")
'''


def project(tmp_path, page: str):
    a_ledger(tmp_path)
    nav = MKDOCS.replace("  - Report: [index.md]", "  - Report: [index.md, strict.md]")
    write_tree(tmp_path, {"figures/leads.py": FIGURES, "docs/strict.md": page, "mkdocs.yml": nav})


def failed(result, *words):
    assert result.exit_code != 0, result.output + result.errors
    assert "Traceback" not in result.errors
    said = result.output + result.errors
    for word in words:
        assert word in said, said


def test_a_table_whose_cell_is_a_lead_fails_the_build_on_a_page_that_forbids_leads(tmp_path):
    project(tmp_path, FORBID + '# Strict\n\n{{ table("leads-table") }}\n')
    failed(run_mkdocs("build", "--strict", cwd=tmp_path), "docs/strict.md", "leads-table", "hub-batch-of-one")


def test_a_chart_drawn_from_a_lead_fails_the_build_on_a_page_that_forbids_leads(tmp_path):
    project(tmp_path, FORBID + '# Strict\n\n{{ chart("leads-chart") }}\n')
    failed(run_mkdocs("build", "--strict", cwd=tmp_path), "docs/strict.md", "leads-chart", "hub-batch-of-one")


def test_the_same_table_on_a_page_that_allows_leads_builds(tmp_path):
    project(tmp_path, '# Open\n\n{{ table("leads-table") }}\n{{ chart("leads-chart") }}\n')
    result = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert result.exit_code == 0, result.errors


def test_verify_site_refuses_a_lead_in_a_table_or_chart_on_a_page_that_forbids_leads(tmp_path):
    project(tmp_path, '# Strict\n\n{{ table("leads-table") }}\n{{ chart("leads-chart") }}\n')
    assert run_mkdocs("build", "--strict", cwd=tmp_path).exit_code == 0  # built while the page allowed leads
    write_tree(
        tmp_path, {"docs/strict.md": FORBID + '# Strict\n\n{{ table("leads-table") }}\n{{ chart("leads-chart") }}\n'}
    )
    failed(run_ledger("verify-site", "site", cwd=tmp_path), "strict/index.html", "hub-batch-of-one", "forbids leads")
