"""The user messages of an episode's conversation, and image pruning of earlier turns.

Each image sent carries a placeholder text in the message metadata; once a newer observation is sent,
older images are replaced by their placeholders, so every request carries only the current frame(s)
(plus frames the model fetched with ``camera.history`` since the last observation).
"""

from __future__ import annotations

import base64

from inspect_ai.model import ChatMessage, ChatMessageUser, Content, ContentImage, ContentText

from actloop.core.frames import Frame

PLACEHOLDERS_KEY = "actloop_image_placeholders"


def data_uri(png: bytes) -> str:
    """A ``data:image/png;base64,...`` URI for PNG bytes."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def placeholder(step: int, view: str) -> str:
    return f"[image: step {step} view {view}, omitted]"


def image_message(text: str, step: int, frames: tuple[Frame, ...]) -> ChatMessageUser:
    """A user message of ``text`` followed by ``frames`` as data-URI images."""
    content: list[Content] = [ContentText(text=text)]
    content += [ContentImage(image=data_uri(frame.png)) for frame in frames]
    return ChatMessageUser(
        content=content, metadata={PLACEHOLDERS_KEY: [placeholder(step, frame.view) for frame in frames]}
    )


def without_images(message: ChatMessage) -> ChatMessage:
    """``message`` with each image replaced by its placeholder text (unchanged if it has no images)."""
    if isinstance(message.content, str) or not any(isinstance(p, ContentImage) for p in message.content):
        return message
    labels = iter((message.metadata or {}).get(PLACEHOLDERS_KEY, []))
    content: list[Content] = [
        ContentText(text=next(labels, "[image omitted]")) if isinstance(part, ContentImage) else part
        for part in message.content
    ]
    return message.model_copy(update={"content": content})


def omit_images(messages: list[ChatMessage]) -> None:
    """Replace the images of every message in ``messages`` by placeholders, in place."""
    messages[:] = [without_images(m) for m in messages]
