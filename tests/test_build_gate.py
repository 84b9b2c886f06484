"""The gate inside the site build: `mkdocs build --strict` fails exactly when `ledger check` does."""

import pytest
from helpers import MEASURED, RUN, SPEEDUP_ROWS, a_run, run_ledger, run_mkdocs, write_tree

pytestmark = pytest.mark.site

MKDOCS = """
site_name: gate test
theme: {name: material}
plugins:
  - ledger
"""


def tamper_data(root):
    data = root / RUN / "results.csv"
    data.write_bytes(data.read_bytes().replace(b"3.6", b"3.5"))


def edit_probe(root):
    (root / "probes/toy.py").write_text("print('a changed line')\n")


def drift(root):
    write_tree(root, {"claims/moe.yaml": MEASURED.replace("3.59", "2.5")})


@pytest.mark.parametrize(
    "change, rule", [(None, None), (tamper_data, "tampered"), (edit_probe, "probe-changed"), (drift, "drifted")]
)
def test_build_fails_exactly_when_ledger_check_fails_and_names_the_claim(tmp_path, change, rule):
    a_run(tmp_path, SPEEDUP_ROWS)
    write_tree(
        tmp_path,
        {
            "mkdocs.yml": MKDOCS,
            "claims/moe.yaml": MEASURED,
            "docs/index.md": '# Report\n\nSpeedup: {{ claim("moe-speedup-b16") }}\n',
        },
    )
    if change:
        change(tmp_path)
    checked = run_ledger("check", cwd=tmp_path)
    built = run_mkdocs("build", "--strict", cwd=tmp_path)
    assert (checked.exit_code == 0) == (built.exit_code == 0)
    if rule:
        assert checked.exit_code == 1
        assert f"moe-speedup-b16: {rule}:" in checked.output
        assert f"moe-speedup-b16: {rule}:" in built.errors
        assert not (tmp_path / "site/index.html").exists()
    else:
        assert (tmp_path / "site/index.html").exists()
