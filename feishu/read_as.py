"""The "Read as" cards in a run's thread: how a reply was read, with *Not what I meant* while it can still apply.

*Not what I meant* applies to whatever the run waits for now, so only the newest "Read as" of a run
keeps its form: a later one, or the end of the run, closes it (the card says why, with no form).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent.correction_messages import NOTHING_RAN_YET, reading_detail
from agent.models import Reading
from agent.models import outbox as out
from agent.ports import Store
from feishu.api import FeishuApi
from feishu.elements import Card, button, card, decided, is_live, md, text_input
from feishu.origin import FeishuChat
from feishu.wording import Lang, clip, escape, say


def read_as_key(run_id: str) -> str:
    """Where a run's newest "Read as" card is kept."""
    return f"feishu:read_as:{run_id}"


def read_as_card(reading: Reading, review_id: str, run_id: str, lang: Lang, *, before_it_runs: bool = False) -> Card:
    """How a reply was read, with a form to say what was meant instead (applies to what waits now). A step's
    correction says which step and whether it is changed before it runs or run again (what changes, old → new,
    follows in the thread once the step has its new values)."""
    n = reading.target_step if reading.target_step is not None else "?"
    if reading.intent == "retry_step":
        what = say("read_change_step" if before_it_runs else "read_retry_step", lang, n=n)
    else:
        what = say(f"intent_{reading.intent}", lang)
    text = say("read_as", lang, what=what)
    detail = reading_detail(reading)
    if detail:
        text += f" — {escape(clip(detail, 500))}"
    override = {"action": "override", "review": review_id, "run": run_id}
    form = {
        "tag": "form",
        "name": "form_override",
        "elements": [
            text_input("feedback", say("feedback", lang)),
            {**button(say("not_meant", lang), override), "form_action_type": "submit", "name": "override"},
        ],
    }
    return card("Tandem", [md(text), form], template="grey")


async def post_read_as(
    api: FeishuApi,
    store: Store,
    reply: Callable[[Card], Awaitable[str]],
    run_id: str,
    where: FeishuChat,
    message: out.ReadAs,
    lang: Lang,
) -> None:
    """Post how a reply was read; the run's earlier "Read as" card loses its form."""
    record = await store.get_review(message.review_id)
    before_it_runs = record is not None and record.anchor in NOTHING_RAN_YET
    made = read_as_card(message.reading, message.review_id, run_id, lang, before_it_runs=before_it_runs)
    await close_read_as(api, store, run_id, say("read_as_later", lang))
    posted_at = await reply(made)
    await store.save_message(read_as_key(run_id), run_id, where.chat_id, posted_at, [made])


async def close_read_as(api: FeishuApi, store: Store, run_id: str, why: str) -> None:
    """The run's newest "Read as" card without its form, saying ``why`` (nothing if it has none)."""
    posted = await store.message(read_as_key(run_id))
    if posted is None or not posted.blocks or not is_live(posted.blocks[0]):
        return
    closed = decided(posted.blocks[0], why)
    await api.patch_card(posted.ts, closed)
    await store.save_message(read_as_key(run_id), run_id, posted.channel, posted.ts, [closed])
