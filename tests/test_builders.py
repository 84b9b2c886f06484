"""Other site builders: ProperDocs runs the plugin (the gate inside the build); Zensical runs only
Markdown extensions, so it gets the extension, `ledger pages`, and `ledger verify-site` after."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import _env, run_ledger
from helpers_site import a_ledger, article
from test_markdown_ext import SHOWN, extension_build

pytestmark = pytest.mark.site

BIN = Path(sys.executable).parent


def builder(name: str) -> str:
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (the test extra of pyproject.toml lists it)")
    return found


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=_env(), timeout=600)


def test_properdocs_builds_the_report_with_the_gate_on(built_site, tmp_path):
    a_ledger(tmp_path)
    done = run([builder("properdocs"), "build", "--strict", "-f", "mkdocs.yml"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "6 claims (" in done.stderr and "— 0 failures" in done.stderr  # the plugin's gate ran
    assert run_ledger("verify-site", "site", cwd=tmp_path).exit_code == 0
    for page in ("", "claim/moe-speedup-predicted-b16"):
        assert SHOWN.findall(article(tmp_path / "site", page)) == SHOWN.findall(article(built_site, page))


def test_the_package_registers_its_plugin_for_properdocs_natively():
    from importlib.metadata import entry_points

    (found,) = entry_points(group="properdocs.plugins", name="ledger")  # ProperDocs' own group, not MkDocs' alone
    assert found.value == "generator.site.plugin:LedgerPlugin"
    assert found.load().__name__ == "LedgerPlugin"


def test_properdocs_fails_the_build_when_the_gate_fails(tmp_path):
    a_ledger(tmp_path)
    claims = tmp_path / "claims/moe.yaml"
    claims.write_text(
        claims.read_text().replace(
            'value: 3.59\n    unit: "×"\n    kind: measured', 'value: 2.5\n    unit: "×"\n    kind: measured'
        )
    )
    done = run([builder("properdocs"), "build", "--strict", "-f", "mkdocs.yml"], tmp_path)
    assert done.returncode == 1
    assert "moe-speedup-b16: drifted: stated 2.5×, evidence computes 3.6×" in done.stderr


def test_zensical_builds_the_report_through_the_extension_with_the_same_values(built_site, tmp_path):
    zensical = builder("zensical")
    a_ledger(tmp_path)
    extension_build(tmp_path)  # writes other-builder.yml and built-docs/ (ledger pages)
    config = (tmp_path / "other-builder.yml").read_text() + "site_dir: zensical-site\n"
    (tmp_path / "zensical.yml").write_text(config)
    done = run([zensical, "build", "-f", "zensical.yml"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    site = tmp_path / "zensical-site"
    verified = run_ledger("verify-site", str(site), cwd=tmp_path)
    assert verified.exit_code == 0, verified.output
    for page in ("", "claim/moe-speedup-predicted-b16"):
        shown = (site / page / "index.html").read_text()
        assert SHOWN.findall(shown) == SHOWN.findall(article(built_site, page)), page
