"""Inspect entry point: the ``actloop`` model API and one task per installed suite.

Inspect resolves ``--model actloop/<name>`` by the provider name ``actloop`` and ``inspect eval
actloop/<suite>`` by the task's registered name, loading this module through the ``inspect_ai`` entry
point declared in ``pyproject.toml``.
"""

from inspect_ai.model import ModelAPI, modelapi

from actloop.agent.task import suite_task
from actloop.core.suite import suites


@modelapi(name="actloop")
def actloop() -> type[ModelAPI]:
    from actloop.agent.backend import ActloopModelAPI

    return ActloopModelAPI


for _name in suites():
    globals()[_name] = suite_task(_name)
