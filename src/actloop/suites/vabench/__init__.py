"""The vabench suite (VA-Bench): tabletop manipulation from an RGB demonstration, with an active camera or
five fixed views, metric Cartesian commands and physics checkers. Registered as
:class:`~actloop.suites.vabench.suite.VABench` through the ``actloop.suites`` entry point."""
