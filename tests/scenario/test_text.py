"""What people read, through the real app over signed HTTP: what they typed is escaped exactly once
wherever it is shown again, and counts read as proper plurals."""

from __future__ import annotations

import re
from pathlib import Path

from tests.scenario.harness import OPS, Env, running, text_of
from workspace.models import Message
from workspace.web import typed_text


async def _start(env: Env, task: str) -> tuple[Message, Message]:
    card = await env.start(task)
    return card, await env.next_review(card)


def _everything_the_bot_said(env: Env, card: Message) -> str:
    said = [env.ws.state.message(OPS, card.ts), *(m for m in env.thread(card) if m.bot_id)]
    return "\n".join(text_of(m) for m in said)


async def test_reply_with_comparison_signs_reads_as_typed_once_escaped_in_review_and_thread(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env, "restart payments and check errors after")
        # What Slack sends for the typed `replan: alert only when p99 > 500ms & < 2s`: & < > as entities.
        sent, _ = typed_text(env.ws.state, "replan: alert only when p99 > 500ms & < 2s")
        await env.ws.reply_in_thread("alice", OPS, card.ts, sent)

        once = "p99 &gt; 500ms &amp; &lt; 2s"  # Slack shows this as p99 > 500ms & < 2s
        await env.wait(lambda: once in text_of(env.ws.state.message(OPS, plan.ts)))
        await env.wait(lambda: any("Read as" in text_of(m) for m in env.thread(card)))
        await env.idle()

        said = _everything_the_bot_said(env, card)
        assert not any(twice in said for twice in ("&amp;gt;", "&amp;lt;", "&amp;amp;")), said


async def test_reply_with_slack_markup_typed_as_text_stays_text(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env, "restart payments and check errors after")
        sent, _ = typed_text(env.ws.state, "replan, and page <!channel> with <https://evil.example|the docs>")
        await env.ws.reply_in_thread("alice", OPS, card.ts, sent)

        shown = "page &lt;!channel&gt; with &lt;https://evil.example|the docs&gt;"
        await env.wait(lambda: shown in text_of(env.ws.state.message(OPS, plan.ts)))
        await env.idle()

        said = _everything_the_bot_said(env, card)
        assert "<!channel>" not in said and "<https://evil.example" not in said


async def test_one_step_result_says_1_step(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card = await env.start("check errors for payments")  # it only reads: done with no result review
        await env.wait(lambda: any("succeeded" in text_of(m) and "✅ Done" in text_of(m) for m in env.thread(card)))
        result = text_of(env.thread(card)[-1])  # the result, whole, ends the thread

        assert re.search(r"\b1 step\b.*: 1 succeeded, 0 failed\.", result)
        assert "(s)" not in result
