"""A handoff asked through the API for a Feishu chat lives in that chat, as a run started there does."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent.asking import AskRequest
from agent.models.platforms import run_origin
from bot.origin import SlackThread
from feishu.origin import FeishuChat


def test_asked_channel_of_a_feishu_chat_or_a_slack_channel_becomes_that_platforms_run_origin() -> None:
    assert run_origin("oc_5ad11d72b830") == FeishuChat(chat_id="oc_5ad11d72b830")
    assert run_origin("C0123OPS") == SlackThread(channel_id="C0123OPS")
    assert run_origin("ou_7d8a6e6df7621556") is None  # a person, not a place


def test_asked_request_for_a_feishu_chat_with_feishu_assignees_is_accepted_and_a_name_is_refused() -> None:
    ok = AskRequest(
        prompt="Approve the refund?", input_type="confirm", channel="oc_5ad11d72b830", assignees=["ou_ab12"]
    )
    assert ok.channel == "oc_5ad11d72b830"
    with pytest.raises(ValidationError, match="'alice' is not a person or group id"):
        AskRequest(prompt="Approve?", channel="oc_5ad11d72b830", assignees=["alice"])
