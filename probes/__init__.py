"""MLX probes that re-measure the write-ups; each writes a measurement run through generator.runs."""
