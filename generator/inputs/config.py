"""Policy: the plugin's settings in mkdocs.yml -> a Policy, read the same way by the CLI and the build.

Each option is a row of OPTIONS: its name, the types mkdocs accepts, its help, its parser and its
default as a user would write it. The parser turns what is written into the Policy's value (a
Tolerance, a UnitTable, a whole number), so nothing after load parses a tolerance or a unit again;
DEFAULTS is the policy built from the rows' defaults, through the same parsers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from ..lang import ownunits, yamlread
from ..lang.relations import MAX_FACTOR
from ..lang.units import UnitTable
from ..lang.values import Tolerance, parse_tolerance
from ..records import Finding, LedgerError, Policy, ProbeSpec, Source
from ..rules import INTEGRITY, NOTE_BY_DEFAULT, RULES, WARN_BY_DEFAULT, WARNABLE
from ..runs import PROBE_NAME, TESTBED_PATTERN
from ..tools import TOOLS
from . import mkdocs_yml
from .mkdocs_yml import site_settings

PLUGIN = "ledger"


@dataclass(frozen=True, slots=True)
class Option:
    """One policy setting of the plugin in mkdocs.yml: its type, meaning and how a value is checked."""

    name: str
    types: tuple[type, ...]  # what mkdocs' config loader accepts before our own check
    help: str
    parse: Callable[[object], object]  # the value as written -> the Policy field; ValueError says why
    default: object  # as a user would write it in mkdocs.yml (the docs show it); parsed into DEFAULTS


def _positive_whole(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0 or value > 10**9:
        raise ValueError(f"must be a positive whole number up to 1,000,000,000, got {str(value)[:40]}")
    return value


def _input_bytes(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 << 20 <= value <= 1 << 40:
        raise ValueError(f"must be a whole number of bytes from 1 MiB to 1 TiB, got {str(value)[:40]}")
    return value


MAX_SHARE = 0.5  # the hard limit of every tolerance option: 50% of the value


def _tolerance(value: object) -> Tolerance:
    """'precision', an absolute number (judged per claim against max_tolerance), or a percentage up to 50%."""
    try:
        tolerance = parse_tolerance(value)
    except ValueError as error:
        raise ValueError(f"{str(value)[:40]!r} {error}") from None
    if tolerance.relative > MAX_SHARE:
        raise ValueError(f"{value!r} is above the limit of {MAX_SHARE:.0%}")
    return tolerance


def _percentage(value: object) -> Tolerance:
    """A percentage above 0 and at most 50%."""
    text = str(value).strip() if isinstance(value, str) else ""
    try:
        tolerance = parse_tolerance(text)
    except ValueError:
        tolerance = None
    if tolerance is None or not text.endswith("%") or not 0 < tolerance.relative <= MAX_SHARE:
        raise ValueError(
            f"must be a percentage above 0 and at most {MAX_SHARE:.0%} like '10%', got {str(value)[:40]!r}"
        )
    return tolerance


def _factor(value: object) -> float:
    """A factor from 1 to relations.MAX_FACTOR."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= MAX_FACTOR:
        raise ValueError(f"must be a number from 1 to {MAX_FACTOR:g}, got {str(value)[:40]}")
    return float(value)


def _rules(value: object) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(rule, str) for rule in value):
        raise ValueError("must be a list of rule names")
    for rule in value:
        if rule in INTEGRITY:
            raise ValueError(
                f"{rule!r} guards the evidence's bytes and cannot warn (no policy switches off integrity: "
                f"{', '.join(INTEGRITY)}); fix what it names instead"
            )
        if rule not in WARNABLE:
            raise ValueError(f"{rule!r} cannot warn; rules that can: {', '.join(WARNABLE)}")
    return frozenset(value)


def _failing(value: object) -> frozenset[str]:
    """Rules that warn or note by default (rules.WARN_BY_DEFAULT, NOTE_BY_DEFAULT), made failures."""
    if not isinstance(value, list) or not all(isinstance(rule, str) for rule in value):
        raise ValueError("must be a list of rule names")
    for rule in value:
        if rule not in WARN_BY_DEFAULT | NOTE_BY_DEFAULT:
            raise ValueError(
                f"{rule!r} fails already; rules that warn or note by default: "
                f"{', '.join(sorted(WARN_BY_DEFAULT | NOTE_BY_DEFAULT))}"
            )
    return frozenset(value)


MIN_LEVEL, MAX_LEVEL = 0.5, 0.999


def _level(value: object) -> float:
    """A coverage as a percentage from 50% to 99.9% ('95%') -> 0.95."""
    text = value.strip() if isinstance(value, str) else ""
    try:
        found = float(text.removesuffix("%")) / 100 if text.endswith("%") else None
    except ValueError:
        found = None
    if found is None or not MIN_LEVEL <= found <= MAX_LEVEL:
        raise ValueError(
            f"must be a percentage from {MIN_LEVEL:.0%} to {MAX_LEVEL:.1%} like '95%', got {str(value)[:40]!r}"
        )
    return found


def _replicates(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REPLICATES:
        raise ValueError(f"must be a whole number of runs from 1 to {MAX_REPLICATES}, got {str(value)[:40]}")
    return value


def _folder(value: object) -> str:
    if not isinstance(value, str) or not value or value.startswith("/") or ".." in value:
        raise ValueError("must be a folder inside the repository")
    return value


PROBE_KEYS = ("name", "command", "code", "env", "build", "replicates", "manual", "tool")
MAX_REPLICATES = 100  # replicate runs of one probe in one `ledger measure`


def _probes(value: object) -> tuple[ProbeSpec, ...]:
    """`probes:` -> ProbeSpecs: each a mapping with a name and a command (code and env optional)."""
    if not isinstance(value, list):
        raise ValueError("must be a list of {name, command} mappings")
    found: list[ProbeSpec] = []
    for number, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise ValueError(f"entry {number} must be a mapping with `name` and `command`")
        unknown = sorted(set(item) - set(PROBE_KEYS))
        if unknown:
            raise ValueError(f"entry {number}: unknown key {unknown[0]!r}; keys are: {', '.join(PROBE_KEYS)}")
        name, command = item.get("name"), item.get("command")
        if not isinstance(name, str) or not PROBE_NAME.match(name):
            raise ValueError(f"entry {number}: `name` must be lower_snake_case (its runs go to measurements/<name>/)")
        if any(spec.name == name for spec in found):
            raise ValueError(f"probe {name!r} is declared twice")
        if not isinstance(command, str) or not command.strip():
            raise ValueError(f"probe {name}: `command` must be a command line, e.g. '{{python}} probes/{name}.py'")
        code = item.get("code") or []
        if not isinstance(code, list) or not all(_inside_path(path) for path in code):
            raise ValueError(f"probe {name}: `code` must be a list of file paths inside the repository")
        env = item.get("env") or {}
        if not isinstance(env, dict):
            raise ValueError(f"probe {name}: `env` must be a mapping of variable names to values")
        tool = _tool(name, item.get("tool"), command, code)
        build = _build(name, item.get("build"), command, code)
        try:
            replicates = _replicates(item.get("replicates", 1))
        except ValueError as error:
            raise ValueError(f"probe {name}: `replicates` {error}") from None
        manual = item.get("manual", False)
        if not isinstance(manual, bool):
            raise ValueError(f"probe {name}: `manual` must be true or false (true: run only when named)")
        environment = tuple((str(k), str(v)) for k, v in env.items())
        found.append(ProbeSpec(name, command, tuple(code), environment, build, replicates, manual, tool))
    return tuple(found)


def _build(name: str, build: object, command: str, code: list) -> str:
    """A compiled probe's build command: it needs its inputs declared (`code`, hashed as the probe's
    code) and a command that writes {out}, so the run ledger measure finalizes is stamped with them."""
    if build is None:
        return ""
    if not isinstance(build, str) or not build.strip():
        raise ValueError(
            f"probe {name}: `build` must be a command line, e.g. 'cc -O2 -o {{build}}/{name} probes/{name}.c'"
        )
    if not code:
        raise ValueError(
            f"probe {name}: a probe with `build` lists the build's inputs under `code` (they are its code hash)"
        )
    if "{out}" not in command and "{export}" not in command:
        raise ValueError(
            f"probe {name}: a probe with `build` writes {{out}} (or a tool's {{export}}): ledger measure finalizes "
            "it with the inputs' hash"
        )
    return build


def _tool(name: str, tool: object, command: str, code: list) -> str:
    """A benchmark tool's probe: a tool the ledger reads, a command that writes its export to {export}, and
    the files it measures under `code` (its code hash: nothing else names them)."""
    if tool is None:
        if "{export}" in command:
            raise ValueError(f"probe {name}: {{export}} is a tool's export: add `tool:` ({', '.join(TOOLS)})")
        return ""
    if tool not in TOOLS:
        raise ValueError(f"probe {name}: `tool` {str(tool)[:40]!r} is not one the ledger reads: {', '.join(TOOLS)}")
    if "{export}" not in command or "{out}" in command:
        raise ValueError(
            f"probe {name}: a {tool} probe's command writes its export to {{export}} (`{TOOLS[tool].writes}`), "
            "not CSV files to {out}"
        )
    if not code:
        raise ValueError(f"probe {name}: a probe with `tool` lists the files it measures under `code` (its code hash)")
    return str(tool)


def _testbeds(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(name, str) and TESTBED_PATTERN.match(name) for name in value):
        raise ValueError("must be a list of testbed names in lower-kebab-case, e.g. [linux-x86-64, nvidia-h200]")
    if len(set(value)) != len(value):
        raise ValueError("names a testbed twice")
    return tuple(value)


def _units(value: object) -> UnitTable:
    """`units:` -> the unit table: the built-in units and the project's own (ownunits.py), built once; a bad
    entry names itself and its line."""
    if not isinstance(value, dict):
        raise ValueError("must be a mapping of unit names to {dimension, scale, prefixes}")
    found, problems = ownunits.read_each(value.items())
    if problems:  # the sound entries are kept: a bad one drops itself alone
        lines = getattr(value, "key_lines", {})
        raise Partial(found, [AtLine(str(error), lines.get(error.name, 0), error.fix) for error in problems])
    return found


class Partial(ValueError):
    """An option whose sound part is kept (`value`) while each bad part is a finding at its own line."""

    def __init__(self, value: object, problems: list[AtLine]) -> None:
        super().__init__(str(problems[0]))
        self.value, self.problems = value, problems


class AtLine(ValueError):
    """A bad value inside an option, at its own line of mkdocs.yml (0: the option's line), with its fix."""

    def __init__(self, problem: str, line: int, fix: str) -> None:
        super().__init__(problem)
        self.line, self.fix = line, fix


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= 86_400:
        raise ValueError(f"must be a number of seconds from 1 to 86,400, got {str(value)[:40]}")
    return float(value)


def _retired(value: object) -> tuple[tuple[str, str], ...]:
    """`retired_runs:` -> (run folder, why) pairs: a run deleted after it was published, and the reason."""
    if not isinstance(value, list):
        raise ValueError("must be a list of {run: measurements/PROBE/RUN, reason: why it was deleted}")
    found = []
    for number, item in enumerate(value, start=1):
        if not isinstance(item, dict) or set(item) != {"run", "reason"}:
            raise ValueError(f"entry {number} must be a mapping with exactly `run` and `reason`")
        run, reason = item["run"], item["reason"]
        if not _inside_path(run) or str(run).count("/") < 2:
            raise ValueError(f"entry {number}: `run` must be a run folder, measurements/PROBE/RUN")
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"entry {number}: `reason` must say why the run was deleted (the site shows it)")
        found.append((str(run).rstrip("/"), " ".join(reason.split())))
    return tuple(found)


def _surfaces(value: object) -> tuple[str, ...]:
    """`surfaces:` -> Markdown and text files outside docs/ that the prose rules read (prose/surfaces.py)."""
    if not isinstance(value, list) or not all(_inside_path(path) for path in value):
        raise ValueError("must be a list of file paths inside the repository, e.g. [README.md, llms.txt]")
    if len(set(value)) != len(value):
        raise ValueError("names a file twice")
    return tuple(value)


def _inside_path(path: object) -> bool:
    return isinstance(path, str) and bool(path) and not path.startswith("/") and ".." not in path.split("/")


OPTIONS = (
    Option("max_run_age_days", (int,), "runs older than this many days fail the gate (too-old)", _positive_whole, 365),
    Option(
        "default_tolerance",
        (str, int, float),
        "allowed |stated - computed| when a claim sets no `tolerance`: 'precision' (half a unit of the stated "
        "last digit), a number, or a percentage up to 50%; a claim's tolerance is also held to max_tolerance",
        _tolerance,
        "precision",
    ),
    Option(
        "check_tolerance",
        (str,),
        "how far a same-quantity check (`checked_by: [id]`) may differ from the claim it checks, when the claim "
        "sets no `tolerance`, before the round spread widens it: a percentage up to 50%",
        _percentage,
        "10%",
    ),
    Option(
        "max_tolerance",
        (str,),
        "the largest tolerance a claim may have, as a share of max(|stated|, |computed|): a percentage up to 50%",
        _percentage,
        "50%",
    ),
    Option(
        "max_check_factor",
        (int, float),
        "the widest `within Nx` check that still agrees with the claim (a wider one only bounds it): "
        f"a number from 1 to {MAX_FACTOR:g}",
        _factor,
        2.0,
    ),
    Option(
        "warn",
        (list,),
        "rules reported as warnings instead of failures, e.g. [too-old]; or instead of notes, [insufficient-data]",
        _rules,
        [],
    ),
    Option(
        "fail",
        (list,),
        "rules that warn or note by default reported as failures instead, e.g. [moved-since-cited] (it wins over "
        "`warn`)",
        _failing,
        [],
    ),
    Option("max_claim_file_bytes", (int,), "largest claim file the gate reads", _positive_whole, 4 * 1024 * 1024),
    Option(
        "max_input_bytes",
        (int,),
        "the most the gate reads in one check, every file together; a file past it is refused with a finding",
        _input_bytes,
        4 * 1024**3,
    ),
    Option("claims_dir", (str,), "folder of claim files, relative to mkdocs.yml", _folder, "claims"),
    Option("measurements_dir", (str,), "folder of measurement runs, relative to mkdocs.yml", _folder, "measurements"),
    Option(
        "probes_dir",
        (str,),
        "folder of the probes' source, relative to mkdocs.yml (code hashes cover it)",
        _folder,
        "probes",
    ),
    Option(
        "probes",
        (list,),
        "the probes `ledger measure` runs, each in its own process: a list of {name, command, code, env, build, "
        "replicates, manual, tool}; the command may use {python} {profile} {testbed} {root} {out} (a folder to fill "
        "with CSVs), {build} (where `build` put the binary) and, with `tool`, {export} (where the benchmark tool "
        "writes its export); replicates: runs of it per `ledger measure` (default 1); manual: true runs it only when "
        f"named; tool: {', '.join(TOOLS)}",
        _probes,
        [],
    ),
    Option(
        "testbeds",
        (list,),
        "the testbeds the fleet's measure workflow measures on, each a self-hosted runner's label "
        "(`ledger measure --matrix`; guide/fleet.md)",
        _testbeds,
        [],
    ),
    Option(
        "units",
        (dict,),
        "the project's own units and counted things, each NAME: {dimension, scale, prefixes}: a dimension "
        "is a known unit (scale: how many of it one NAME is) or NAME itself (a new counted thing); "
        "`prefixes: si` adds kNAME, MNAME, ... (guide/checks.md#units)",
        _units,
        {},
    ),
    Option(
        "asserts_level",
        (str,),
        "the least coverage an interval needs for an `asserts:` relation to hold on it: a narrower interval of "
        "lower coverage (few rounds, many inputs) holds nothing (not-significant, naming the rounds it needs)",
        _level,
        "95%",
    ),
    Option(
        "min_replicates",
        (int,),
        "replicate runs (fresh processes, `ledger measure --replicates N`) a claim with `asserts:` must rest on; "
        "fewer is few-replicates (1: one run is enough)",
        _replicates,
        1,
    ),
    Option(
        "surfaces",
        (list,),
        "Markdown and text files outside docs/ (README.md, llms.txt) read with the prose rules; a claim's value "
        "stands in one between <!-- ledger: ID --> and <!-- /ledger --> (guide/surfaces.md)",
        _surfaces,
        [],
    ),
    Option(
        "retired_runs",
        (list,),
        "runs deleted after they were published, each {run, reason}: publish refuses a published run that is "
        "gone unless it is listed here, and the site shows the reason (guide/review.md)",
        _retired,
        [],
    ),
    Option(
        "max_render_seconds",
        (int, float),
        "the most seconds one check spends rendering pages with Python-Markdown, every page together (each "
        "page also has its own budget); a page past it is invalid, named: a number from 1 to 86,400",
        _seconds,
        300,
    ),
)
OPTION_NAMES = tuple(option.name for option in OPTIONS)
# A project that sets nothing: each row's default through its own parser (so the two cannot disagree).
DEFAULTS = Policy(**{option.name: option.parse(option.default) for option in OPTIONS})  # type: ignore[arg-type]


# Settings that, changed at all, change what the gate reads or what a unit means: a weaker gate
# whichever way they move (a docs_dir that holds no page scans no figure).
_READS = ("claims_dir", "measurements_dir", "probes_dir", "units")
_LARGER_IS_LOOSER = ("max_run_age_days", "max_check_factor")
_TOLERANCES = ("default_tolerance", "check_tolerance", "max_tolerance")


def weakened(base: Policy, head: Policy) -> list[tuple[str, str]]:
    """(option, why) for each setting whose change lets something pass that failed at base."""
    found = []
    ranks = {"fail": 2, "warn": 1, "note": 0}
    softer = sorted(rule for rule in RULES if ranks[head.severity(rule)] < ranks[base.severity(rule)])
    if softer:
        now = "warn" if all(head.severity(rule) == "warn" for rule in softer) else "warn or note"
        found.append(("warn" if softer[0] in head.warn else "fail", f"{', '.join(softer)} now only {now}"))
    for name in _LARGER_IS_LOOSER:
        if getattr(head, name) > getattr(base, name):
            found.append(
                (name, f"{_shown(getattr(base, name))} → {_shown(getattr(head, name))}: passes more than at the base")
            )
    for name in _TOLERANCES:
        old, new = getattr(base, name), getattr(head, name)
        looser = (old.text == "precision" and new.text != "precision") or (
            new.text != "precision" and (new.relative > old.relative or new.absolute > old.absolute)
        )
        if looser:
            found.append((name, f"{old.text} → {new.text}: a wider tolerance passes a value that drifted"))
    for name in _READS:
        if _shown(getattr(base, name)) != _shown(getattr(head, name)):
            found.append((name, "changes what the gate reads, or what a unit means"))
    if set(base.surfaces) - set(head.surfaces):
        found.append(("surfaces", f"no longer read: {', '.join(sorted(set(base.surfaces) - set(head.surfaces)))}"))
    if set(head.retired_runs) - set(base.retired_runs):
        found.append(("retired_runs", "a published run may now be gone: read why"))
    return found


def shown_settings(policy: Policy) -> dict[str, str]:
    """Every option's value as a reviewer reads it, in the table's order (`ledger diff` compares these)."""
    return {option.name: _shown(getattr(policy, option.name)) for option in OPTIONS}


def _shown(value: object) -> str:
    if isinstance(value, frozenset):
        return ", ".join(sorted(value)) or "none"
    if isinstance(value, Tolerance):
        return value.text
    if isinstance(value, float) and 0 < value < 1:  # a level
        return f"{100 * value:g}%"
    if isinstance(value, UnitTable):
        return ownunits.shown(value)
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):  # retired runs
        return "; ".join(f"{run} ({why})" for run, why in value)
    if isinstance(value, tuple):  # probes, testbeds
        return "; ".join(_probe_text(item) if isinstance(item, ProbeSpec) else str(item) for item in value) or "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _probe_text(spec: ProbeSpec) -> str:
    code = f", code {' '.join(spec.code)}" if spec.code else ""
    env = f", env {' '.join(f'{k}={v}' for k, v in spec.env)}" if spec.env else ""
    replicates = f", {spec.replicates} replicates" if spec.replicates != 1 else ""
    manual = ", when named" if spec.manual else ""
    tool = f", tool {spec.tool}" if spec.tool else ""
    return f"{spec.name}: {spec.command}{code}{env}{replicates}{manual}{tool}"


def policy_from_options(
    options: dict, docs_dir: str = "docs", where: str = "mkdocs.yml", lines: dict | None = None, line: int = 0
) -> Policy:
    """Validate the plugin's options (None means 'use the default') and build the Policy.

    A bad value is a finding on mkdocs.yml at its line (the option keeps its default), so the gate
    lists it with every other problem instead of stopping.
    """
    by_name = {option.name: option for option in OPTIONS}
    settings: dict = {"docs_dir": docs_dir}
    problems = []
    for key, value in options.items():
        if value is None:
            continue
        at = Source(where, (lines or {}).get(key, line))
        if key not in by_name:
            fix = f"options are: {', '.join(OPTION_NAMES)}"
            problems.append(("", Finding(at, "", "invalid", f"unknown ledger option {key!r}", fix)))
            continue
        try:
            settings[key] = by_name[key].parse(value)
        except Partial as partial:
            settings[key] = partial.value
            for error in partial.problems:
                place = Source(where, error.line or at.line)
                problems.append((key, Finding(place, "", "invalid", f"ledger option {key}: {error}", error.fix)))
        except (ValueError, OverflowError) as error:
            fix = f"fix `{key}:` under the ledger plugin (default: {_shown(getattr(DEFAULTS, key))})"
            if isinstance(error, AtLine):
                at, fix = Source(where, error.line or at.line), error.fix
            problems.append((key, Finding(at, "", "invalid", f"ledger option {key}: {error}", fix)))
    return replace(DEFAULTS, **settings, problems=tuple(problems))


def read_policy(config_file: Path) -> Policy:
    """The policy from mkdocs.yml's `plugins: - ledger: {...}` entry (defaults if there is none)."""
    return policy_of(read_config(config_file), config_file.name)


def read_config(config_file: Path) -> mkdocs_yml.Composed:
    """The configuration as MkDocs composes it; LedgerError, naming the file, where it is missing or unreadable."""
    name = config_file.name
    if not config_file.exists():
        raise LedgerError(f"{config_file}: not found; run from the project root or pass --config")
    # Compose only: mkdocs.yml may carry !!python/name tags that we must neither run nor reject. Read as MkDocs
    # composes it: the files it inherits (INHERIT) merged in, so the policy is the one the build uses.
    try:
        found = mkdocs_yml.composed(config_file)
    except mkdocs_yml.Malformed as problem:
        raise LedgerError(f"{name}: {problem}") from None
    if found is None:
        raise LedgerError(f"{name}: expected a mapping at the top level")
    return found


def policy_of(found: mkdocs_yml.Composed, name: str) -> Policy:
    """The policy a composed configuration (its file named `name`) declares: the ledger plugin's options
    (the defaults where it lists none) and the site settings the gate reads."""
    top = found.top
    docs_dir = top["docs_dir"].value if isinstance(top.get("docs_dir"), yaml.ScalarNode) else "docs"
    site = site_settings(found, name)
    options_node = plugin_options(top)
    if options_node is None:
        return replace(DEFAULTS, docs_dir=docs_dir, **site)
    file = options_node.start_mark.name  # mkdocs.yml, or the file it inherits the plugin's entry from
    where = f"{file}:{options_node.start_mark.line + 1}"
    try:
        options = yamlread.build(options_node)
    except yamlread.YamlProblem as problem:
        raise LedgerError(f"{file}:{problem.line}: {problem.message}") from None
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise LedgerError(f"{where}: the ledger plugin's options must be a mapping")
    lines = dict(getattr(options, "key_lines", {}))
    return replace(policy_from_options(dict(options), docs_dir, file, lines, options_node.start_mark.line + 1), **site)


def config_file(root: Path, config: Path | None) -> Path:
    """The file holding the policy: --config when given, else mkdocs.yml under root."""
    return config or root / "mkdocs.yml"


def plugin_options(top: dict[str, yaml.Node]) -> yaml.Node | None:
    """The ledger plugin's entry under `plugins:` of the top-level nodes (a null node where it has no
    options); None where the configuration does not list the plugin."""
    plugins, entries = top.get("plugins"), []
    if isinstance(plugins, yaml.SequenceNode):
        for item in plugins.value:
            if isinstance(item, yaml.ScalarNode) and item.value == PLUGIN:
                return yaml.ScalarNode("tag:yaml.org,2002:null", "", item.start_mark, item.end_mark)
            if isinstance(item, yaml.MappingNode):
                entries += item.value
    elif isinstance(plugins, yaml.MappingNode):
        entries = plugins.value
    for key, value in entries:
        if isinstance(key, yaml.ScalarNode) and key.value == PLUGIN:
            return value
    return None
