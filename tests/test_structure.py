"""The shape of the code: the core in layered folders, two wings, one table per list of names, short functions."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

PACKAGE = REPO / "generator"
WINGS = ("generator.site", "generator.commands", "generator.review", "generator.verify")
GATE_STAGES = {"generator.inputs.load", "generator.claims.validate", "generator.judging.evidence"}
DISPLAYS = {"generator.text", "generator.commands.show", "generator.review.compare", "generator.review.difftext"}
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
# A module's own packages are left out of its imports: Python imports them first whatever it names, and a
# package's __init__ that gives its entry point imports the modules below it.
GRAPH = {
    name: {m for m in imports_of(path) if m in MODULES and m != name and not name.startswith(m + ".")}
    for name, path in MODULES.items()
}


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


# The layers, top to bottom: a module imports only from its own layer or one below it. The declared
# order is the architecture: the entry point, the verbs, the machinery behind two of them (the review of
# two reports, verify-site's reading of a built site), the site wing, the pipeline, then its stages from
# the last to the first, the records every stage passes on, and the floor: the pure languages of a claim.
LAYERS = (
    ("generator.cli", "generator.__main__", "generator.collector"),
    ("generator.commands",),
    ("generator.review", "generator.verify"),
    ("generator.site",),
    ("generator.gate", "generator.text"),
    ("generator.series",),
    ("generator.judging",),
    ("generator.claims",),
    ("generator.prose",),
    ("generator.inputs",),
    ("generator.trust",),
    ("generator.records", "generator.rules", "generator.probe", "generator.runs", "generator.tools", "generator"),
    ("generator.lang", "generator.timing"),
)


def layer_of(name: str) -> int:
    """The index of the layer a module belongs to (its longest matching prefix)."""
    matches = [
        (len(prefix), index)
        for index, prefixes in enumerate(LAYERS)
        for prefix in prefixes
        if name == prefix or name.startswith(prefix + ".")
    ]
    assert matches, f"{name} is in no layer: add it (or its folder) to LAYERS"
    return max(matches)[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports that go up the layers, with no exception."""
    return sorted(
        f"{name} -> {target}" for name, found in graph.items() for target in found if layer_of(target) < layer_of(name)
    )


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Import cycles among the package's modules (one path each), found by a depth-first search."""
    found: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for target in sorted(graph[name] - {"generator"}):
            if state.get(target) == "open":
                found.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return found


def test_every_module_is_in_a_layer_and_every_layer_is_used():
    assert sorted({layer_of(name) for name in GRAPH}) == list(range(len(LAYERS)))


def test_imports_only_go_down_the_layers():
    assert upward_imports(GRAPH) == []


def test_no_import_cycle():
    assert cycles(GRAPH) == []


def test_an_upward_import_and_a_cycle_are_seen():
    """The rules catch what they are for: a language reaching up to a stage, a stage to a wing, a cycle."""
    planted = {name: set(found) for name, found in GRAPH.items()}
    planted["generator.lang.values"].add("generator.judging.evidence")
    planted["generator.inputs.load"].add("generator.site.render")
    assert upward_imports(planted) == [
        "generator.inputs.load -> generator.site.render",
        "generator.lang.values -> generator.judging.evidence",
    ]
    planted = {name: set(found) for name, found in GRAPH.items()}
    planted["generator.judging.checks"].add("generator.judging.evidence")  # evidence imports checks
    assert cycles(planted) == [["generator.judging.evidence", "generator.judging.checks", "generator.judging.evidence"]]


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
    """(class, slotted) for every @dataclass(frozen=True, ...) class in a module (slotted: slots=True) and every
    @attrs.frozen one (slotted unless slots=False)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ClassDef):
            continue
        for decorator in node.decorator_list:
            words = {k.arg: k.value for k in decorator.keywords} if isinstance(decorator, ast.Call) else {}
            if ast.unparse(getattr(decorator, "func", decorator)) == "attrs.frozen":
                yield node, getattr(words.get("slots"), "value", True) is True
            elif getattr(words.get("frozen"), "value", False) is True:
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


def test_one_collector_policy_set_by_collector_py_alone():
    """The verbs' garbage-collector policy is collector.py's, set once by cli.py: no verb sets its own."""
    setting = re.compile(r"\bgc\.(disable|enable|set_threshold|freeze)\(")
    found = {path.relative_to(REPO).as_posix() for path in MODULES.values() if setting.search(path.read_text("utf-8"))}
    assert found == {"generator/collector.py"}


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
    """The policy, the project finder, the site's settings and the review all read mkdocs.yml (and what it
    inherits) through mkdocs_yml.composed() (nodes() for one text): one place composes it, tags never
    run."""
    composing = [
        name
        for name, path in MODULES.items()
        if any(call in path.read_text(encoding="utf-8") for call in ("yaml.compose(", ".get_single_node("))
    ]
    assert composing == ["generator.inputs.mkdocs_yml"]


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


def test_no_module_file_name_twice():
    """One name, one thing: a module's file name is found once under generator/ (the template aside: it is
    a project's, not the package's)."""
    names = [path.name for path in MODULES.values() if path.name != "__init__.py" and "template" not in path.parts]
    assert sorted({name for name in names if names.count(name) > 1}) == []


def private_uses(tree: ast.Module) -> list[str]:
    """Where a test calls a private function of the package: a name with a leading underscore imported from
    one of its modules, or called as an attribute of a name bound to one (`from generator.verify import
    framed`, then `framed._split(...)`)."""
    modules: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("generator"):
            for alias in node.names:
                if alias.name.startswith("_"):
                    found.append(f"{node.lineno}: {node.module}.{alias.name}")
                elif f"{node.module}.{alias.name}" in MODULES:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        called = node.func if isinstance(node, ast.Call) else None
        while isinstance(called, ast.Attribute) and called.attr.startswith("__"):  # `_f.__wrapped__(...)`
            called = called.value
        if (
            isinstance(called, ast.Attribute)
            and isinstance(called.value, ast.Name)
            and called.value.id in modules
            and called.attr.startswith("_")
            and not called.attr.startswith("__")
        ):
            found.append(f"{node.lineno}: {modules[called.value.id]}.{called.attr}")
    return found


def test_tests_call_no_private_function_of_the_package():
    """Tests go through a verb or a module's public functions: a private one is free to change."""
    used = {
        path.name: private_uses(ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted((REPO / "tests").glob("*.py"))
    }
    assert {name: found for name, found in used.items() if found} == {}


def test_a_private_use_is_seen():
    planted = "from generator.verify import framed\nfrom generator.lang.values import _three\nframed._split(1)\nframed._KEPT\nframed._cut.__wrapped__(2)\n"
    assert private_uses(ast.parse(planted)) == [
        "2: generator.lang.values._three",
        "3: generator.verify.framed._split",
        "5: generator.verify.framed._cut",
    ]


def test_every_package_folder_ships_in_the_wheel():
    """A folder of the package missing from pyproject.toml's list installs without its modules (a wheel test
    finds it only minutes later)."""
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {module_name(path) for path in PACKAGE.rglob("__init__.py") if "template" not in path.parts}
    assert sorted(folders - listed) == []
