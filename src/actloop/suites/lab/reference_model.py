"""``actloop/lab-reference``: the reference experimenters as a model, for runs through the whole harness.

It reads the conversation as any model does: the task card's title names the experiment. Its one program
writes the reference package into the workspace (as ``lab_reference``, importing nothing of actloop),
takes the public values from ``card.md`` and runs the experimenter against the client, inside the sandbox
like any model's program; once the program has run it ends the episode. No language model, no hidden
value: what the reference knows is the card, the client and the bench's visible layout.
"""

from __future__ import annotations

from importlib import resources

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser

from actloop.errors import ConfigError

PACKAGE = "actloop.suites.lab.reference"
WORKSPACE_PACKAGE = "lab_reference"
DONE = "The reference experimenter has run; nothing more to do."

PROGRAM = '''\
"""Run the reference experimenter of {experiment} from the workspace."""
import pathlib
import re
import sys

SOURCES = {sources!r}
package = pathlib.Path({package!r})
package.mkdir(exist_ok=True)
for name, text in SOURCES.items():
    (package / name).write_text(text)
sys.path.insert(0, ".")

from lab_client import Lab
from {package} import reference

card = pathlib.Path("card.md").read_text()
public = {{m.group(1): float(m.group(2)) for m in re.finditer(r"\\(`(\\w+)`\\): ([-+0-9.eE]+)", card)}}
lab = Lab()
try:
    print(reference({experiment!r})(lab, public))
finally:
    lab.close()
'''


def workspace_program(experiment: str) -> str:
    """A self-contained program that runs ``experiment``'s reference experimenter in a workspace."""
    sources = {}
    for entry in resources.files(PACKAGE).iterdir():
        if entry.name.endswith(".py"):
            sources[entry.name] = entry.read_text().replace(PACKAGE, WORKSPACE_PACKAGE)
    return PROGRAM.format(
        experiment=experiment, sources=dict(sorted(sources.items())), package=WORKSPACE_PACKAGE
    )


def experiment_of(card: str) -> str:
    """The experiment whose card this is, from its title line."""
    from actloop.suites.lab.experiments import experiment, experiment_keys

    titles = {f"# {experiment(key).spec.title}": key for key in experiment_keys()}
    for line in card.splitlines():
        if line.strip() in titles:
            return titles[line.strip()]
    raise ConfigError("actloop/lab-reference found no lab task card in the conversation")


def lab_reference(messages: list[ChatMessage]) -> str:
    """The reply of the reference model to the conversation so far."""
    if any(isinstance(m, ChatMessageAssistant) for m in messages):
        return DONE
    text = "\n".join(m.text for m in messages if isinstance(m, ChatMessageUser))
    program = workspace_program(experiment_of(text))
    return f"```python\n{program}```\n"
