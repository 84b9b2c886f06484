"""The commands wing: `ledger accept | diff | show` and the git reading behind `diff`."""
