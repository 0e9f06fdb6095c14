from __future__ import annotations

import pytest

from agent.models import Risk, StepStatus, moment
from agent.models import mention as core_mention
from blocks.text import (
    MARK,
    as_text,
    clip,
    clock,
    code_block,
    escape,
    escaped,
    mention,
    pack,
    params_inline,
    risk_badge,
    step_icon,
    truncate,
    when,
)
from tests.blocks.states import T0


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("a < b", "a &lt; b"),
        ("a > b", "a &gt; b"),
        ("R&D", "R&amp;D"),
        ("<!channel> ping", "&lt;!channel&gt; ping"),
        ("&lt;", "&amp;lt;"),
        ("plain", "plain"),
    ],
)
def test_escape_special_characters_become_entities(raw: str, safe: str) -> None:
    assert escape(raw) == safe


def test_truncate_long_text_ends_with_ellipsis_within_limit() -> None:
    out = truncate("x" * 200, 75)
    assert len(out) == 75
    assert out.endswith(MARK)


def test_truncate_short_text_is_unchanged() -> None:
    assert truncate("short", 75) == "short"


def test_truncate_limit_below_marker_raises() -> None:
    with pytest.raises(ValueError, match="at least"):
        truncate("abc", 0)


@pytest.mark.parametrize("limit", [5, 6, 7, 8, 9, 10])
def test_clip_escaped_text_never_splits_an_entity(limit: int) -> None:
    out = clip("a&&&&&&&&&", limit)
    assert out.truncated
    assert len(out.text) <= limit
    body = out.text.removesuffix(MARK)
    assert body.replace("&amp;", "") == "a"


def test_clip_tail_keeps_the_end() -> None:
    out = clip("start " + "x" * 100 + " Traceback: boom", 30, tail=True)
    assert out.text.startswith(MARK)
    assert out.text.endswith("Traceback: boom")
    assert len(out.text) <= 30


def test_clip_text_that_fits_is_only_escaped() -> None:
    assert clip("<b>", 10) == ("&lt;b&gt;", False)


def test_escaped_without_limit_escapes_only() -> None:
    assert escaped("x" * 5000 + "<") == "x" * 5000 + "&lt;"


def test_code_block_long_output_is_fenced_and_within_limit() -> None:
    out = code_block("line\n" * 20_000, 2000)
    assert out.truncated
    assert len(out.text) <= 2000
    assert out.text.startswith("```") and out.text.endswith("```")


def test_code_block_triple_backticks_in_output_cannot_close_the_fence() -> None:
    out = code_block("before ``` after", 100)
    assert out.text.count("```") == 2


def test_code_block_empty_text_shows_placeholder() -> None:
    assert code_block("", 100).text == "```(empty)```"


@pytest.mark.parametrize(
    ("risk", "badge"),
    [(Risk.READ, "🟢 read"), (Risk.WRITE, "🟡 write"), (Risk.EXEC, "🟠 exec"), (Risk.DEPLOY, "🔴 deploy")],
)
def test_risk_badge_each_level_has_icon_and_label(risk: Risk, badge: str) -> None:
    assert risk_badge(risk) == badge


@pytest.mark.parametrize(
    ("status", "icon"),
    [("pending", "⚪"), ("running", "⏳"), ("done", "✅"), ("failed", "❌"), ("skipped", "⏭️")],
)
def test_step_icon_each_status_has_its_icon(status: StepStatus, icon: str) -> None:
    assert step_icon(status) == icon


def test_params_inline_pairs_render_as_inline_code() -> None:
    out = params_inline({"service": "payments", "replicas": 3, "dry": False})
    assert out == ("`service=payments` `replicas=3` `dry=false`", False)


def test_params_inline_too_many_pairs_says_how_many_more() -> None:
    out = params_inline({f"k{i}": "v" * 20 for i in range(20)}, 100)
    assert out.truncated
    assert len(out.text) <= 100
    assert out.text.endswith("more")


def test_params_inline_long_value_is_cut_and_flagged() -> None:
    out = params_inline({"script": "x" * 2000})
    assert out.truncated
    assert len(out.text) < 100


def test_params_inline_user_text_is_escaped_and_cannot_break_code() -> None:
    out = params_inline({"msg": "<!here> `rm` &\nnext"})
    assert "&lt;!here&gt;" in out.text
    assert out.text.count("`") == 2
    assert "\n" not in out.text


def test_pack_joins_texts_up_to_the_limit() -> None:
    assert pack(["aaa", "bbb", "ccc"], limit=7) == ["aaa\nbbb", "ccc"]


def test_as_text_non_strings_become_json() -> None:
    assert as_text({"b": 1, "a": [1]}) == '{\n  "a": [\n    1\n  ],\n  "b": 1\n}'
    assert as_text("as is") == "as is"


def test_clock_epoch_formats_as_utc_hours_and_minutes() -> None:
    assert clock(T0) == "22:13"


def test_when_epoch_is_a_slack_date_with_utc_fallback() -> None:
    assert when(T0) == "<!date^1700000000^{time}|22:13 UTC>"


@pytest.mark.parametrize(
    ("user", "shown"),
    [("U1", "<@U1>"), ("W012AB3CD", "<@W012AB3CD>"), ("<!channel>", "&lt;!channel&gt;"), ("tandem", "tandem")],
)
def test_mention_only_user_ids_become_mentions(user: str, shown: str) -> None:
    assert mention(user) == shown


def test_escape_turns_the_cores_markers_into_slack_mentions_and_date_tokens() -> None:
    text = f"Already approved by {core_mention('U0BOB')} at {moment(T0)} & <b>"
    assert escape(text) == "Already approved by <@U0BOB> at <!date^1700000000^{time}|22:13 UTC> &amp; &lt;b&gt;"
