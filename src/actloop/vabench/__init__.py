"""vabench."""
