"""Malformed Slack request bodies from a seed, for the edge fuzz test (pure: no I/O, no clock).

Each case starts from a body Slack could send Tandem (a ``/tandem`` command, a click on each
button, a submission of each modal, each subscribed event, URL verification) or from raw junk,
and breaks it: fields dropped or given the wrong type, huge or odd unicode strings, nested junk,
truncated JSON, ``payload=`` garbage, "payload" in a command's text, odd content types, bytes
that are not UTF-8. Cases that could start a run are always defused (no user, no channel, a
one-word text or a mention with no task), so the run checks only the edge, not the agent.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from blocks import ids
from workspace import payloads
from workspace.models import BOT_USER_ID, TEAM_ID
from workspace.state import DEMO_CHANNELS, DEMO_USERS

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
TS = "1700000000.000100"
MAX_BODY = 1024**2
"""aiohttp's default request size limit: a few cases go just past it (413)."""

Tree = Any


@dataclass(frozen=True)
class Case:
    label: str
    body: bytes
    content_type: str | None


# --- bodies Slack could send ---------------------------------------------------------------------


ALICE, OPS = DEMO_USERS[0], DEMO_CHANNELS[0]
TRIGGER, HOOK = "1.1.fuzz", "http://127.0.0.1:9/response/1"


def slash(text: str) -> dict[str, str]:
    return payloads.slash_command(
        user=ALICE, channel=OPS, command="/tandem", text=text, trigger_id=TRIGGER, response_url=HOOK
    )


def click(action_id: str, value: str) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "button", "action_id": action_id, "block_id": "b1", "value": value}
    if action_id == ids.ANSWER_SELECT:
        action = {"type": "static_select", "action_id": action_id, "block_id": "b1"}
        action["selected_option"] = {"text": {"type": "plain_text", "text": "yes"}, "value": value}
    review = {"type": "message", "ts": TS, "text": "review", "blocks": [], "user": BOT_USER_ID}
    container = {"type": "message", "message_ts": TS, "channel_id": OPS.id, "is_ephemeral": False}
    return payloads.block_actions(
        user=ALICE, container=container, action=action, trigger_id=TRIGGER, channel=OPS, message=review
    )


def submission(callback_id: str, values: dict[str, Any], meta: dict[str, str]) -> dict[str, Any]:
    view = {
        "id": "V0FUZZ",
        "type": "modal",
        "team_id": TEAM_ID,
        "callback_id": callback_id,
        "private_metadata": json.dumps(meta),
        "state": {"values": values},
        "hash": "1.fuzz",
    }
    return payloads.view_submission(user=ALICE, view=view, trigger_id=TRIGGER)


def envelope(event: dict[str, Any]) -> dict[str, Any]:
    return payloads.envelope(event, event_id="Ev0FUZZ", event_time=1700000000)


REVIEW = "r0fuzz"
ANSWER = json.dumps({"review": REVIEW, "answer": "yes"})
CLARIFY = json.dumps({"review": REVIEW, "intent": "approve", "text": "go"})


def _feedback() -> dict[str, Any]:
    values = {
        ids.FEEDBACK_BLOCK: {ids.FEEDBACK_ACTION: {"type": "plain_text_input", "value": "restart checkout"}},
        ids.INTENT_BLOCK: {ids.INTENT_ACTION: {"type": "static_select", "selected_option": {"value": "replan"}}},
    }
    return submission(ids.FEEDBACK_MODAL, values, {"review": REVIEW, "channel": OPS.id})


def _answer() -> dict[str, Any]:
    values = {ids.ANSWER_BLOCK: {ids.ANSWER_ACTION: {"type": "plain_text_input", "value": "42"}}}
    return submission(ids.ANSWER_MODAL, values, {"review": REVIEW, "channel": OPS.id})


def _message() -> dict[str, Any]:
    event = {"type": "message", "channel": OPS.id, "user": ALICE.id, "text": "looks good", "ts": "1700000001.000200"}
    return envelope({**event, "thread_ts": TS, "channel_type": "channel"})


def _mention() -> dict[str, Any]:
    text = f"<@{BOT_USER_ID}> check the payload limits on checkout"
    return envelope({"type": "app_mention", "channel": OPS.id, "user": ALICE.id, "text": text, "ts": "1700000002.1"})


def _home() -> dict[str, Any]:
    return envelope({"type": "app_home_opened", "user": ALICE.id, "channel": "D0ALICE", "tab": "home"})


def _click_on(action_id: str) -> Callable[[], dict[str, Any]]:
    answers = action_id in (ids.ANSWER, ids.ANSWER_SELECT)
    value = CLARIFY if action_id == ids.CLARIFY else ANSWER if answers else REVIEW
    return lambda: click(action_id, value)


INTERACTIONS: dict[str, Callable[[], dict[str, Any]]] = {
    **{action: _click_on(action) for action in sorted(ids.ACTIONS)},
    ids.FEEDBACK_MODAL: _feedback,
    ids.ANSWER_MODAL: _answer,
}
EVENTS: dict[str, Callable[[], dict[str, Any]]] = {"message": _message, "app_mention": _mention, "home": _home}


# --- junk ------------------------------------------------------------------------------------------

ODD_TEXT = [
    "",
    " ",
    "payload",
    "payload=",
    "payload={}",
    "check the payload limits on checkout",
    "null",
    "{",
    "%",
    "%zz%ff",
    "&=&=",
    "\u202eevil\u202c",
    "\u200b\u200d\ufeff",
    "日本語のテキスト",
    "مرحبا",
    "🛑🚀" * 3,
    "\x00\x01\x7f",
    "a\nb\rc\td",
    "<@U0TANDEMBOT>",
    "\\u0000",
    "'; DROP TABLE runs; --",
]


def junk(rng: random.Random, depth: int = 0) -> Tree:
    roll = rng.random()
    if roll < 0.12:
        return None
    if roll < 0.2:
        return rng.choice([True, False])
    if roll < 0.3:
        return rng.choice([0, -1, 1, 2**63, -(2**70), 3.5, 1e308, float("nan")])
    if roll < 0.6:
        return rng.choice(ODD_TEXT)
    if depth < 4 and roll < 0.8:
        return [junk(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if depth < 4:
        return {rng.choice(KEYS): junk(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return rng.choice(ODD_TEXT)


def huge(rng: random.Random) -> str:
    """A long string, made by repeating a short one (cheap to build); rarely past the size limit."""
    if rng.random() < 0.05:
        return "x" * rng.choice([MAX_BODY // 2, MAX_BODY + 10])
    size = rng.choice([3_001, 3_001, 20_000, 100_000])
    chunk = rng.choice(["x", "payload ", "é", "🚀", "ab\ncd"])
    return chunk * (size // len(chunk) + 1)


KEYS = [
    "type",
    "team",
    "team_id",
    "user",
    "user_id",
    "id",
    "channel",
    "channel_id",
    "event",
    "actions",
    "action_id",
    "view",
    "callback_id",
    "authorizations",
    "enterprise",
    "response_urls",
    "message",
    "container",
    "payload",
    "command",
    "text",
    "ts",
    "thread_ts",
    "value",
    "state",
    "values",
    "private_metadata",
    "selected_option",
    "trigger_id",
    "function_execution_id",
    "bot_access_token",
    "is_ext_shared_channel",
    "ssl_check",
]


def deep(rng: random.Random) -> str:
    """JSON nested far deeper than any Slack payload (sometimes past the parser's recursion limit)."""
    levels = rng.choice([50, 900, 5_000, 30_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return opener * levels + "1" + closer * levels


# --- mutations of a JSON tree ---------------------------------------------------------------------


def paths(tree: Tree, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = []
    if isinstance(tree, dict):
        for key, value in tree.items():
            found.append((*prefix, key))
            found += paths(value, (*prefix, key))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            found.append((*prefix, index))
            found += paths(value, (*prefix, index))
    return found


def _parent(tree: Tree, path: tuple[Any, ...]) -> Tree:
    for step in path[:-1]:
        tree = tree[step]
    return tree


def mutate(rng: random.Random, tree: Tree) -> Tree:
    """One structural change: drop, retype or add a field, empty a list, or swap the whole tree."""
    found = paths(tree)
    roll = rng.random()
    if not found or roll < 0.04:
        return junk(rng)
    path = rng.choice(found)
    parent = _parent(tree, path)
    if roll < 0.35:
        del parent[path[-1]]
    elif roll < 0.38:
        parent[path[-1]] = huge(rng)
    elif roll < 0.8:
        parent[path[-1]] = junk(rng)
    elif roll < 0.9 and isinstance(parent, dict):
        parent[rng.choice(KEYS)] = junk(rng)
    else:
        parent[path[-1]] = [] if rng.random() < 0.5 else {}
    return tree


def _drop(tree: dict[str, Any], *path: str) -> None:
    for step in path[:-1]:
        tree = tree[step] if isinstance(tree.get(step), dict) else {}
    tree.pop(path[-1], None)


def defuse_mention(rng: random.Random, tree: Tree) -> Tree:
    """Make sure an app_mention cannot start a run: no person, no channel or no task."""
    if isinstance(tree, dict) and isinstance(tree.get("event"), dict):
        choice = rng.randrange(3)
        if choice == 0:
            _drop(tree, "event", "user")
        elif choice == 1:
            _drop(tree, "event", "channel")
        else:
            tree["event"]["text"] = f"<@{BOT_USER_ID}>"
    return tree


# --- encodings ------------------------------------------------------------------------------------


def dumps(tree: Tree) -> str:
    return json.dumps(tree, ensure_ascii=False)


def truncated(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(max(1, len(text)))]


def interaction_body(rng: random.Random, tree: Tree) -> tuple[str, str | None, str]:
    text = dumps(tree)
    roll = rng.random()
    if roll < 0.55:
        return urlencode({"payload": text}), FORM, "payload"
    if roll < 0.7:
        return urlencode({"payload": truncated(rng, text)}), FORM, "payload-truncated"
    if roll < 0.8:
        garbage = rng.choice(["", "null", "[]", "[1,2]", '"text"', "42", "{", "nope", deep(rng), "%7B%7D", "payload"])
        extra = rng.choice(["", "&payload=second", "&token=x", "&command=/tandem"])
        return "payload=" + quote(garbage) + extra, FORM, "payload-garbage"
    if roll < 0.9:
        return text, rng.choice([JSON, FORM, None]), "json"
    return truncated(rng, text), rng.choice([JSON, FORM]), "json-truncated"


def form_body(rng: random.Random, form: dict[str, str]) -> tuple[str, str]:
    """A slash command form, broken the ways a form can be, then defused."""
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        key = rng.choice(sorted(form)) if form else "text"
        if roll < 0.3:
            form.pop(key, None)
        elif roll < 0.55:
            form[key] = rng.choice(ODD_TEXT)
        elif roll < 0.65:
            form[key] = huge(rng)
        elif roll < 0.8:
            form[rng.choice(KEYS)] = rng.choice(ODD_TEXT)
        else:
            form["text"] = rng.choice(ODD_TEXT) + " payload"
    defuse = rng.randrange(4)
    if defuse == 0:
        form.pop("user_id", None)
    elif defuse == 1:
        form.pop("channel_id", None)
    else:
        form["text"] = rng.choice(["payload", "", "list", "rules", "status", "nope", "payload=1"])
    body = urlencode(form)
    roll = rng.random()
    if roll < 0.1:
        body += "&" + rng.choice(["payload=", "payload=%7B", "text=second", "%zz=1", "=", "&&", "payload"])
    elif roll < 0.15:
        body = truncated(rng, body)
    return body, "form"


RAW: list[bytes] = [
    b"",
    b" ",
    b"\n",
    b"null",
    b"[]",
    b"[1,2,3]",
    b'"a string"',
    b"42",
    b"true",
    b"{",
    b"}",
    b"{}",
    b"payload",
    b"payload=",
    b"payload=%7B",
    b"payload=null",
    b"ssl_check=1",
    b"ssl_check=0&token=x",
    b"=&=&=",
    b"\xef\xbb\xbf{}",
    b"\xff\xfe\x00junk",
    b"\xc3\x28\xa0\xa1",
    b'{"type":"url_verification"}',
    b'{"type":"url_verification","challenge":{"x":1}}',
    b'{"type":"event_callback"}',
    b'{"type":"event_callback","event":"message"}',
    b'{"type":"event_callback","event":null,"is_ext_shared_channel":true}',
    b'{"type":"block_actions","actions":[]}',
    b'{"type":"block_actions","actions":"tandem.approve"}',
    b'{"type":"view_submission","view":"callback_id"}',
    b'{"type":"view_submission","view":{"callback_id":"tandem.feedback"}}',
    b'{"type":"dialog_submission","callback_id":5}',
    b'{"type":"interactive_message","callback_id":[],"actions":{}}',
    b'{"type":"workflow_step_edit","callback_id":"x"}',
    b'{"type":"shortcut","callback_id":"x"}',
    b'{"type":"view_closed","view":{"callback_id":"x","type":"modal"}}',
    b'{"team":5,"user":5,"channel":5,"enterprise":5}',
    b'{"authorizations":"abc"}',
    b'{"authorizations":[5]}',
    b'{"response_urls":null}',
    b'{"response_urls":"abc"}',
    b'{"function_execution_id":"F1","bot_access_token":5}',
    b'{"a": NaN, "b": Infinity}',
    b'{"type":"view_submission","team":{"id":"T0TANDEM"},"user":{"id":"U0ALICE"},'
    b'"view":{"id":"V1","type":"modal","callback_id":"tandem.feedback"},'
    b'"response_urls":[{"response_url":"http://127.0.0.1:9/a"},{"response_url":"http://127.0.0.1:9/b"}]}',
    b"[]" * 200_000,
    b"payload=" + b"%5B%5D" * 100_000,
    b"command=%2Ftandem&text=" + b"%C3%A9" * 170_000,
]
CONTENT_TYPES = [JSON, FORM, None, "text/plain", "application/json; charset=bogus", "multipart/form-data"]


def raw_body(rng: random.Random) -> tuple[bytes, str | None, str]:
    roll = rng.random()
    if roll < 0.05:
        body = deep(rng).encode()
    elif roll < 0.1:
        body = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    else:
        body = rng.choice(RAW)
    return body, rng.choice(CONTENT_TYPES), "raw"


# --- the generator --------------------------------------------------------------------------------


def cases(seed: int, count: int) -> Iterator[Case]:
    rng = random.Random(seed)
    names = sorted(INTERACTIONS)
    for _ in range(count):
        roll = rng.random()
        if roll < 0.5:
            name = rng.choice(names)
            tree: Tree = INTERACTIONS[name]()
            for _ in range(rng.randint(1, 4)):
                tree = mutate(rng, tree)
            text, content_type, how = interaction_body(rng, tree)
            yield Case(f"{name}/{how}", text.encode(), content_type)
        elif roll < 0.7:
            name = rng.choice(sorted(EVENTS))
            tree = EVENTS[name]()
            for _ in range(rng.randint(1, 4)):
                tree = mutate(rng, tree)
            if name == "app_mention":
                tree = defuse_mention(rng, tree)
            text = dumps(tree)
            if rng.random() < 0.2:
                text = truncated(rng, text)
            yield Case(f"event:{name}", text.encode(), rng.choice([JSON, JSON, FORM, None]))
        elif roll < 0.88:
            text, how = form_body(rng, slash("check the payload limits on checkout"))
            yield Case(f"command/{how}", text.encode(), rng.choice([FORM, FORM, FORM, JSON, None]))
        elif roll < 0.92:
            tree = {"token": "verification-token", "challenge": "c" * rng.randint(1, 80), "type": "url_verification"}
            tree = mutate(rng, tree)
            yield Case("url_verification", dumps(tree).encode(), rng.choice([JSON, FORM]))
        else:
            body, content_type, how = raw_body(rng)
            yield Case(how, body, content_type)
