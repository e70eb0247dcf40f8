"""The agent harness on Inspect AI, shared by every suite.

``task`` builds Inspect tasks (one sample per episode; one registered task per suite),
``solver.episode_solver`` runs a suite's episode driver and writes the result row, ``session`` makes and
records the model calls, ``scorer`` scores the checker's final success, ``compaction`` keeps the
conversation under the context limit, and ``_registry`` registers the ``actloop/<name>`` models
(``backend``: replay and the suites' built-in models) and the suites' tasks with Inspect.
"""
