"""The MkDocs plugin: runs the gate inside the build and replaces claim references in pages.

Event methods stay a few lines: the gate is gate.check(), the HTML is render.py's.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from . import render, text
from .config import policy_from_options
from .gate import check
from .records import LedgerError, Report

log = logging.getLogger("mkdocs.plugins.ledger")


class LedgerConfig(Config):
    # None means "the policy's default", so the CLI and the build share one set of defaults.
    max_run_age_days = config_options.Optional(config_options.Type(int))
    default_tolerance = config_options.Optional(config_options.Type((str, int, float)))
    warn = config_options.Optional(config_options.ListOfItems(config_options.Type(str)))
    max_claim_file_bytes = config_options.Optional(config_options.Type(int))
    claims_dir = config_options.Optional(config_options.Type(str))
    measurements_dir = config_options.Optional(config_options.Type(str))


class LedgerPlugin(BasePlugin[LedgerConfig]):
    def on_startup(self, *, command, dirty):
        self.serving = command == "serve"

    def on_config(self, config):
        self.root = Path(config.config_file_path).resolve().parent
        docs_dir = Path(config.docs_dir).resolve().relative_to(self.root).as_posix()
        try:
            self.policy = policy_from_options(dict(self.config), docs_dir)
        except LedgerError as error:
            raise PluginError(str(error)) from None
        return config

    def on_files(self, files, config):
        self.report = self._gate()
        return files

    def on_page_markdown(self, markdown, page, config, files):
        return render.replace_references(markdown, self.report, page.file.src_uri)

    def _gate(self) -> Report:
        try:
            report = check(self.root, self.policy, datetime.now(timezone.utc))
        except LedgerError as error:
            raise PluginError(str(error)) from None
        for finding in report.findings:
            (log.warning if finding.severity == "fail" else log.info)(str(finding))
        if report.failures and not getattr(self, "serving", False):
            raise PluginError(f"ledger gate failed: {text.summary(report)}")
        log.info(text.summary(report))
        return report
