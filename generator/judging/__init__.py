"""Judging: claims + runs + their states -> each claim's evaluation, checks, intervals, asserted relations, leads."""
