"""The agent harness on Inspect AI.

``task.vabench_task`` builds the Inspect task (one sample per episode), ``solver.episode_solver`` runs
the decision loop of ``episode``, ``scorer.episode_scorer`` scores the checker's final success,
``run.evaluate`` runs a list of episodes, and ``_registry`` registers the built-in ``actloop/baseline``
and ``actloop/replay`` models (``backend``).
"""
