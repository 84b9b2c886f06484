"""Evidence-tracked report generator: claims + measurement runs -> a gate and a site.

Kept free of imports so probes can use generator.runs with only the standard library.
"""

__version__ = "0.1.0"
