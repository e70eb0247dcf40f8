"""Inspect entry point: registers the ``actloop`` model API (``actloop/baseline``, ``actloop/replay``).

Inspect resolves ``--model actloop/<name>`` by the provider name ``actloop`` and passes ``<name>`` as the
model name, loading this module through the ``inspect_ai`` entry point declared in ``pyproject.toml``.
"""

from inspect_ai.model import ModelAPI, modelapi


@modelapi(name="actloop")
def actloop() -> type[ModelAPI]:
    from actloop.agent.backend import ActloopModelAPI

    return ActloopModelAPI
