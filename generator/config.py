"""Policy: the plugin's settings in mkdocs.yml -> a Policy, read the same way by the CLI and the build."""

from __future__ import annotations

from pathlib import Path

import yaml

from . import yamlread
from .records import RULES, LedgerError, Policy
from .validate import parse_tolerance

PLUGIN = "ledger"
OPTIONS = ("max_run_age_days", "default_tolerance", "warn", "max_claim_file_bytes", "claims_dir",
           "measurements_dir")


def policy_from_options(options: dict, docs_dir: str = "docs", where: str = "mkdocs.yml") -> Policy:
    """Validate the plugin's options (None means 'use the default') and build the Policy."""
    settings: dict = {"docs_dir": docs_dir}
    for key, value in options.items():
        if value is None:
            continue
        if key not in OPTIONS:
            raise LedgerError(f"{where}: unknown ledger option {key!r}; options are: {', '.join(OPTIONS)}")
        if key in ("max_run_age_days", "max_claim_file_bytes"):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise LedgerError(f"{where}: ledger option {key} must be a positive whole number, got {value!r}")
        elif key == "default_tolerance":
            try:
                parse_tolerance(value)
            except ValueError as error:
                raise LedgerError(f"{where}: ledger option default_tolerance {value!r} {error}") from None
            value = str(value)
        elif key == "warn":
            if not isinstance(value, list) or not all(isinstance(rule, str) for rule in value):
                raise LedgerError(f"{where}: ledger option warn must be a list of rule names")
            for rule in value:
                if rule not in RULES or rule == "invalid":
                    allowed = ", ".join(r for r in RULES if r != "invalid")
                    raise LedgerError(f"{where}: ledger option warn: {rule!r} cannot warn; "
                                      f"rules that can: {allowed}")
            value = frozenset(value)
        elif not isinstance(value, str) or not value or value.startswith("/") or ".." in value:
            raise LedgerError(f"{where}: ledger option {key} must be a folder inside the repository")
        settings[key] = value
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
