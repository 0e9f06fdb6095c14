"""The value a correction asks for: named when the tool does not know it, never a negated or a stray word."""

from __future__ import annotations

import pytest

from agent.offline.asked import asked_value, negated_only
from agent.offline.tools_match import tool_view
from agent.tools import load_tools

TOOLS = load_tools(["demo.tools"])
RESTART = tool_view(0, TOOLS.get("restart_service").describe())
OLD = {"service": "payments"}


@pytest.mark.parametrize(
    "text",
    [
        "restart orders, not payments",
        "restart orders instead of payments",
        "use the orders service instead",
        "switch to orders",
        "换成 orders 服务",
        "不是payments，是orders",
        "别动payments，重启orders",
    ],
)
def test_asked_value_unknown_service_is_the_word_offered(text: str) -> None:
    assert asked_value(RESTART, text, OLD) == {"service": "orders"}


@pytest.mark.parametrize(
    "text",
    [
        "not payments, orders",  # no word offers it: nothing is guessed
        "use the same service",
        "restart it gracefully",
        "restart gracefully",
        "use the latest",
        "please wait a moment",
        "no, not that one",
        "restart it instead",
        "restart payments",
    ],
)
def test_asked_value_filler_negated_or_known_words_are_never_taken(text: str) -> None:
    assert asked_value(RESTART, text, OLD) is None


@pytest.mark.parametrize(
    ("text", "value", "negated"),
    [
        ("restart orders, not payments", "payments", True),
        ("restart checkout instead of payments", "payments", True),
        ("别动payments，重启orders", "payments", True),
        ("不是payments，是orders", "payments", True),
        ("restart orders, not payments", "orders", False),
        ("use payments", "payments", False),
    ],
)
def test_negated_only_says_whether_a_value_is_named_only_as_not_wanted(text: str, value: str, negated: bool) -> None:
    assert negated_only(text, value) is negated
