"""Reading Feishu payloads into models at the edge."""

from __future__ import annotations

from typing import Any

import pytest

from feishu.payloads import CardCallback, MessageEvent, OtherEvent, Unreadable, UrlVerification, inbound
from workspace.feishu_fake import FeishuFake, Posted


def test_inbound_message_text_leaves_the_mentions_out() -> None:
    fake = FeishuFake()
    event = inbound(fake.message_event("alice", "oc_1", "restart  payments"))
    assert isinstance(event, MessageEvent)
    assert event.event.message.text == "restart payments" and event.event.sender.sender_id.open_id == "ou_alice"


def test_inbound_kinds() -> None:
    fake = FeishuFake()
    fake.messages["om_x"] = Posted("om_x", "oc_1", {})
    assert isinstance(inbound({"type": "url_verification", "challenge": "c", "token": "t"}), UrlVerification)
    click = inbound(fake.click_event("bob", "om_x", {"action": "approve", "review": "r1"}, {"feedback": "x"}))
    assert isinstance(click, CardCallback) and click.event.action.form_value == {"feedback": "x"}
    other = inbound({"header": {"event_id": "e", "event_type": "im.chat.member.bot.added_v1"}})
    assert isinstance(other, OtherEvent)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([], "not a JSON object"),
        ({"header": {"event_type": "x"}}, "header.event_id"),
        ({"header": {"event_id": "e", "event_type": "card.action.trigger"}, "event": {}}, "event.operator"),
        ({"type": "url_verification"}, "challenge"),
    ],
)
def test_inbound_unreadable_says_where(data: Any, problem: str) -> None:
    with pytest.raises(Unreadable, match=problem):
        inbound(data)
