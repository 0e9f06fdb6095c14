"""How a failed ``auth.test`` is worded, for failures the local Slack fake cannot cause (a dead network)."""

from __future__ import annotations

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError

from bot import messages
from bot.authorization import failure_text


class _Answer(dict[str, object]):
    """What ``SlackApiError.response`` offers: the answer's fields."""


@pytest.mark.parametrize(
    "exc",
    [
        aiohttp.ClientConnectionError("connection refused"),
        TimeoutError(),
        SlackApiError("HTTP 503", _Answer(ok=False, error="service_unavailable")),
        SlackApiError("no JSON", _Answer()),
    ],
)
def test_failure_text_for_a_failure_that_passes_says_slack_is_not_answering(exc: Exception) -> None:
    assert failure_text(exc) == messages.SLACK_NOT_ANSWERING


def test_failure_text_for_a_revoked_token_says_reinstall() -> None:
    text = failure_text(SlackApiError("revoked", _Answer(ok=False, error="token_revoked")))
    assert "reinstall Tandem" in text and "token_revoked" in text
