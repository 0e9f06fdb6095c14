"""An MCP server's questions during a tool call, asked of the run's people like ``human.ask``.

A 2026-07-28 server asks by answering ``tools/call`` with ``input_required``: its questions
(``elicitation/create``) and an opaque ``requestState``. No coroutine waits for the answers: each question's
field becomes a handoff (stored with the run, the state with it), the step pauses, and once every field of
the round is answered the step runs again and the call is made again with the answers (``inputResponses``)
and the state echoed back. A kill or a lost connection while people decide loses nothing: the call is not in
flight while it waits.

Typing from ``requestedSchema``: string → text, number or integer → a number, boolean → confirm, an enum →
a choice. URL mode is a link to open and a yes/no "done?" (yes: ``accept``, no: ``decline``). A person may
decline any question (a form's too): the server then gets ``decline`` for that request, at once.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from agent import human
from agent.errors import ToolError
from agent.models import Handoff
from agent.models.elicitation import Elicitation

Responses = dict[str, types.InputResponse]
DECLINED = object()
"""A field a person declined to answer: its whole request is answered ``decline``."""


def resume(server: str, given: list[Any], timeout: float | None) -> tuple[Responses | None, str | None]:
    """What to send with the call: the answers to the server's last round and its state (``(None, None)``
    for a first call). Raises :class:`human.NeedsHuman` for a field of the round not answered yet."""
    replies = [a for a in given if isinstance(a, dict) and "elicitation" in a]
    if not replies:
        return None, None
    last = Elicitation.model_validate(replies[-1]["elicitation"])
    got: dict[tuple[str, str], Any] = {}
    for reply in reversed(replies):  # the trailing answers to the same round
        asked = Elicitation.model_validate(reply["elicitation"])
        if asked.state != last.state or asked.requests != last.requests:
            break
        got.setdefault((asked.key, asked.field or ""), DECLINED if reply.get("declined") else reply["value"])
    ask_next(server, last.state, last.requests, got, len(given), timeout)
    return {key: _response(params, key, got) for key, params in last.requests.items()}, last.state


def ask_next(
    server: str,
    state: str | None,
    requests: dict[str, dict[str, Any]],
    got: dict[tuple[str, str], Any],
    call: int,
    timeout: float | None,
) -> None:
    """Raise :class:`human.NeedsHuman` for the round's first field not answered yet; return if none is left."""
    declined = {key for (key, _), value in got.items() if value is DECLINED}
    for key, params in requests.items():
        for field, prop in _fields(params):
            if key in declined or (key, field) in got:
                continue
            asked = Elicitation(
                server=server,
                key=key,
                state=state,
                mode="url" if params.get("mode") == "url" else "form",
                field=field or None,
                url=str(params["url"]) if params.get("mode") == "url" and params.get("url") else None,
                kind=str(prop.get("type", "string")),
                requests=requests,
            )
            handoff = _handoff(server, params, field, prop, asked, call)
            on_timeout: human.Strategy | None = "use_default" if handoff.default is not None else None
            raise human.NeedsHuman(handoff, assignees=[], quorum=1, timeout=timeout, on_timeout=on_timeout)


def requests_of(server: str, tool: str, result: types.InputRequiredResult) -> dict[str, dict[str, Any]]:
    """The round's elicitation requests as stored; a ToolError for anything Tandem cannot put to a person."""
    requests: dict[str, dict[str, Any]] = {}
    for key, request in (result.input_requests or {}).items():
        if not isinstance(request, types.ElicitRequest):
            raise ToolError(
                f"{tool} (MCP server {server}) asked for {request.method}, which Tandem does not answer; "
                "the call did not complete."
            )
        params = request.params.model_dump(mode="json", by_alias=True, exclude_none=True)
        for field, prop in _fields(params):
            if prop.get("type") not in ("string", "number", "integer", "boolean"):
                raise ToolError(
                    f"{tool} (MCP server {server}) asks for {field!r} as {prop.get('type', 'an untyped value')}, "
                    "which Tandem cannot ask a person yet; the call did not complete."
                )
        requests[key] = params
    if not requests:
        raise ToolError(f"{tool} (MCP server {server}) asked for input without a question; the call did not complete.")
    return requests


def stale_state(exc: BaseException) -> bool:
    """Whether ``exc`` is the server refusing the ``requestState`` sent back (expired, or sealed with a key
    it no longer has): the call did not complete."""
    data = exc.error.data if isinstance(exc, MCPError) else None
    return isinstance(data, dict) and data.get("reason") == "invalid_request_state"


def _fields(params: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    if params.get("mode") == "url":
        return [("", {"type": "boolean"})]
    schema = params.get("requestedSchema") or {}
    return [(name, prop) for name, prop in (schema.get("properties") or {}).items() if isinstance(prop, dict)]


def _choices(prop: dict[str, Any]) -> list[str]:
    if "enum" in prop:
        return [str(v) for v in prop["enum"]]
    return [str(o["const"]) for o in prop.get("oneOf", prop.get("anyOf", [])) if isinstance(o, dict) and "const" in o]


def _handoff(
    server: str, params: dict[str, Any], field: str, prop: dict[str, Any], asked: Elicitation, call: int
) -> Handoff:
    message = str(params.get("message", "")).strip()
    if asked.mode == "url":
        prompt = f"{message}\nOpen {params.get('url', '')} and finish there, then say done (yes) or decline (no)."
        return Handoff(
            prompt=prompt, input_type="confirm", reason=f"MCP server {server} asks", call=call, elicitation=asked
        )
    label = str(prop.get("title") or field)
    about = str(prop.get("description") or "")
    hint = {"integer": " (a whole number)", "number": " (a number)"}.get(asked.kind, "")
    prompt = f"{message}\n{label}{hint}" + (f": {about}" if about else "")
    options = _choices(prop)
    kind = "choice" if options else "confirm" if prop.get("type") == "boolean" else "text"
    default = prop.get("default")
    return Handoff(
        prompt=prompt,
        input_type=kind,
        options=options,
        reason=f"MCP server {server} asks",
        default=str(default) if options and default is not None else default,
        max_length=int(prop.get("maxLength", 3000)),
        call=call,
        elicitation=asked,
    )


def _response(params: dict[str, Any], key: str, got: dict[tuple[str, str], Any]) -> types.ElicitResult:
    if any(value is DECLINED for (asked, _), value in got.items() if asked == key):
        return types.ElicitResult(action="decline")
    if params.get("mode") == "url":
        return types.ElicitResult(action="accept" if got[(key, "")] is True else "decline")
    return types.ElicitResult(action="accept", content={field: got[(key, field)] for field, _ in _fields(params)})
