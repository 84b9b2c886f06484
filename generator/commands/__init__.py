"""The verbs: one module per `ledger` verb (setup_arguments + run_from_args), and `ledger init`'s helpers."""
