"""Policy: the plugin's settings in mkdocs.yml -> a Policy, read the same way by the CLI and the build."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from . import yamlread
from .load import Unreadable, read_capped
from .records import Finding, LedgerError, Policy, ProbeSpec, Source
from .rules import WARNABLE
from .values import parse_tolerance

PLUGIN = "ledger"
MAX_CONFIG_BYTES = 1 << 20


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
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0 or value > 10**9:
        raise ValueError(f"must be a positive whole number up to 1,000,000,000, got {str(value)[:40]}")
    return value


def _input_bytes(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 << 20 <= value <= 1 << 40:
        raise ValueError(f"must be a whole number of bytes from 1 MiB to 1 TiB, got {str(value)[:40]}")
    return value


def _tolerance(value: object) -> str:
    try:
        parse_tolerance(value)
    except ValueError as error:
        raise ValueError(f"{value!r} {error}") from None
    return str(value)


def _check_tolerance(value: object) -> str:
    text = _tolerance(value)
    if text.strip() == "precision":
        raise ValueError("'precision' is for a stated value against its own evidence; write a percentage like '10%'")
    return text


def _percentage(value: object) -> str:
    text = str(value).strip() if isinstance(value, str) else ""
    try:
        tolerance = parse_tolerance(text)
    except ValueError:
        tolerance = None
    if tolerance is None or not text.endswith("%") or not 0 < tolerance.relative:
        raise ValueError(f"must be a percentage above 0 like '50%', got {value!r}")
    return text


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
    Option(
        "check_tolerance",
        (str, int, float),
        "how far a same-quantity check (`checked_by: [id]`) may differ from the claim it checks, when the claim "
        "sets no `tolerance`, before the round spread widens it (default 10%)",
        _check_tolerance,
    ),
    Option(
        "max_tolerance",
        (str,),
        "the largest tolerance a claim may set for itself, as a share of its value (default 50%)",
        _percentage,
    ),
    Option("warn", (list,), "rules reported as warnings instead of failures, e.g. [too-old]", _rules),
    Option("max_claim_file_bytes", (int,), "largest claim file the gate reads", _positive_whole),
    Option(
        "max_input_bytes",
        (int,),
        "the most the gate reads in one check, every file together (default 4 GiB); a file past it is "
        "refused with a finding",
        _input_bytes,
    ),
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
            problems.append(
                Finding(at, "", "invalid", f"unknown ledger option {key!r}", f"options are: {', '.join(OPTION_NAMES)}")
            )
            continue
        try:
            settings[key] = by_name[key].parse(value)
        except (ValueError, OverflowError) as error:
            problems.append(
                Finding(
                    at,
                    "",
                    "invalid",
                    f"ledger option {key}: {error}",
                    f"fix `{key}:` under the ledger plugin (default: {by_name[key].default})",
                )
            )
    return Policy(**settings, problems=tuple(problems))


def read_policy(config_file: Path) -> Policy:
    """The policy from mkdocs.yml's `plugins: - ledger: {...}` entry (defaults if there is none)."""
    name = config_file.name
    if not config_file.exists():
        raise LedgerError(f"{config_file}: not found; run from the project root or pass --config")
    try:
        text = read_capped(config_file, MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
    except Unreadable as problem:
        raise LedgerError(f"{name}: {problem}") from None
    # Compose only: mkdocs.yml may carry !!python/name tags that we must neither run nor reject.
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        raise LedgerError(f"{name}: malformed YAML: {error}") from None
    except RecursionError:
        raise LedgerError(f"{name}: nested too deeply to read; flatten it") from None
    if not isinstance(node, yaml.MappingNode):
        raise LedgerError(f"{name}: expected a mapping at the top level")
    top = {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}
    docs_dir = top["docs_dir"].value if isinstance(top.get("docs_dir"), yaml.ScalarNode) else "docs"
    site = site_settings(top, name)
    options_node = _plugin_options(top.get("plugins"))
    if options_node is None:
        return replace(Policy(docs_dir=docs_dir), **site)
    where = f"{name}:{options_node.start_mark.line + 1}"
    try:
        options = yamlread.build(options_node)
    except yamlread.YamlProblem as problem:
        raise LedgerError(f"{name}:{problem.line}: {problem.message}") from None
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise LedgerError(f"{where}: the ledger plugin's options must be a mapping")
    lines = dict(getattr(options, "key_lines", {}))
    return replace(policy_from_options(dict(options), docs_dir, name, lines, options_node.start_mark.line + 1), **site)


# What MkDocs shows on every page from mkdocs.yml: scanned for typed figures like page prose.
SITE_TEXT_KEYS = ("site_name", "site_description", "site_author", "copyright", "nav", "theme", "extra")


def read_site(config_file: Path) -> dict:
    """The Policy fields read from the rest of mkdocs.yml (for the plugin, which gets options from MkDocs)."""
    try:
        text = read_capped(config_file, MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except (Unreadable, yaml.YAMLError, RecursionError):
        return {"config_path": config_file.name}
    top = {}
    if isinstance(node, yaml.MappingNode):
        top = {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}
    return site_settings(top, config_file.name)


def site_settings(top: dict, name: str) -> dict:
    """config_path, markdown_extensions and site_texts from mkdocs.yml's top-level nodes."""
    texts: list[tuple[int, int, str]] = []
    for key in SITE_TEXT_KEYS:
        if key in top:
            _texts(top[key], texts, titles_only=key == "nav")
    return {
        "config_path": name,
        "markdown_extensions": _extensions(top.get("markdown_extensions")),
        "site_texts": tuple(texts),
    }


def _texts(node: yaml.Node, found: list, titles_only: bool, depth: int = 0) -> None:
    """Every text scalar under node (for nav, only the titles: mapping keys), with its line and column."""
    if depth > 32:
        return
    if isinstance(node, yaml.ScalarNode):
        if not titles_only and node.tag == "tag:yaml.org,2002:str" and node.value:
            quoted = 1 if node.style in ("'", '"') else 0
            found.append((node.start_mark.line + 1, node.start_mark.column + quoted, node.value))
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _texts(item, found, titles_only, depth + 1)
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if titles_only:
                _texts(key, found, False, depth + 1)
            _texts(value, found, titles_only, depth + 1)


def _extensions(node: yaml.Node | None) -> tuple[tuple[str, str], ...]:
    """markdown_extensions as (name, options as JSON); options that name Python objects are dropped."""
    entries: list[tuple[yaml.Node, yaml.Node | None]] = []
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.ScalarNode):
                entries.append((item, None))
            elif isinstance(item, yaml.MappingNode):
                entries += item.value
    elif isinstance(node, yaml.MappingNode):
        entries = list(node.value)
    found = []
    for key, value in entries:
        if not isinstance(key, yaml.ScalarNode):
            continue
        options = _plain(value) if value is not None else None
        found.append((key.value, json.dumps(options if isinstance(options, dict) else {}, sort_keys=True)))
    return tuple(found)


def _plain(node: yaml.Node, depth: int = 0) -> object:
    """A node's value built from YAML's own scalar types only; anything tagged otherwise is None."""
    if depth > 32:
        return None
    if isinstance(node, yaml.MappingNode):
        built = {}
        for key, value in node.value:
            plain = _plain(value, depth + 1)
            if isinstance(key, yaml.ScalarNode) and plain is not None:
                built[key.value] = plain
        return built
    if isinstance(node, yaml.SequenceNode):
        return [item for item in (_plain(v, depth + 1) for v in node.value) if item is not None]
    if isinstance(node, yaml.ScalarNode) and node.tag.startswith("tag:yaml.org,2002:"):
        try:
            return yaml.constructor.SafeConstructor().construct_object(node)
        except (yaml.YAMLError, ValueError):
            return None
    return None


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
