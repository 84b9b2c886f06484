"""Runs' trust: a manifest's shape, each run's state (intact, tampered, rewritten, too old), what a site records."""
