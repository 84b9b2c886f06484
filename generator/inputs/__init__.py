"""What the gate reads: files (bounded), runs, pages, mkdocs.yml and its policy, git history, attributes."""
