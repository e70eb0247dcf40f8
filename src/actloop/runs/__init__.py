"""Runs: plans, the run matrix and resume, and running episodes through Inspect."""
