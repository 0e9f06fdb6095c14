"""The outbox's typed messages: each kind its own model, and rows written before they were typed still load."""

from __future__ import annotations

import pytest

from agent.models import (
    WEBHOOK,
    Approve,
    CardRefresh,
    ClarifyAsked,
    Decided,
    HandoffWebhook,
    NewsLine,
    NotStarted,
    Outgoing,
    ReadAs,
    Reading,
    ReviewAsked,
    ReviewDecided,
    RunEnded,
    Undelivered,
    WeeklyReport,
    channel_of,
    decode_outgoing,
    encode_outgoing,
)

READING = Reading(intent="retry_step", target_step=1, suggested_fix="limit 50")
DECIDED = Decided(at=5.0, review_id="rv1", decision=Approve(), by="U1")


@pytest.mark.parametrize(
    "message",
    [
        CardRefresh(),
        ReviewAsked(review_id="rv1"),
        ReviewDecided(review_id="rv1", event=DECIDED),
        ReviewDecided(review_id="rv1"),
        ReadAs(review_id="rv1", reading=READING, by="U1"),
        ClarifyAsked(review_id="rv1", reading=READING, text="more", anchor="after_plan", can_approve=False),
        NewsLine(text="disk at 91%"),
        RunEnded(status="failed"),
        HandoffWebhook(url="https://ci.example.com/hook", event_id="evt_3f2a9c1d7e40"),
        NotStarted(error="channel_not_found", stopped=False),
        Undelivered(review_id="rv1", error="msg_too_long", of=7),
        WeeklyReport(key="C0OPS@9", channel="C0OPS", since=1.0, until=9.0, late_by=3600.0, manual=True),
    ],
)
def test_outgoing_through_a_row_comes_back_as_the_same_typed_message(message: Outgoing) -> None:
    assert decode_outgoing(encode_outgoing(message)) == message


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ('{"kind":"card"}', CardRefresh()),
        ('{"kind":"notify","review_id":"rv1","text":"asked"}', NewsLine(review_id="rv1", text="asked")),
        ('{"kind":"finished","data":{"status":"done"}}', RunEnded(status="done")),
        ('{"kind":"decided","review_id":"rv1","data":{}}', ReviewDecided(review_id="rv1")),
        (
            '{"kind":"decided","review_id":"rv1","data":{"event":' + DECIDED.model_dump_json() + "}}",
            ReviewDecided(review_id="rv1", event=DECIDED),
        ),
        (
            '{"kind":"read_as","review_id":"rv1","data":{"reading":' + READING.model_dump_json() + ',"by":"U1"}}',
            ReadAs(review_id="rv1", reading=READING, by="U1"),
        ),
        (
            '{"kind":"clarify","review_id":"rv1","data":{"reading":'
            + READING.model_dump_json()
            + ',"text":"more","anchor":"after_plan","can_approve":false}}',
            ClarifyAsked(review_id="rv1", reading=READING, text="more", anchor="after_plan", can_approve=False),
        ),
        (
            '{"kind":"not_started","text":"channel_not_found","data":{"stopped":false}}',
            NotStarted(error="channel_not_found", stopped=False),
        ),
        (
            '{"kind":"undelivered","review_id":"rv1","text":"msg_too_long","data":{"of":7}}',
            Undelivered(review_id="rv1", error="msg_too_long", of=7),
        ),
        (
            '{"kind":"weekly_report","text":"C0OPS@9","data":{"channel":"C0OPS","since":1.0,"until":9.0,'
            '"late_by":0.0,"timezone":"UTC","manual":false}}',
            WeeklyReport(key="C0OPS@9", channel="C0OPS", since=1.0, until=9.0),
        ),
    ],
)
def test_outgoing_row_of_an_older_release_loads_typed(stored: str, expected: Outgoing) -> None:
    assert decode_outgoing(stored) == expected


def test_outgoing_of_an_unknown_kind_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="sparkle"):
        decode_outgoing('{"kind":"sparkle"}')


def test_outgoing_webhook_goes_to_the_webhook_channel_and_the_rest_where_the_run_is_shown() -> None:
    assert channel_of(HandoffWebhook(url="https://ci.example.com/hook", event_id="evt_1"), "slack") == WEBHOOK
    assert channel_of(RunEnded(status="done"), "slack") == "slack"
