"""vabench/tasks."""
