"""Policy: the plugin's settings in mkdocs.yml -> a Policy, read the same way by the CLI and the build."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import yamlread
from .records import LedgerError, Policy, ProbeSpec
from .rules import WARNABLE
from .values import parse_tolerance

PLUGIN = "ledger"


@dataclass(frozen=True)
class Option:
    """One policy setting of the plugin in mkdocs.yml: its type, meaning and how a value is checked."""

    name: str
    types: tuple[type, ...]  # what mkdocs' config loader accepts before our own check
    help: str
    parse: Callable[[object], object]  # the value as written -> the Policy field; ValueError says why

    @property
    def default(self) -> object:
        return getattr(Policy(), self.name)


def _positive_whole(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"must be a positive whole number, got {value!r}")
    return value


def _tolerance(value: object) -> str:
    try:
        parse_tolerance(value)
    except ValueError as error:
        raise ValueError(f"{value!r} {error}") from None
    return str(value)


def _rules(value: object) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(rule, str) for rule in value):
        raise ValueError("must be a list of rule names")
    for rule in value:
        if rule not in WARNABLE:
            raise ValueError(f"{rule!r} cannot warn; rules that can: {', '.join(WARNABLE)}")
    return frozenset(value)


def _folder(value: object) -> str:
    if not isinstance(value, str) or not value or value.startswith("/") or ".." in value:
        raise ValueError("must be a folder inside the repository")
    return value


PROBE_NAME = re.compile(r"^[a-z0-9_]+$")
PROBE_KEYS = ("name", "command", "code", "env")


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
        found.append(ProbeSpec(name, command, tuple(code), tuple((str(k), str(v)) for k, v in env.items())))
    return tuple(found)


def _inside_path(path: object) -> bool:
    return isinstance(path, str) and bool(path) and not path.startswith("/") and ".." not in path.split("/")


OPTIONS = (
    Option("max_run_age_days", (int,), "runs older than this many days fail the gate (too-old)", _positive_whole),
    Option(
        "default_tolerance",
        (str, int, float),
        "allowed |stated - computed| when a claim sets no "
        "`tolerance`: 'precision' (half a unit of the stated last digit), a number, or a percentage",
        _tolerance,
    ),
    Option("warn", (list,), "rules reported as warnings instead of failures, e.g. [too-old]", _rules),
    Option("max_claim_file_bytes", (int,), "largest claim file the gate reads", _positive_whole),
    Option("claims_dir", (str,), "folder of claim files, relative to mkdocs.yml", _folder),
    Option("measurements_dir", (str,), "folder of measurement runs, relative to mkdocs.yml", _folder),
    Option(
        "probes_dir", (str,), "folder of the probes' source, relative to mkdocs.yml (code hashes cover it)", _folder
    ),
    Option(
        "probes",
        (list,),
        "the probes `ledger measure` runs, each in its own process: a list of {name, command, code, env}; "
        "the command may use {python} {profile} {testbed} {root} and {out} (a folder to fill with CSVs)",
        _probes,
    ),
)
OPTION_NAMES = tuple(option.name for option in OPTIONS)


def policy_from_options(options: dict, docs_dir: str = "docs", where: str = "mkdocs.yml") -> Policy:
    """Validate the plugin's options (None means 'use the default') and build the Policy."""
    by_name = {option.name: option for option in OPTIONS}
    settings: dict = {"docs_dir": docs_dir}
    for key, value in options.items():
        if value is None:
            continue
        if key not in by_name:
            raise LedgerError(f"{where}: unknown ledger option {key!r}; options are: {', '.join(OPTION_NAMES)}")
        try:
            settings[key] = by_name[key].parse(value)
        except ValueError as error:
            raise LedgerError(f"{where}: ledger option {key}: {error}") from None
    return Policy(**settings)


def read_policy(config_file: Path) -> Policy:
    """The policy from mkdocs.yml's `plugins: - ledger: {...}` entry (defaults if there is none)."""
    name = config_file.name
    try:
        text = config_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LedgerError(f"{config_file}: not found; run from the project root or pass --config") from None
    # Compose only: mkdocs.yml may carry !!python/name tags that we must neither run nor reject.
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise LedgerError(f"{name}: malformed YAML: {error}") from None
    if not isinstance(node, yaml.MappingNode):
        raise LedgerError(f"{name}: expected a mapping at the top level")
    top = {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}
    docs_dir = top["docs_dir"].value if isinstance(top.get("docs_dir"), yaml.ScalarNode) else "docs"
    options_node = _plugin_options(top.get("plugins"))
    if options_node is None:
        return Policy(docs_dir=docs_dir)
    where = f"{name}:{options_node.start_mark.line + 1}"
    try:
        options = yamlread.build(options_node)
    except yamlread.YamlProblem as problem:
        raise LedgerError(f"{name}:{problem.line}: {problem.message}") from None
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise LedgerError(f"{where}: the ledger plugin's options must be a mapping")
    return policy_from_options(dict(options), docs_dir, where)


def _plugin_options(plugins: yaml.Node | None) -> yaml.Node | None:
    entries = []
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
