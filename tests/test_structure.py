"""The shape of the code: a flat core, two wings, one table per list of names, small modules."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

PACKAGE = REPO / "generator"
WINGS = ("generator.site", "generator.commands")
GATE_STAGES = {"generator.load", "generator.validate", "generator.evidence"}
DISPLAYS = {"generator.text", "generator.commands.show", "generator.commands.compare", "generator.commands.difftext"}
SITE_STACK = ("mkdocs", "pandas", "altair", "jinja2")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Modules of the generator package that a module imports (relative imports resolved)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
            target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
            found |= {target} | {f"{target}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {m for m in found if m.startswith("generator")}


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: {m for m in imports_of(path) if m in MODULES} for name, path in MODULES.items()}


def test_the_core_never_imports_a_wing():
    core = [name for name in GRAPH if not name.startswith(WINGS)]
    crossing = {name: sorted(m for m in GRAPH[name] if m.startswith(WINGS)) for name in core}
    assert {name: found for name, found in crossing.items() if found} == {}


def test_nothing_below_the_entry_point_imports_it():
    """cli.py finds a verb and runs its module; a verb reaching back up would be a cycle no import
    checker sees (cli -> a verb's module named by a string -> cli)."""
    code = [*PACKAGE.rglob("*.py"), *(REPO / "figures").glob("*.py"), *(REPO / "benchmarks").glob("*.py")]
    entry = {PACKAGE / "cli.py", PACKAGE / "__main__.py"}
    assert sorted(module_name(path) for path in code if path not in entry and "generator.cli" in imports_of(path)) == []


def test_no_display_imports_a_gate_stage_to_format_a_number():
    displays = DISPLAYS | {name for name in GRAPH if name.startswith("generator.site.")}
    displays -= {"generator.site.plugin"}  # the plugin runs the gate (gate.check), like the CLI
    reaching = {name: sorted(GRAPH[name] & GATE_STAGES) for name in sorted(displays)}
    assert {name: found for name, found in reaching.items() if found} == {}


def test_the_import_graph_is_shallow():
    def depth(name: str, seen: tuple = ()) -> int:
        return 1 + max((depth(m, seen + (name,)) for m in GRAPH[name] if m not in seen), default=0)

    assert max(depth(name) for name in GRAPH) <= 8  # 10 before the wings; the longest chain is a verb down to records


@pytest.mark.parametrize(
    "path",
    [
        path
        for folder in (PACKAGE, *(REPO / name for name in ("probes", "figures", "benchmarks")))
        for path in sorted(folder.rglob("*.py"))
    ],
    ids=lambda path: path.relative_to(REPO).as_posix(),
)
def test_no_module_is_over_400_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 400


def test_no_function_in_the_package_is_over_80_lines():
    long = [
        f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in MODULES.values()
        if path.name != "timing.py"  # hashed into every run: left as it is
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 80
    ]
    assert long == []


def _frozen_records(path: Path):
    """(class, has slots=True) for every @dataclass(frozen=True, ...) class in a module."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ClassDef):
            continue
        for decorator in node.decorator_list:
            words = {k.arg: k.value for k in decorator.keywords} if isinstance(decorator, ast.Call) else {}
            if getattr(words.get("frozen"), "value", False) is True:
                yield node, getattr(words.get("slots"), "value", False) is True


def _needs_a_dict(node: ast.ClassDef) -> bool:
    """A cached_property keeps its value in the instance's __dict__; an exception has one anyway."""
    cached = any("cached_property" in ast.unparse(d) for f in node.body for d in getattr(f, "decorator_list", ()))
    return cached or any(ast.unparse(base) == "Exception" for base in node.bases)


def test_records_are_slotted():
    """Frozen records carry no __dict__: 100,002 claims fit in a third of the memory (benchmarks/check_time.py)."""
    unslotted = [
        f"{path.relative_to(REPO)}: {node.name}"
        for path in MODULES.values()
        if path.name != "timing.py"  # hashed into every run: left as it is
        for node, slotted in _frozen_records(path)
        if not slotted and not _needs_a_dict(node)
    ]
    assert not unslotted, "add slots=True to @dataclass(frozen=True): " + ", ".join(unslotted)
    assert sum(1 for path in MODULES.values() for _ in _frozen_records(path)) > 60  # the walk finds them


# Each name or grammar is spelled once in generator/ (timing.py, hashed into every run, aside); the
# others import it. The prose scanner's figure grammar (numbers.py: "1,024", no sign) is its own.
ONE_COPY = {
    "the kebab-id pattern (runs.KEBAB)": "[a-z0-9]+(",
    "the probe-name pattern (runs.SNAKE)": "[a-z0-9_]+",
    "the number grammar (yamlread.UNSIGNED)": "[eE][-+]?",
    "the no-gap units (units.gap)": '"×", "x", "%"',
    "the figures folder (reads.FIGURES)": '"figures"',
    "the cache folder (hashcache.CACHE_ROOT)": '".cache"',
}


@pytest.mark.parametrize("spelling", ONE_COPY.values(), ids=ONE_COPY.keys())
def test_each_name_and_grammar_is_spelled_once(spelling):
    found = [
        f"{path.relative_to(REPO)}:{number}"
        for path in MODULES.values()
        if path.name != "timing.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if spelling in line
    ]
    assert len(found) == 1, found


def test_mkdocs_yml_has_one_reader():
    """The policy, the project finder, the site's settings and the review all read mkdocs.yml through
    mkdocs_yml.read() (or nodes() for a revision's text): one place composes it, tags never run."""
    composing = [name for name, path in MODULES.items() if "yaml.compose(" in path.read_text(encoding="utf-8")]
    assert composing == ["generator.mkdocs_yml"]


MARKDOWN = "markdown_extensions:" + (REPO / "mkdocs.yml").read_text().split("markdown_extensions:")[1]


def test_ledger_check_loads_no_site_stack(tmp_path):
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims/a.yaml").write_text(
        "claims:\n  - id: a\n    kind: borrowed\n    status: lead\n    source: {title: x}\n"
    )
    # A page rendered with this repository's own Markdown extensions, as the prose scan reads it.
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/index.md").write_text('# Page\n\n!!! note\n    A value: {{ claim("a") }}\n')
    (tmp_path / "mkdocs.yml").write_text((REPO / "mkdocs.yml").read_text().split("plugins:")[0] + MARKDOWN)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "generator", "check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "generator.gate" in imported and "markdown" in imported  # the measurement works
    assert sorted(m for m in imported if m.split(".")[0] in SITE_STACK) == []
