"""`ledger init --adopt`: an existing MkDocs project -> the ledger added, writing only what is missing.

Pure but for plan() reading the project's files: the plan says what to write (a file init would write
that is not there), what to add to a file that is (the ignore and attribute lines, the plugin in
mkdocs.yml, the generated pages in an explicit nav), and what it skipped and why. mkdocs.yml is
edited as text, by whole lines inserted at the end of its `plugins:` and `nav:` blocks, so every
comment and every other line stays as it was; a layout it cannot edit that way (a flow list on one
line) is skipped with the lines to add by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..inputs import mkdocs_yml
from ..records import LedgerError
from ..runs import link_problem

# What adopting writes of init's bare project: not its mkdocs.yml (edited instead), its page nor its README
# (the project's own, where it has one, is listed as a surface instead).
LEFT_OUT = ("mkdocs.yml", "docs/index.md", "README.md")
APPENDED = (".gitignore", ".gitattributes")  # each line init's holds, added where missing

# The plugin as adopting adds it: the bare policy, with typed figures on the old pages held as
# warnings (the migration mode, guide/adopt.md) until the author makes them fail again.
PLUGIN = """\
- ledger:
    max_run_age_days: 365        # runs older than this fail the gate ("too old")
    default_tolerance: precision # |stated - computed| within half a unit of the stated last digit
    warn: [unbound-number]       # migrating: figures typed into the old pages warn; take it out to fail
    probes_dir: probes
    probes: []                   # what `ledger measure [NAME...] [--profile P]` runs, one process each
"""
SURFACES = "    surfaces: [README.md]        # files outside docs/ whose figures the gate holds too\n"
# The generated pages (generator.site.render's; not imported: adopting needs no site stack).
CLAIMS_INDEX, FELL, MEASUREMENTS, GATE = "claims/index.md", "claims/fell.md", "measurements/index.md", "gate/index.md"
NAV = (
    "- Ledger:",
    f"    - {CLAIMS_INDEX}",
    f"    - The claims that fell: {FELL}",
    f"    - {MEASUREMENTS}",
    f"    - {GATE}",
)


@dataclass
class Plan:
    """What adopting does: files to write whole, texts to replace (files added to), what it skipped."""

    write: dict[str, str] = field(default_factory=dict)
    extend: dict[str, str] = field(default_factory=dict)  # path -> its whole new text
    added: list[str] = field(default_factory=list)  # what each extension adds, in words
    skipped: list[str] = field(default_factory=list)  # "path: why"


def plan(target: Path, files: dict[str, str]) -> Plan:
    """What adopting target needs, from init's bare files (path -> text)."""
    config = target / "mkdocs.yml"
    if not config.is_file():
        raise LedgerError(
            f"{target}: no mkdocs.yml; --adopt adds the ledger to an existing MkDocs project "
            "(leave out --adopt to start a new one)"
        )
    found = Plan()
    for path, text in sorted(files.items()):
        if path in LEFT_OUT:
            continue
        if path in APPENDED:
            _append_lines(target, path, text, found)
        elif (target / path).exists():
            found.skipped.append(f"{path}: it exists; compare it with the one `ledger init --bare` writes")
        else:
            found.write[path] = text
    try:
        mkdocs_yml.text_of(config)  # refuses a FIFO or a huge file before reading it
        original = config.read_bytes().decode("utf-8")
    except (mkdocs_yml.Malformed, OSError, UnicodeDecodeError) as error:
        raise LedgerError(f"{config}: cannot be read ({error}); fix it, then run `ledger init --adopt` again") from None
    text, added, skipped = adopted_config(original, readme=(target / "README.md").is_file())
    if text != original:
        found.extend["mkdocs.yml"] = text
    found.added += added
    found.skipped += skipped
    return found


def _append_lines(target: Path, path: str, text: str, found: Plan) -> None:
    """Init's lines of an ignore or attributes file that the project's lacks, added at its end."""
    if not (target / path).exists():
        found.write[path] = text
        return
    have = (target / path).read_text(encoding="utf-8")
    present = {line.strip() for line in have.splitlines()}
    missing = [line for line in text.splitlines() if line.strip() and not line.startswith("#") and line not in present]
    if not missing:
        found.skipped.append(f"{path}: it has every line the ledger needs")
        return
    found.extend[path] = have + ("" if not have or have.endswith("\n") else "\n") + "\n".join(missing) + "\n"
    found.added.append(f"{path}: {', '.join(missing)}")


def adopted_config(text: str, readme: bool = False) -> tuple[str, list[str], list[str]]:
    """mkdocs.yml's text with the ledger plugin (its README listed as a surface, where it has one) and (in an
    explicit nav) the generated pages added, by lines inserted at the end of each block: (new text, what was
    added, 'mkdocs.yml: why' skipped)."""
    try:
        top = mkdocs_yml.nodes(text)
    except mkdocs_yml.Malformed as error:
        raise LedgerError(
            f"mkdocs.yml: {' '.join(str(error).split())}; fix it, then run `ledger init --adopt` again"
        ) from None
    if top is None:
        raise LedgerError("mkdocs.yml: empty or not a mapping; an MkDocs project's mkdocs.yml sets at least site_name")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    added: list[str] = []
    skipped: list[str] = []
    edits: list[tuple[int, list[str]]] = []  # (line index to insert before, lines)
    plugin = (PLUGIN + (SURFACES if readme else "")).splitlines()
    listed = " (README.md under surfaces:, its figures held as the pages' are)" if readme else ""
    plugins = top.get("plugins")
    if plugins is None:
        kept = ["plugins:\n", "  - search                     # MkDocs' default, kept\n"]
        edits.append((len(lines), kept + _indented(plugin, 2)))
        added.append(f"mkdocs.yml: plugins: search (MkDocs' default, kept) and ledger{listed}")
    elif _has_ledger(plugins):
        skipped.append("mkdocs.yml: the ledger plugin is there already")
    elif isinstance(plugins, yaml.SequenceNode) and not plugins.flow_style and plugins.value:
        edits.append((_block_end(lines, plugins), _indented(plugin, plugins.start_mark.column)))
        added.append(f"mkdocs.yml: the ledger plugin, last in plugins:{listed}")
    else:
        skipped.append("mkdocs.yml: plugins: is not a block list; add `- ledger` under it by hand (guide/adopt.md)")
    nav = top.get("nav")
    if nav is not None:
        missing = [page for page in (CLAIMS_INDEX, FELL, MEASUREMENTS, GATE) if page not in _nav_pages(nav)]
        if not missing:
            skipped.append("mkdocs.yml: nav lists the generated pages already")
        elif isinstance(nav, yaml.SequenceNode) and not nav.flow_style and nav.value and len(missing) == 4:
            edits.append((_block_end(lines, nav), _indented(list(NAV), nav.start_mark.column)))
            added.append("mkdocs.yml: nav: Ledger (the claims, the claims that fell, the measurements, the gate)")
        else:
            skipped.append(f"mkdocs.yml: nav: add {', '.join(missing)} to it by hand (guide/adopt.md)")
    for at, new in sorted(edits, key=lambda edit: edit[0], reverse=True):
        lines[at:at] = new
    return "".join(lines), added, skipped


def _indented(lines: list[str], column: int) -> list[str]:
    return [" " * column + line + "\n" for line in lines]


def _has_ledger(plugins: yaml.Node) -> bool:
    if isinstance(plugins, yaml.SequenceNode):
        names = [
            item.value if isinstance(item, yaml.ScalarNode) else item.value[0][0].value
            for item in plugins.value
            if isinstance(item, yaml.ScalarNode) or (isinstance(item, yaml.MappingNode) and item.value)
        ]
    elif isinstance(plugins, yaml.MappingNode):
        names = [key.value for key, _ in plugins.value]
    else:
        names = []
    return any(str(name).split("/")[-1] == "ledger" for name in names)


def _nav_pages(node: yaml.Node) -> set[str]:
    """Every page path an explicit nav names."""
    if isinstance(node, yaml.ScalarNode):
        return {str(node.value)}
    children = node.value if isinstance(node, yaml.SequenceNode) else [v for _, v in node.value]
    return set().union(*(_nav_pages(child) for child in children)) if children else set()


def _block_end(lines: list[str], node: yaml.Node) -> int:
    """The index of the line after a block list's last item; blank and comment lines after it stay
    after what is inserted."""
    end = node.value[-1].end_mark  # a block mapping ends where the next token starts
    last = end.line if end.line < len(lines) and lines[end.line][: end.column].strip() else end.line - 1
    while last > 0 and (not lines[last].strip() or lines[last].lstrip().startswith("#")):
        last -= 1
    return last + 1


def adopt(target: Path, files: dict[str, str]) -> Plan:
    """Carry out the plan: write the missing files and the extended ones (all or nothing)."""
    found = plan(target, files)
    linked = next(filter(None, (link_problem(target, target / path, "") for path in [*found.write, *found.extend])), "")
    if linked:  # a file written through it would land wherever the link points
        raise LedgerError(linked)
    done: list[tuple[Path, str | None]] = []  # (path, its text before: None where it was not there)
    try:
        for relative, text in [*found.write.items(), *found.extend.items()]:
            path = target / relative
            before = path.read_text(encoding="utf-8") if path.exists() else None
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            done.append((path, before))
    except BaseException:
        for path, before in reversed(done):
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(before, encoding="utf-8")
        raise
    return found
