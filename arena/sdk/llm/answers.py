"""What the model is asked to return, and how its reply becomes a legal answer.

A reply is a JSON object: ``reason`` (a sentence or two, logged, never sent), then as the
request needs ``speech`` (what to say at the floor), ``message`` (words for the pack) and
``choice`` (one option, or a list of ``pick`` options). The schema keeps to what strict
structured-output modes accept everywhere (no length or count limits, which some refuse),
so the count of a multiple choice is stated in the prompt and checked here.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from ...protocol import MAX_TEXT_BYTES

SPEECH_LINES = 3
"""Lines at most in one turn at the floor (the protocol allows 10): a short speech is read."""
SPEECH_CHARS = 400
"""What the prompt asks a speech to stay within."""

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```(?:json)?", re.I)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Shape:
    """The fields one request asks of the model."""

    options: list[str] | None
    """The legal choices, or None when no choice is asked (a plain speech)."""
    pick: int = 1
    speech: bool = False
    message: bool = False
    heard_by: str = "everyone"
    """Who hears the speech: the model must not think a word said in range reaches all."""

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the reply (``response_format``), strict-mode compatible."""
        props: dict[str, Any] = {"reason": {"type": "string", "description": "one or two sentences: why"}}
        if self.speech:
            props["speech"] = {
                "type": "string",
                "description": f"what you say, under {SPEECH_CHARS} characters, heard by {self.heard_by}",
            }
        if self.message:
            props["message"] = {"type": "string", "description": "one short sentence to your pack"}
        if self.options is not None:
            one = {"type": "string", "enum": list(self.options)}
            if self.pick == 1:
                props["choice"] = one
            else:
                props["choice"] = {
                    "type": "array",
                    "items": one,
                    "description": f"exactly {self.pick} different options",
                }
        return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}

    def example(self) -> str:
        """The reply's form as the prompt shows it."""
        parts = ['"reason": "<one or two sentences>"']
        if self.speech:
            parts.append('"speech": "<what you say>"')
        if self.message:
            parts.append('"message": "<to your pack>"')
        if self.options is not None:
            parts.append('"choice": ' + ('"<one option>"' if self.pick == 1 else f"[<{self.pick} different options>]"))
        return "{" + ", ".join(parts) + "}"


@dataclass(frozen=True)
class Reply:
    """A reply read and checked: ``problem`` is None when it is usable as is."""

    choice: str | list[str] | None = None
    speech: str = ""
    message: str = ""
    reason: str = ""
    problem: str | None = None


def read_reply(content: str, shape: Shape) -> Reply:
    """Check a completion against ``shape``: parse its JSON object (tolerating reasoning
    blocks, code fences and text around it) and map its choice to a legal option."""
    data = extract_json(content)
    if data is None:
        bare = _strip(_THINK.sub("", content))
        if shape.options is not None and not shape.speech and not shape.message:
            choice, problem = match_choice(bare, shape.options, shape.pick)  # a bare "approve" is clear enough
            if problem is None:
                return Reply(choice=choice)
        return Reply(problem="the reply is not a JSON object")
    reason = data.get("reason")
    reply: dict[str, Any] = {"reason": reason if isinstance(reason, str) else ""}
    for key, wanted in (("speech", shape.speech), ("message", shape.message)):
        if wanted:
            value = data.get(key, "")
            if not isinstance(value, str):
                return Reply(problem=f'"{key}" must be a string')
            reply[key] = value
    if shape.options is not None:
        if "choice" not in data:
            return Reply(problem='the reply has no "choice"')
        choice, problem = match_choice(data["choice"], shape.options, shape.pick)
        if problem is not None:
            return Reply(problem=problem)
        reply["choice"] = choice
    return Reply(**reply)


def extract_json(content: str) -> dict[str, Any] | None:
    """The first JSON object in ``content``, or None."""
    text = _FENCE.sub("", _THINK.sub("", content)).strip()
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        return whole
    decoder = json.JSONDecoder()
    for at in (m.start() for m in re.finditer(r"\{", text)):
        try:
            found, _ = decoder.raw_decode(text, at)
        except ValueError:
            continue
        if isinstance(found, dict):
            return found
    return None


def match_choice(value: Any, options: list[str], pick: int) -> tuple[str | list[str] | None, str | None]:
    """``value`` as the legal option(s) it names, ignoring case, spaces, quotes and stray
    punctuation; a multiple choice may come as a list or a comma-separated string. Returns
    (choice, None) or (None, what is wrong)."""
    by_key = {_key(o): o for o in options}
    if pick == 1:
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if not isinstance(value, str):
            return None, f'"choice" must be one option, got {json.dumps(value)}'
        found = by_key.get(_key(value))
        if found is None:
            return None, f"{json.dumps(value)} is not one of the options"
        return found, None
    items = value if isinstance(value, list) else re.split(r"[,;]|\band\b", value) if isinstance(value, str) else None
    if items is None or not all(isinstance(i, str) for i in items):
        return None, f'"choice" must be a list of {pick} options'
    chosen: list[str] = []
    for item in items:
        if not _key(item):
            continue
        found = by_key.get(_key(item))
        if found is None:
            return None, f"{json.dumps(item)} is not one of the options"
        if found in chosen:
            return None, f"{json.dumps(found)} is named twice"
        chosen.append(found)
    if len(chosen) != pick:
        return None, f"choose exactly {pick} options, not {len(chosen)}"
    return chosen, None


def _strip(text: str) -> str:
    return text.strip().strip("`'\"").strip()


def _key(text: str) -> str:
    """How an option is compared: case-folded, no spaces, quotes, a leading @ or trailing
    punctuation."""
    return _strip(unicodedata.normalize("NFKC", text)).lstrip("@").rstrip(".!,;:").replace(" ", "").casefold()


def speech_lines(text: str, lines: int = SPEECH_LINES, limit: int = MAX_TEXT_BYTES) -> list[str]:
    """``text`` as at most ``lines`` chat lines of at most ``limit`` UTF-8 bytes each, cut
    between words; control characters (a line break included) become spaces, since the
    referee refuses a line with any. Text past the last line is dropped."""
    words = _SPACE.sub(" ", "".join(c if c.isprintable() else " " for c in text)).strip().split(" ")
    out: list[str] = []
    line = ""
    for word in words:
        while len(word.encode()) > limit:  # a "word" longer than a line: cut it at a character
            head = word.encode()[:limit].decode("utf-8", "ignore")
            if line:
                out.append(line)
                line = ""
            out.append(head)
            word = word[len(head) :]
        candidate = f"{line} {word}" if line else word
        if len(candidate.encode()) <= limit:
            line = candidate
        else:
            out.append(line)
            line = word
    if line:
        out.append(line)
    return out[:lines]
