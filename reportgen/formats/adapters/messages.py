"""What a model step was given and what it said, from chat messages, for the run pages.

A model (``llm``) step's input is the message it answered (the last user or tool message, or
the prompt) as text, so the step signature (which reads the keys of an object input) is the
same as before; its output is its text, or ``{"text": ..., "tool_calls": [...]}`` when it also
called tools. Content blocks (OpenAI, Anthropic and Inspect shapes) are joined as text; an
image or other non-text block shows as ``[image]`` etc."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def content_text(content: Any, resolve: Callable[[str], str] | None = None) -> str | None:
    """The text of a message's ``content``: a string, or a list of blocks (``text``,
    ``reasoning``/``thinking``, ``tool_use``/``tool_result``, ``image``...). ``resolve`` maps an
    Inspect ``attachment://`` reference to its text. None when there is no text."""
    if content is None:
        return None
    if isinstance(content, str):
        text = resolve(content) if resolve else content
        return text or None
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return str(content)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(resolve(block) if resolve else block)
            continue
        if not isinstance(block, dict):
            continue
        kind = str(block.get("type") or "")
        value = block.get("text")
        if value is None:
            value = block.get("reasoning", block.get("thinking"))
        if value is None and kind == "tool_result":
            value = content_text(block.get("content"), resolve)
        if isinstance(value, str):
            parts.append(resolve(value) if resolve else value)
        elif kind:
            parts.append(f"[{kind}]")
    text = "\n\n".join(p for p in parts if p)
    return text or None


def last_given(messages: Sequence[Any], resolve: Callable[[str], str] | None = None) -> str | None:
    """What a model was given last: the text of the last user or tool message of ``messages``
    (a chat history sent to the model), else of the last message of any role."""
    fallback: str | None = None
    for message in reversed(messages):
        if not isinstance(message, dict):
            continue
        text = content_text(message.get("content"), resolve)
        if text is None:
            continue
        if message.get("role") in ("user", "tool", "human"):
            return text
        fallback = fallback or text
    return fallback


def said(text: str | None, tool_calls: Sequence[dict[str, Any]] = ()) -> Any:
    """A model step's output: its text, or its text and tool calls (``name``, ``arguments``)."""
    if not tool_calls:
        return text
    return {"text": text, "tool_calls": list(tool_calls)}
