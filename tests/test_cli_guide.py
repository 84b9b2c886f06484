"""A verb is one row of cli.VERBS, one module under generator/commands/ with its own arguments and
runner, and one section of guide/cli.md naming every option and choice the parser accepts."""

import argparse
import re

import pytest
from helpers import REPO, run_ledger, write_tree

from generator.cli import VERBS, parser

COMMANDS = REPO / "generator" / "commands"
GUIDE = (REPO / "guide" / "cli.md").read_text()


def subparsers() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def section(verb: str) -> str:
    """The guide's `## ledger VERB` section, up to the next heading of its level."""
    match = re.search(rf"^## ledger {re.escape(verb)}\n(.*?)(?=^## |\Z)", GUIDE, re.M | re.S)
    assert match, f"guide/cli.md has no `## ledger {verb}` section"
    return match.group(1)


@pytest.mark.parametrize("verb", VERBS, ids=lambda verb: verb.name)
def test_every_verb_has_a_module_with_its_arguments_and_runner(verb):
    module = verb.load()
    assert callable(module.setup_arguments) and callable(module.run_from_args)


def test_every_module_with_a_runner_is_a_row_of_the_verb_table():
    runners = {
        f"generator.commands.{path.stem}" for path in COMMANDS.glob("*.py") if "def run_from_args(" in path.read_text()
    }
    assert runners == {verb.module for verb in VERBS}


def test_the_commands_folder_holds_the_verbs_and_inits_helpers_only():
    """The machinery behind a verb lives in a folder named for what it is (review/, verify/), not here."""
    others = {path.name for path in COMMANDS.glob("*.py") if "def run_from_args(" not in path.read_text()}
    assert others == {"__init__.py", "adopt.py", "initfiles.py"}  # adopt and initfiles: `ledger init`'s own


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_the_cli_guide_names_every_option_and_choice_of_every_verb(verb):
    text = section(verb)
    missing = []
    for action in subparsers()[verb]._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        names = action.option_strings or [action.metavar or action.dest.upper()]
        if not any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) for name in names):
            missing.append("/".join(names))
        missing += [f"{names[0]} {choice}" for choice in action.choices or () if not re.search(rf"\b{choice}\b", text)]
    assert missing == []


def test_the_cli_guide_names_the_options_every_verb_takes():
    intro = GUIDE.split("\n## ")[0]
    assert "--root" in intro and "--config" in intro


def test_help_for_one_verb_lists_its_arguments_and_every_verb(tmp_path):
    result = run_ledger("diff", "--help", cwd=tmp_path)
    assert result.exit_code == 0 and "--format {markdown,json}" in result.output
    result = run_ledger("--help", cwd=tmp_path)
    assert all(verb.name in result.output for verb in VERBS)


def test_a_verb_runs_with_the_collector_off_and_put_back_as_it_was(tmp_path, monkeypatch):
    import gc

    from generator import cli
    from generator.commands import schema

    seen = []
    monkeypatch.setattr(schema, "run_from_args", lambda args: seen.append(gc.isenabled()) or 0)
    was_on = gc.isenabled()
    try:
        gc.enable()
        assert cli.main(["schema"]) == 0
        assert seen == [False] and gc.isenabled()
        with pytest.raises(SystemExit):
            cli.main(["schema", "--no-such-option"])
        assert gc.isenabled()
        write_tree(
            tmp_path,
            {"claims/a.yaml": "claims:\n  - id: a\n    kind: borrowed\n    status: lead\n    source: {title: x}\n"},
        )
        assert cli.main(["--root", str(tmp_path), "check", "--no-cache"]) == 0  # no verb turns it off for good
        assert gc.isenabled()
        gc.disable()
        assert cli.main(["schema"]) == 0 and not gc.isenabled()  # off before: off after
    finally:
        (gc.enable if was_on else gc.disable)()


def test_no_young_collection_after_a_verb_walks_what_the_verb_kept(monkeypatch):
    """With the collector off, all a verb keeps sits in the youngest generation; the first collection after it
    would walk every object (collector.py): they go to the oldest unwalked. Objects frozen before stay frozen."""
    import gc

    from generator import cli
    from generator.commands import schema

    kept: list[list[int]] = []
    monkeypatch.setattr(schema, "run_from_args", lambda args: kept.extend([i] for i in range(100_000)) or 0)
    walked: list[int] = []

    def young(phase, info):  # how many objects a collection of the young generations is about to walk
        if phase == "start" and info["generation"] < 2:
            walked.append(sum(len(gc.get_objects(generation)) for generation in range(info["generation"] + 1)))

    was_on = gc.isenabled()
    gc.enable()
    gc.callbacks.append(young)
    try:
        assert cli.main(["schema"]) == 0
        assert len(kept) == 100_000 and gc.isenabled()
        [[] for _ in range(2_000)]  # allocations past the young threshold: a young collection runs
        assert walked and max(walked) < 50_000, walked
        gc.freeze()
        frozen = gc.get_freeze_count()
        assert cli.main(["schema"]) == 0
        assert gc.get_freeze_count() == frozen  # not thawed by the verb
    finally:
        gc.callbacks.remove(young)
        gc.unfreeze()
        (gc.enable if was_on else gc.disable)()
