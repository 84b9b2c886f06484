"""`python -m generator` is `ledger` (Debian's unrelated `ledger` tool can come first on a PATH)."""

import sys

from .cli import main

sys.exit(main())
