"""What a model step was given and what it said, from chat messages, for the run pages.

A model (``llm``) step's input is the message it answered (the last user or tool message, or
the prompt) as text, so the step signature (which reads the keys of an object input) is the
same as before; its output is its text, or ``{"text": ..., "tool_calls": [...]}`` when it also
called tools. Content blocks (OpenAI, Anthropic and Inspect shapes) are joined as text; an
image or other non-text block shows as ``[image]`` etc."""

from __future__ import annotations

import json
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


_USER_ROLES = ("user", "human")


def first_user_text(value: Any) -> str | None:
    """The first thing a user said in a model call's input, as text: the first user message
    of a chat (a list, or an object's ``messages``), an object's ``input`` text, or plain text.
    A JSON string is read first; None when the input holds no user text."""
    value = _parsed(value)
    if isinstance(value, str):
        return value if value.strip() and value != "None" else None
    if isinstance(value, dict):
        if "messages" in value:
            return first_user_text(value["messages"])
        given = value.get("input", value.get("prompt"))
        return first_user_text(given) if isinstance(given, (str, list)) else None
    if not isinstance(value, list):
        return None
    messages = [m for m in value if isinstance(m, dict)]
    for message in messages:
        role = message.get("role", message.get("type"))
        if role in _USER_ROLES or (role is None and "content" in message):
            text = _message_text(message)
            if text:
                return text
    return None


def final_text(value: Any) -> str | None:
    """A model call's answer as text, None when it only called tools: plain text, the first
    choice's message (OpenAI responses), the last assistant message of a list, or structured
    output (an object) as its JSON text."""
    parsed = _parsed(value)
    if isinstance(parsed, str):
        return parsed if parsed.strip() and parsed != "None" else None
    if isinstance(parsed, dict):
        choices = parsed.get("choices")
        if isinstance(choices, list):
            first = choices[0] if choices and isinstance(choices[0], dict) else {}
            message = first.get("message")
            message = message if isinstance(message, dict) else {}
            return content_text(message.get("content"))
        if isinstance(parsed.get("text"), str):
            return parsed["text"] or None
        if "content" in parsed and (len(parsed) <= 3 or parsed.get("role") == "assistant"):
            return content_text(parsed.get("content"))
        return value if isinstance(value, str) else json.dumps(parsed, ensure_ascii=False)
    if isinstance(parsed, list):
        for message in reversed(parsed):
            if isinstance(message, dict) and message.get("role") in (None, "assistant"):
                text = _message_text(message)
                if text:
                    return text
    return None


def _parsed(value: Any) -> Any:
    """A JSON object, array or string given as text, parsed (twice encoded: parsed again)."""
    for _ in range(3):
        if not (isinstance(value, str) and value[:1] in ("{", "[", '"')):
            break
        try:
            value = json.loads(value)
        except ValueError:
            break
    return value


def _message_text(message: dict[str, Any]) -> str | None:
    """A message's text: its ``content``, or its GenAI ``parts`` (``{type, content}``)."""
    text = content_text(message.get("content"))
    parts = message.get("parts")
    if text is None and isinstance(parts, list):
        said = [
            str(p.get("content") if p.get("content") is not None else p.get("text") or "")
            for p in parts
            if isinstance(p, dict) and p.get("type", "text") == "text"
        ]
        text = "\n\n".join(t for t in said if t) or None
    return text
