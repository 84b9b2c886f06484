"""What a site publishes for machines and for people who re-measure: claims.json (the verdicts of `ledger
check --format json`, valid against schema/check-report-1.schema.json), llms.txt's claims section, each
claim page's re-measure command; verify-site holds the first two to the ledger."""

import html
import json
import re
import shlex
import shutil

import jsonschema
import pytest
import yaml
from helpers import REPO, run_ledger, run_mkdocs

pytestmark = pytest.mark.site

SCHEMA = json.loads((REPO / "schema/check-report-1.schema.json").read_text())
COMMAND = re.compile(r"<pre><code>(ledger measure [^<]*)</code></pre>")


def test_claims_json_is_what_ledger_check_prints_and_its_schema_holds(built_site):
    published = (built_site / "claims.json").read_text()
    printed = run_ledger("check", "--format", "json", cwd=built_site.parent)
    assert printed.exit_code == 0, printed.errors
    assert published + "\n" == printed.output  # the same verdicts, not a new shape
    jsonschema.validate(json.loads(published), SCHEMA)
    listed = (built_site / "llms.txt").read_text()
    for claim_id in json.loads(published)["verdicts"]:
        assert f"- [{claim_id}](claim/{claim_id}/): " in listed
        assert (built_site / "claim" / claim_id / "index.html").is_file()


def test_this_repositorys_claims_json_holds_its_schema(report_site):
    jsonschema.validate(json.loads((report_site / "claims.json").read_text()), SCHEMA)


def test_the_schema_refuses_another_shape():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"ok": True, "claims": []}, SCHEMA)


@pytest.mark.parametrize(
    ("name", "edit", "problem"),
    [
        ("claims.json", lambda text: text.replace('"ok": true', '"ok": false', 1), "claims.json: differs"),
        ("claims.json", None, "claims.json: missing"),
        (
            "llms.txt",
            lambda text: text + "- [fast](claim/fast/): 9.9 × (measured, asserted, fresh)\n",
            "llms.txt: differs",
        ),
    ],
)
def test_verify_site_refuses_a_hand_edited_or_missing_claims_file(built_site, tmp_path, name, edit, problem):
    root = tmp_path / "ledger"
    shutil.copytree(built_site.parent, root, symlinks=True)
    path = root / "site" / name
    if edit is None:
        path.unlink()
    else:
        edited = edit(path.read_text())
        assert edited != path.read_text()
        path.write_text(edited)
    result = run_ledger("verify-site", "site", cwd=root)
    assert result.exit_code == 1
    assert problem in result.output + result.errors
    assert len([line for line in (result.output + result.errors).splitlines() if line.startswith(name)]) == 1


def test_a_claim_pages_command_writes_a_run_the_claim_can_cite(tmp_path):
    assert run_ledger("init", "p", cwd=tmp_path).exit_code == 0
    project = tmp_path / "p"
    built = run_mkdocs("build", "--strict", cwd=project)
    assert built.exit_code == 0, built.errors
    page = (project / "site/claim/sha256-1mib-throughput/index.html").read_text()
    (command,) = COMMAND.findall(page)
    words = shlex.split(html.unescape(command))
    assert words[:3] == ["ledger", "measure", "hashing"] and "--testbed" in words
    before = set((project / "measurements/hashing").iterdir())
    measured = run_ledger(*words[1:], cwd=project)
    assert measured.exit_code == 0, measured.errors
    (new_run,) = set((project / "measurements/hashing").iterdir()) - before
    # cite it (what `ledger refresh --write` does where the machine is quiet enough to judge the change)
    claims = project / "claims/hashing.yaml"
    (old_run,) = {c["evidence"]["run"] for c in yaml.safe_load(claims.read_text())["claims"] if "evidence" in c}
    claims.write_text(claims.read_text().replace(old_run, new_run.relative_to(project).as_posix()))
    accepted = run_ledger("accept", "sha256-1mib-throughput", cwd=project)
    # the new run may read within the claim's tolerance of the old one: then there is nothing to accept
    assert accepted.exit_code == 0 or (accepted.exit_code == 2 and "nothing to accept" in accepted.errors), accepted
    checked = json.loads(run_ledger("check", "--format", "json", cwd=project).output)
    verdict = checked["verdicts"]["sha256-1mib-throughput"]
    assert (verdict["outcome"], verdict["fresh"]) == ("agrees", "fresh")
    assert [f for f in checked["findings"] if f["claim"] == "sha256-1mib-throughput"] == []
