"""One reading (issue 45): what verify-site refuses, `ledger check` and the build say first, in a fresh
`ledger init` project and in an adopted Material site alike. A figure typed into a figure's caption fails
the check in verify-site's words; a table cell or chart value no run or claim holds fails the build at
the figure's file:line; a pivoted table of run cells verifies; migration mode passes verify-site with the
page's typed figures listed as warnings, while a figure a hook adds is refused; a replicated headline and
its table show one number; a text surface is read as text. Real projects, the real CLI and builds."""

import csv
import json
import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from helpers import run_ledger, run_mkdocs, write_tree
from test_adopt import MATERIAL_SITE

from generator.runs import sha256_file

pytestmark = pytest.mark.site

# A hook that switches off the build's own read-back of the pages (as any hook or figure module can).
SILENCE = "from generator.site import plugin\n\nplugin.LedgerPlugin._readback = lambda self: None\n"
HASHING_PAGE = """# Hashing

SHA-256 hashes a <span class="ledger-label">1 MiB</span> buffer at {{ claim("sha256-1mib-throughput") }}.

{{ table("hash-throughput") }}

{{ chart("hash-throughput-by-size") }}
"""


def fresh(root: Path) -> Path:
    made = run_ledger("init", str(root), cwd=root.parent)
    assert made.exit_code == 0, made.errors
    return root


def adopted(root: Path, ledger: Path) -> Path:
    """MATERIAL_SITE adopted with `ledger init --adopt`, with a fresh project's claims, probe, run and figures
    and a page citing them (migration mode: its old page's typed figures are warnings)."""
    write_tree(root, MATERIAL_SITE)
    result = run_ledger("init", "--adopt", "--source", "evidence-ledger==0.1.0", cwd=root)
    assert result.exit_code == 0, result.errors
    for folder in ("claims", "probes", "measurements", "figures"):
        shutil.copytree(ledger / folder, root / folder)
    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("  - Home: index.md\n", "  - Home: index.md\n  - Hashing: hashing.md\n")
    config = re.sub(r"      probes: \[\][^\n]*\n", lambda _: PROBES, config)
    write_tree(root, {"docs/hashing.md": HASHING_PAGE, "mkdocs.yml": config})
    return root


PROBES = """      probes:
        - name: hashing
          command: "{python} probes/hashing.py --profile {profile}"
"""


@pytest.fixture(params=["init", "adopted"])
def project(request, tmp_path) -> Path:
    ledger = fresh(tmp_path / "fresh")
    return ledger if request.param == "init" else adopted(tmp_path / "adopted", ledger)


def add_figures(root: Path, code: str, page: str) -> None:
    """A figure module beside the project's, and a page citing its figures (in the nav)."""
    write_tree(root, {"figures/extra.py": "import altair as alt\nimport pandas as pd\n" + FIGURE_API + code})
    write_tree(root, {"docs/extra.md": page})
    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    (root / "mkdocs.yml").write_text(re.sub(r"(\n  - [^\n]*index\.md\n)", r"\1  - extra.md\n", config, count=1))


FIGURE_API = 'from generator.site.figure_api import chart, table\n\nCITED = "sha256-1mib-throughput"\n'


def line_of(root: Path, path: str, text: str) -> int:
    return next(n for n, line in enumerate((root / path).read_text().splitlines(), 1) if text in line)


def test_a_caption_figure_fails_ledger_check_in_verify_sites_words(project):
    figures = project / "figures/hashing.py"
    figures.write_text(
        figures.read_text().replace("Median over the rounds,", "Median over the rounds, about 2 GB/s here,")
    )
    checked = run_ledger("check", cwd=project)
    assert checked.exit_code == 1, checked.output
    line = line_of(project, "figures/hashing.py", "about 2 GB/s")
    assert (
        f"figures/hashing.py:{line}: figure-literal: '2 GB/s' in the caption of table 'hash-throughput' is a figure "
        "no claim the ledger re-derived holds"
    ) in checked.output
    # a figure module that sets its caption where the check cannot read it: verify-site refuses it so
    write_tree(project, {"figures/hashing.py": figures.read_text().replace("about 2 GB/s here,", "")})
    figures.write_text(figures.read_text() + '\nhash_throughput.__doc__ = "Hash throughput, about 2 GB/s here"\n')
    assert run_ledger("check", cwd=project).exit_code == 0
    built = run_mkdocs("build", "--strict", cwd=project)
    assert built.exit_code == 0, built.errors
    verified = run_ledger("verify-site", "site", cwd=project)
    assert verified.exit_code == 1
    assert "'2 GB/s' in the caption of a figure is a figure no claim the ledger re-derived holds" in verified.output


def test_warn_never_downgrades_a_caption_figure(project):
    config = project / "mkdocs.yml"
    text = config.read_text()
    text = re.sub(r"warn: \[[^\]]*\]", "warn: [unbound-number, figure-literal]", text)
    config.write_text(text)
    checked = run_ledger("check", cwd=project)
    assert checked.exit_code == 1
    assert "'figure-literal' cannot warn" in checked.output + checked.errors


MADE_UP = '''
@table("made-up")
def made_up(data):
    """Hash throughput, one cell typed by hand"""
    frame = data.frame("hashing", run=data.claim(CITED).evidence.run)[["algorithm", "size_kib", "gb_per_s"]]
    frame.loc[0, "gb_per_s"] = 123.4
    frame.attrs["units"] = {"gb_per_s": "GB/s"}
    return frame
'''


def test_a_made_up_table_cell_fails_the_build_at_the_figures_line(project):
    add_figures(project, MADE_UP, '# Extra\n\n{{ table("made-up") }}\n')
    assert run_ledger("check", cwd=project).exit_code == 0  # figure code is not run by the check
    built = run_mkdocs("build", "--strict", cwd=project)
    assert built.exit_code != 0
    line = line_of(project, "figures/extra.py", '@table("made-up")')
    run = next((project / "measurements/hashing").iterdir()).name
    assert (
        f"figures/extra.py:{line}: table 'made-up' shows '123.4' under 'gb_per_s (GB/s)', which is no cell of run "
        f"measurements/hashing/{run}"
    ) in built.errors


LITERAL_CHART = '''
@chart("literal")
def literal(data):
    """Throughput, typed in"""
    return alt.Chart(pd.DataFrame({"size_kib": [1, 1024], "gb_per_s": [0.25, 2.5]})).mark_line().encode(
        x="size_kib:Q", y="gb_per_s:Q"
    )
'''


def test_a_chart_of_literal_values_fails_the_build_at_the_figures_line(project):
    add_figures(project, LITERAL_CHART, '# Extra\n\n{{ chart("literal") }}\n')
    built = run_mkdocs("build", "--strict", cwd=project)
    assert built.exit_code != 0
    line = line_of(project, "figures/extra.py", '@chart("literal")')
    assert f"figures/extra.py:{line}: chart 'literal': a row (" in built.errors
    assert "a number from no claim and no run (a figure's literal)" in built.errors


PIVOTED = '''
@table("pivoted")
def pivoted(data):
    """Throughput by buffer size, an algorithm a column"""
    frame = data.frame("hashing", run=data.claim(CITED).evidence.run)
    wide = frame.pivot(index="size_kib", columns="algorithm", values="gb_per_s").reset_index()
    wide.columns.name = None
    wide.attrs["units"] = {name: "GB/s" for name in wide.columns if name != "size_kib"} | {"size_kib": "KiB"}
    return wide


@table("pivoted-scaled")
def pivoted_scaled(data):
    """The same, a column scaled"""
    wide = pivoted(data)
    wide["sha256"] = wide["sha256"] * 10
    return wide
'''


def test_a_pivoted_table_of_run_cells_verifies_and_a_scaled_column_fails(project):
    add_figures(project, PIVOTED, '# Extra\n\n{{ table("pivoted") }}\n')
    built = run_mkdocs("build", "--strict", cwd=project)
    assert built.exit_code == 0, built.errors
    verified = run_ledger("verify-site", "site", cwd=project)
    assert verified.exit_code == 0, verified.output
    write_tree(project, {"docs/extra.md": '# Extra\n\n{{ table("pivoted-scaled") }}\n'})
    built = run_mkdocs("build", "--strict", cwd=project)
    assert built.exit_code != 0
    line = line_of(project, "figures/extra.py", '@table("pivoted-scaled")')
    assert f"figures/extra.py:{line}: table 'pivoted-scaled' shows '" in built.errors
    assert "under 'sha256 (GB/s)', which is no cell of run measurements/hashing/" in built.errors


def test_migration_mode_passes_verify_site_with_warnings_at_file_line_and_a_hook_figure_is_refused(project):
    config = project / "mkdocs.yml"
    config.write_text(re.sub(r"warn: \[[^\]]*\]", "warn: [unbound-number]", config.read_text()))
    page = project / "docs/index.md"
    page.write_text(page.read_text() + "\nThe old page said it took 12 ms.\n")
    line = line_of(project, "docs/index.md", "took 12 ms")
    built = run_mkdocs("build", "--strict", cwd=project)
    assert built.exit_code == 0, built.errors
    verified = run_ledger("verify-site", "site", cwd=project)
    assert verified.exit_code == 0, verified.output
    assert "index.html:" in verified.output and "'12 ms' in <p> is a figure" in verified.output
    assert f"typed at docs/index.md:{line} (warning: warn: [unbound-number])" in verified.output
    assert "typed into pages listed as warnings (migration mode: `warn: [unbound-number]`)" in verified.output

    hook = 'def on_page_content(html, page, **kwargs):\n    return html + "<p>A hook adds 9.9× and 12 ms.</p>"\n'
    write_tree(project, {"hooks.py": SILENCE + hook})
    config.write_text(config.read_text() + "hooks: [hooks.py]\n")
    built = run_mkdocs("build", "--strict", cwd=project)
    assert built.exit_code == 0, built.errors
    verified = run_ledger("verify-site", "site", cwd=project)
    assert verified.exit_code == 1
    refused = [line for line in verified.output.splitlines() if "typed at" not in line]
    assert any("index.html:" in line and "'9.9×' in <p>" in line for line in refused)
    assert any("index.html:" in line and "'12 ms' in <p>" in line for line in refused)  # typed once, shown twice


def replicate(root: Path, run: str, hours: int, factor: float) -> str:
    """Another run of the same measurement, `hours` later (or earlier), its throughputs `factor` times the
    run's (as a quiet machine's runs read): a replicate the gate pools with it, its hashes its own."""
    source = root / run
    manifest = json.loads((source / "manifest.json").read_text())
    started = datetime.strptime(manifest["started"], "%Y-%m-%dT%H:%M:%SZ") + timedelta(hours=hours)
    stamp = started.strftime("%Y-%m-%dT%H:%M:%SZ")
    target = source.parent / (started.strftime("%Y-%m-%dT%H-%M-%SZ") + source.name[20:])
    shutil.copytree(source, target)
    for name in ("results.csv", "samples.csv"):
        with (target / name).open(newline="") as file:
            rows = list(csv.DictReader(file))
        for row in rows:
            for column in row:
                if column.startswith("gb_per_s") and row[column]:
                    row[column] = repr(float(row[column]) * factor)
        with (target / name).open("w", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        manifest["files"][name]["sha256"] = sha256_file(target / name)
    manifest["started"], manifest["finished"] = stamp, stamp
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return target.relative_to(root).as_posix()


def test_a_replicated_headline_and_its_table_show_one_number(project):
    cited = next((project / "measurements/hashing").iterdir()).relative_to(project).as_posix()
    replicate(project, cited, -2, 1.01)  # two earlier runs of the same measurement: the cited run's set
    replicate(project, cited, -1, 0.985)
    claims = project / "claims/hashing.yaml"  # sha256's value pooled over the three
    claims.write_text(claims.read_text().replace("column: gb_per_s\n", "column: gb_per_s\n      replicates: 3\n", 1))
    for claim_id in ("sha256-1mib-throughput", "blake2b-1mib-throughput", "sha256-seconds-per-gib"):
        run_ledger("accept", claim_id, cwd=project)  # ("nothing to accept" where the value still agrees)
    run_ledger("refresh", "--write", cwd=project)  # the README's marker follows the value
    checked = run_ledger("check", cwd=project)
    assert checked.exit_code == 0, checked.output
    built = run_mkdocs("build", "--strict", cwd=project)
    assert built.exit_code == 0, built.errors
    page = "site/hashing/index.html" if (project / "site/hashing/index.html").exists() else "site/index.html"
    html = (project / page).read_text(encoding="utf-8")
    table = html[html.index('id="table-hash-throughput"') : html.index("</figure>", html.index('id="table-hash'))]
    shown = re.findall(r'data-claim="sha256-1mib-throughput"><span class="ledger-value">([^<]*)<', html)
    in_table = re.findall(r'data-claim="sha256-1mib-throughput"><span class="ledger-value">([^<]*)<', table)
    assert len(shown) >= 2 and len(in_table) == 1 and set(shown) == set(in_table)  # one number, prose and table
    assert run_ledger("verify-site", "site", cwd=project).exit_code == 0


def test_a_text_surface_is_read_as_text(project):
    write_tree(project, {"llms.txt": (
        "Hashes at 0.5 GB/s.\n`Code spans show: 7 ms`\n<!-- and comments: 8 ms -->\n"
        "A value: <!-- ledger: sha256-1mib-throughput -->0.1 GB/s<!-- /ledger -->\n"
    )})  # fmt: skip
    config = project / "mkdocs.yml"
    text = config.read_text()
    text = text.replace("surfaces: [README.md]", "surfaces: [README.md, llms.txt]")
    config.write_text(text)
    checked = run_ledger("check", cwd=project)
    lines = (project / "llms.txt").read_text().splitlines()
    for number, figure in ((1, "0.5 GB/s"), (2, "7 ms"), (3, "8 ms")):  # in a code span, a comment: read
        column = lines[number - 1].index(figure) + 1
        assert f"llms.txt:{number}:{column}: unbound-number: '{figure}' is typed into the file" in checked.output
    assert "surface-drifted: '0.1 GB/s' stands for sha256-1mib-throughput" in checked.output
