"""A claim across runs: its series, the steps in it, and moved-since-cited."""
