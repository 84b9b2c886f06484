"""The pure languages of a claim: units, values, formulas, relations, statistics, YAML. No I/O."""
