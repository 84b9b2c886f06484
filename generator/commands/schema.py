"""`ledger schema`: print the claim files' JSON Schema, as shipped in the package."""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path


def setup_arguments(parser: argparse.ArgumentParser) -> None:
    pass  # no arguments: the schema is the package's


def run_from_args(args: argparse.Namespace) -> int:
    try:
        text = resources.files("generator.schema").joinpath("claims.schema.json").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):  # a source checkout: the schema/ folder it is built from
        text = (Path(__file__).resolve().parents[2] / "schema" / "claims.schema.json").read_text(encoding="utf-8")
    sys.stdout.write(text)
    return 0
