"""Suites: each registers itself through the ``actloop.suites`` entry point."""
