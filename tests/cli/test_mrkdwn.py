"""Slack mrkdwn as a terminal shows it: styles only with color, fences indented, links and entities readable."""

from __future__ import annotations

from datetime import datetime

import pytest

from cli.mrkdwn import BOLD, CODE, ITALIC, STRIKE, terminal_text


@pytest.mark.parametrize(
    ("mrkdwn", "plain"),
    [
        ("*Done: restart payments*", "Done: restart payments"),
        ("_slow_ and ~gone~", "slow and gone"),
        ("1. ✅ `restart_service` (service=payments)", "1. ✅ restart_service (service=payments)"),
        ("p99 &gt; 500ms &amp; &lt; 2s", "p99 > 500ms & < 2s"),
        ("&amp;lt; stays", "&lt; stays"),
        (
            "see <https://runbooks.example/pay?a=1&amp;b=2|the runbook>",
            "see the runbook (https://runbooks.example/pay?a=1&b=2)",
        ),
        ("<https://example.com>", "https://example.com"),
        ("<mailto:ops@example.com|ops@example.com>", "ops@example.com"),
        ("<@U0BOB> and <@U0AL|alice> in <#C0OPS|ops>, <#C0GEN>", "@U0BOB and @alice in #ops, #C0GEN"),
        ("<!here> <!subteam^S0OPS|@ops> <!subteam^S0DEV>", "@here @ops @S0DEV"),
        ("snake_case_name stays, 2 * 3 * 4 too", "snake_case_name stays, 2 * 3 * 4 too"),
        ("&gt; quoted line\nnext", "│ quoted line\nnext"),
        ("Result:\n```\nline &lt;1&gt;\n\n*not bold*\n```\nafter", "Result:\n    line <1>\n\n    *not bold*\nafter"),
        ("inline ```x = 1``` here", "inline\n    x = 1\nhere"),
        ("*bold with `code` inside*", "bold with code inside"),
    ],
)
def test_terminal_text_without_color_is_plain(mrkdwn: str, plain: str) -> None:
    assert terminal_text(mrkdwn) == plain


def test_terminal_text_with_color_styles_with_ansi() -> None:
    shown = terminal_text("*Done* _now_ ~old~ `tool`", color=True)

    assert shown == (
        f"{BOLD[0]}Done{BOLD[1]} {ITALIC[0]}now{ITALIC[1]} {STRIKE[0]}old{STRIKE[1]} {CODE[0]}tool{CODE[1]}"
    )


def test_terminal_text_shows_date_tokens_in_local_time() -> None:
    at = 1796177776
    local = datetime.fromtimestamp(at).astimezone()

    shown = terminal_text(f"at <!date^{at}^{{date_num}} {{time}}|02:16 UTC> or <!date^{at}^{{ago}}|a while ago>")

    assert shown == f"at {local:%Y-%m-%d %H:%M} or a while ago"
