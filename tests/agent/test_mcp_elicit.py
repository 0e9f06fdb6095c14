"""An MCP server's ``input_required`` round turned into questions for people, and the answers sent back."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from agent import human
from agent.errors import ToolError
from agent.mcptools import elicit

SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "enum": ["eu-west-1", "us-east-1"], "title": "Region"},
        "replicas": {"type": "integer", "title": "Replicas", "default": 2},
        "ratio": {"type": "number"},
        "drain": {"type": "boolean", "title": "Drain first"},
        "note": {"type": "string", "maxLength": 40},
    },
}


def form(schema: dict[str, Any] = SCHEMA) -> types.InputRequiredResult:
    params = types.ElicitRequestFormParams(message="Where to?", requested_schema=schema)  # type: ignore[arg-type]
    return types.InputRequiredResult(input_requests={"q": types.ElicitRequest(params=params)}, request_state="S1")


def asked(given: list[Any]) -> human.NeedsHuman:
    requests = elicit.requests_of("deploys", "move", form())
    got = {(a["elicitation"]["key"], a["elicitation"]["field"]): a["value"] for a in given}
    with pytest.raises(human.NeedsHuman) as raised:
        elicit.ask_next("deploys", "S1", requests, got, len(given), timeout=60)
    return raised.value


def answer(ask: human.NeedsHuman, value: Any) -> dict[str, Any]:
    assert ask.handoff.elicitation is not None
    return ask.handoff.elicitation.reply(ask.handoff.validate_answer(value))


def test_elicit_schema_types_become_choice_number_confirm_and_text_questions() -> None:
    given: list[Any] = []
    seen = []
    for value in ["us-east-1", "3", "0.5", "no", "slowly"]:
        ask = asked(given)
        seen.append((ask.handoff.input_type, ask.handoff.options, ask.handoff.prompt.splitlines()[-1]))
        given.append(answer(ask, value))
    assert seen == [
        ("choice", ["eu-west-1", "us-east-1"], "Region"),
        ("text", [], "Replicas (a whole number)"),
        ("text", [], "ratio (a number)"),
        ("confirm", [], "Drain first"),
        ("text", [], "note"),
    ]
    responses, state = elicit.resume("deploys", given, timeout=60)
    assert state == "S1" and responses is not None
    sent = responses["q"]
    assert isinstance(sent, types.ElicitResult) and sent.action == "accept"
    assert sent.content == {"region": "us-east-1", "replicas": 3, "ratio": 0.5, "drain": False, "note": "slowly"}


@pytest.mark.parametrize(("value", "error"), [("three", "'three' is not a number"), ("2.5", "not a whole number")])
def test_elicit_integer_field_refuses_what_is_not_a_whole_number(value: str, error: str) -> None:
    ask = asked([answer(asked([]), "eu-west-1")])
    with pytest.raises(ValueError, match=error):
        ask.handoff.validate_answer(value)


def test_elicit_field_with_a_default_uses_it_when_nobody_answers_in_time() -> None:
    ask = asked([answer(asked([]), "eu-west-1")])
    assert (ask.handoff.default, ask.on_timeout, ask.timeout) == (2, "use_default", 60)


def test_elicit_resume_with_a_field_left_asks_it_without_calling_the_server() -> None:
    first = answer(asked([]), "eu-west-1")
    with pytest.raises(human.NeedsHuman) as raised:
        elicit.resume("deploys", [first], timeout=None)
    assert raised.value.handoff.prompt.endswith("Replicas (a whole number)")


def test_elicit_first_call_sends_no_answers() -> None:
    assert elicit.resume("deploys", [], timeout=None) == (None, None)


def test_elicit_list_field_is_refused_saying_the_call_did_not_complete() -> None:
    schema = {"type": "object", "properties": {"zones": {"type": "array", "items": {"type": "string"}}}}
    with pytest.raises(ToolError, match="'zones' as array, which Tandem cannot ask a person yet; the call did not"):
        elicit.requests_of("deploys", "move", form(schema))


def test_elicit_sampling_request_is_refused_saying_the_call_did_not_complete() -> None:
    sampling = types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(messages=[], max_tokens=10)  # type: ignore[call-arg]
    )
    result = types.InputRequiredResult(input_requests={"s": sampling}, request_state="S")
    with pytest.raises(ToolError, match="asked for sampling/createMessage, which Tandem does not answer"):
        elicit.requests_of("deploys", "move", result)


def test_elicit_form_declined_at_its_second_field_sends_decline_and_asks_nothing_more() -> None:
    first = answer(asked([]), "eu-west-1")
    second = asked([first]).handoff
    assert second.offers_decline and second.elicitation is not None
    responses, state = elicit.resume("deploys", [first, second.elicitation.reply(None, declined=True)], timeout=None)
    assert state == "S1" and responses is not None
    sent = responses["q"]
    assert isinstance(sent, types.ElicitResult) and sent.action == "decline" and sent.content is None


@pytest.mark.parametrize(
    ("reply", "declines"),
    [
        ("decline", True),
        ("Decline.", True),
        ("拒绝回答", True),
        ("不提供", True),
        ("no", False),
        ("declined to say", False),
    ],
)
def test_elicit_reply_declines_only_with_explicit_words(reply: str, declines: bool) -> None:
    assert asked([]).handoff.declines(reply) is declines
