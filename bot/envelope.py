"""Reading a Slack HTTP request body before Bolt does (pure: no I/O).

Slack sends three shapes to ``/slack/events``: JSON (Events API, URL verification), a form
with one ``payload`` field holding JSON (interactions), and a plain form (slash commands,
``ssl_check``). :func:`read_body` tells them apart by their fields, where Bolt's own parser
looks for the *substring* ``payload`` anywhere in a form: it reads ``/tandem check the payload
limits`` as an interaction with no payload, which then reaches no listener.

:func:`check_envelope` then makes sure the fields Bolt itself reads while routing a request
(``slack_bolt.request.internals``, ``payload_utils``, its built-in middleware) have the types
it assumes, so nothing a signed body holds can raise inside Bolt. Tandem's own listeners parse
the rest (:mod:`bot.payloads`). Anything refused here raises :class:`BadRequest` with a short
reason, answered with HTTP 400.
"""

from __future__ import annotations

import codecs
import json
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from bot.payloads import describe

MAX_DEPTH = 64
"""Slack payloads nest a dozen levels at most (rich text in blocks in a view); deeper is junk."""
MAX_CONTAINERS = 20_000
"""Objects and arrays in one body (counted as ``{`` and ``[`` characters, strings included). A
large view or message holds a few thousand. The cap bounds what one ``json.loads`` costs, which
holds the GIL throughout, even in a worker thread: a few ms at the cap, where 800 kB of small
arrays took 60 ms on a loaded machine."""

PAYLOAD = "payload="

Body = dict[str, Any]
Ref = str | dict[str, Any] | None
"""``user``, ``channel``, ``team`` and ``enterprise``: an id, or an object with an ``id``."""


class BadRequest(ValueError):
    """A body Tandem does not read; the message says why, in a few words (it goes back in the 400)."""


def read_body(raw: bytes, content_type: str | None) -> Body:
    """The request as a dict, the way Slack meant it; see the module docstring."""
    return read_body_text(raw, content_type)[0]


def read_body_text(raw: bytes, content_type: str | None) -> tuple[Body, str | None]:
    """:func:`read_body`, with the JSON text the dict was read from (None for a slash command's form)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the body is not UTF-8 text") from None
    if not text.strip():
        raise BadRequest("the body is empty")
    media = (content_type or "").split(";")[0].strip().lower()
    if media == "application/json" or text.startswith("{"):
        return _object(text, "the body"), text
    fields = read_form(text)
    form = dict(fields)
    if len(form) != len(fields):
        raise BadRequest("a form field is given twice")
    if "payload" in form:
        if len(form) > 1:
            raise BadRequest("an interaction form carries only its `payload` field")
        return _object(form["payload"], "the `payload` field"), form["payload"]
    if "command" in form:
        return form, None
    raise BadRequest("a form that is neither a slash command nor an interaction `payload`")


def read_form(text: str) -> list[tuple[str, str]]:
    """``parse_qsl(text, keep_blank_values=True)``, ten times faster for an interaction's one ``payload=`` field.

    A click's form is ~10 kB of percent-encoded JSON; ``urllib``'s decoder takes a Python step per escape
    (~0.3 ms a click, more than the rest of an ack). Here each backslash is doubled, ``%XX`` becomes an
    ``\\xXX`` escape and C decodes the lot; what is not plain percent-encoded ASCII goes the slow way.
    """
    if text.startswith(PAYLOAD) and "&" not in text:
        value = text[len(PAYLOAD) :]
        try:
            escaped = value.encode("ascii").replace(b"\\", b"\\\\").replace(b"+", b" ").replace(b"%", b"\\x")
            return [("payload", codecs.escape_decode(escaped)[0].decode("utf-8"))]
        except (UnicodeError, ValueError):  # not ASCII, a stray "%", bytes that are not UTF-8
            pass
    return parse_qsl(text, keep_blank_values=True)


def is_ssl_check(raw: bytes) -> bool:
    """Slack's certificate check (``ssl_check=1``, a form with no team): answered with an empty 200."""
    if not raw.startswith(b"ssl_check=") and b"&ssl_check=" not in raw:
        return False
    try:
        return dict(parse_qsl(raw.decode("utf-8"))).get("ssl_check") == "1"
    except UnicodeDecodeError:
        return False


def _object(text: str, what: str) -> Body:
    if text.count("{") + text.count("[") > MAX_CONTAINERS:
        raise BadRequest(f"{what} holds more than {MAX_CONTAINERS} JSON objects and arrays")
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise BadRequest(f"{what} is nested too deeply") from None
    except ValueError as exc:
        raise BadRequest(f"{what} is not valid JSON ({str(exc).split(':')[0]})") from None
    if not isinstance(value, dict):
        raise BadRequest(f"{what} is JSON but not an object")
    if _deeper_than(value, MAX_DEPTH):
        raise BadRequest(f"{what} is nested more than {MAX_DEPTH} levels deep")
    return value


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _deeper_than(tree: dict[str, Any], limit: int) -> bool:
    """Whether what ``json.loads`` made (plain dicts and lists) has containers more than ``limit`` levels deep.

    Level by level, one list comprehension per container: an 11 kB click payload (~170 containers, 6 deep)
    takes ~50 µs on the loop, where a stack of (node, depth) pairs took ~115 µs, twice json.loads' own time."""
    level: list[Any] = [tree]
    for _ in range(limit):
        below: list[Any] = []
        for node in level:
            below += [c for c in (node.values() if type(node) is dict else node) if type(c) is dict or type(c) is list]
        if not below:
            return False
        level = below
    return True


# --- what Bolt reads ---------------------------------------------------------------------------


class ViewRef(BaseModel):
    model_config = ConfigDict(extra="allow")

    callback_id: str | None = None
    type: str | None = None
    team_id: str | None = None
    app_installed_team_id: str | None = None


class Routed(BaseModel):
    """Fields Bolt reads on every request (and on the objects it looks into for ids), typed as it assumes.

    Bolt looks for a team, user and channel id in the body, in ``event``, ``message``,
    ``previous_message``, ``item``, ``assistant_thread`` and ``authorizations[0]``; it calls
    ``.get`` on ``event`` whenever the key is there and takes ``len`` of ``response_urls``.
    Tandem runs no workflow functions: a body naming one (which would swap the bot's token for
    one from the body) is refused.
    """

    model_config = ConfigDict(extra="allow")

    user: Ref = None
    channel: Ref = None
    team: Ref = None
    enterprise: Ref = None
    team_id: str | None = None
    user_id: str | None = None
    channel_id: str | None = None
    enterprise_id: str | None = None
    thread_ts: str | None = None
    response_url: str | None = None
    response_urls: list[dict[str, Any]] | None = None
    authorizations: list[Routed] | None = None
    event: Routed | None = None
    message: Routed | None = None
    previous_message: Routed | None = None
    item: Routed | None = None
    assistant_thread: Routed | None = None
    view: ViewRef | None = None
    function_execution_id: None = None
    bot_access_token: None = None
    function_data: None = None

    @model_validator(mode="before")
    @classmethod
    def _present_means_an_object(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in ("event", "response_urls"):
                if key in data and data[key] is None:
                    raise ValueError(f"`{key}` is null")
        return data


class ActionRef(BaseModel):
    model_config = ConfigDict(extra="allow")

    action_id: str
    block_id: str | None = None


class EventRef(Routed):
    type: str


class SubmittedView(ViewRef):
    callback_id: str
    type: Literal["modal"]


class UrlVerification(Routed):
    type: Literal["url_verification"]
    challenge: str


class EventCallback(Routed):
    type: Literal["event_callback"]
    event: EventRef


class RateLimited(Routed):
    type: Literal["app_rate_limited"]


class BlockActions(Routed):
    type: Literal["block_actions"]
    actions: list[ActionRef] = Field(min_length=1)


class BlockSuggestion(Routed):
    type: Literal["block_suggestion"]
    action_id: str


class ViewSubmission(Routed):
    type: Literal["view_submission", "view_closed"]
    view: SubmittedView


class SlashCommand(Routed):
    command: str


Typed = Annotated[
    UrlVerification | EventCallback | RateLimited | BlockActions | BlockSuggestion | ViewSubmission,
    Field(discriminator="type"),
]
TYPED: TypeAdapter[Typed] = TypeAdapter(Typed)
KINDS = ("url_verification", "event_callback", "app_rate_limited", "block_actions", "block_suggestion")


def check_envelope(body: Body) -> str:
    """The request's kind (its ``type``, or ``slash_command``) once Bolt can route it without failing."""
    try:
        if "type" not in body:
            if "command" not in body:
                raise BadRequest("no `type` (nor a slash `command`)")
            SlashCommand.model_validate(body)
            return "slash_command"
        kind = body["type"]
        if not isinstance(kind, str):
            raise BadRequest("`type` is not a string")
        if kind not in (*KINDS, "view_submission", "view_closed"):
            raise BadRequest(f"Tandem does not handle `{kind[:40]}` requests")
        TYPED.validate_python(body)
    except ValidationError as exc:
        raise BadRequest(describe(exc)) from None
    return kind
