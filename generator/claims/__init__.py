"""Claims: raw claim files -> validated Claims (fields, kinds, formulas grounded in their inputs, lineage)."""
