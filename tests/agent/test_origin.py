"""Origins and principals: the core's platform-neutral view of where a run lives and who people are."""

from __future__ import annotations

import pytest

from agent.models import (
    Principal,
    RunState,
    Terminal,
    mention,
    moment,
    plain_mention,
    render_mentions,
)
from agent.models.platforms import Platform, register
from agent.policy import rule_scope
from agent.runtime.outbox import delivery_channel
from bot.origin import PLATFORM as SLACK
from bot.origin import SlackThread
from feishu.origin import FeishuChat


def _run(**fields: object) -> RunState:
    return RunState.model_validate(
        {"id": "r1", "task": "t", "requester": "U0ALICE", "created_at": 1, "updated_at": 1, **fields}
    )


@pytest.mark.parametrize(
    ("origin", "channel", "scope", "thread"),
    [
        (SlackThread(channel_id="C0OPS", thread_ts="1.5"), "slack", "C0OPS", "C0OPS:1.5"),
        (FeishuChat(chat_id="oc_abc", root_id="om_1"), "feishu", "oc_abc", "oc_abc:om_1"),
        (Terminal(), None, None, None),
    ],
)
def test_origin_answers_the_core_questions_without_platform_strings(
    origin: SlackThread | FeishuChat | Terminal, channel: str | None, scope: str | None, thread: str | None
) -> None:
    state = _run(origin=origin)
    assert (delivery_channel(state), rule_scope(state), state.origin.thread) == (channel, scope, thread)


def test_origin_survives_a_round_trip_through_json() -> None:
    state = _run(origin=FeishuChat(chat_id="oc_abc", root_id="om_1"))
    again = RunState.model_validate_json(state.model_dump_json())
    assert again.origin == FeishuChat(chat_id="oc_abc", root_id="om_1")


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ({"channel": "C0OPS", "thread_ts": "1.5"}, SlackThread(channel_id="C0OPS", thread_ts="1.5")),
        ({}, Terminal()),
    ],
)
def test_run_stored_before_origins_loads_with_its_origin(stored: dict[str, str], expected: object) -> None:
    assert _run(channel=stored).origin == expected


def test_run_whose_origin_no_platform_registered_fails_to_load_naming_its_kind() -> None:
    with pytest.raises(ValueError, match=r"origin kind 'matrix' belongs to no registered platform \(known: terminal, "):
        _run(origin={"kind": "matrix", "room": "!ops"})


def test_run_stored_before_origins_that_no_platform_recognises_fails_to_load() -> None:
    with pytest.raises(ValueError, match="no registered platform recognises the stored channel"):
        _run(channel={"room": "!ops"})


def test_register_again_is_a_no_op_and_a_taken_name_or_kind_is_refused() -> None:
    assert register(SLACK) is SLACK
    with pytest.raises(ValueError, match="a platform named 'slack' is already registered"):
        register(Platform(name="slack", origins=(), parse_id=lambda _: None, is_place=lambda _: False, id_hint=""))
    with pytest.raises(ValueError, match="'terminal' is the core's own"):
        register(Platform(name="terminal", origins=(), parse_id=lambda _: None, is_place=lambda _: False, id_hint=""))
    with pytest.raises(ValueError, match=r"origin kinds \['slack'\] are already registered"):
        register(
            Platform(name="copy", origins=(SlackThread,), parse_id=lambda _: None, is_place=lambda _: False, id_hint="")
        )


def test_run_without_origin_is_a_terminal_run() -> None:
    assert _run().origin == Terminal()


@pytest.mark.parametrize(
    ("entry", "platform", "kind"),
    [
        ("U0BOB", "slack", "user"),
        ("W0BOB", "slack", "user"),
        ("S0OPS", "slack", "group"),
        ("ou_7d8a6e6df7621556ce0d21922b676706", "feishu", "user"),
        ("od_64242a18099d3a31acd24d8fce8dcc1b", "feishu", "group"),
        ("od-4e6ac4d14bcd5071a37a39de902c7141", "feishu", "group"),  # as Feishu's docs write department ids
        ("oc_a0553eda9014c201e6969b478895c230", "feishu", "group"),
        ("alice", "terminal", "user"),
        ("Sam", "terminal", "user"),  # a name that starts with S is not a Slack group
    ],
)
def test_principal_parse_types_stored_ids(entry: str, platform: str, kind: str) -> None:
    p = Principal.parse(entry)
    assert (p.platform, p.kind, p.id, str(p)) == (platform, kind, entry, entry)


def test_render_mentions_lets_each_channel_name_people_its_own_way() -> None:
    text = f"Cancelled by {mention('U0BOB')}; ask {mention('S0OPS')} or {mention('ou_abc')}."

    def slackish(p: Principal) -> str:
        return f"<!subteam^{p.id}>" if p.is_group else f"<@{p.id}>"

    assert render_mentions(text, slackish) == "Cancelled by <@U0BOB>; ask <!subteam^S0OPS> or <@ou_abc>."
    assert render_mentions(text, plain_mention) == "Cancelled by @U0BOB; ask @S0OPS or @ou_abc."
    assert render_mentions("no one named here", plain_mention) == "no one named here"


def test_render_mentions_renders_times_each_channel_its_own_way() -> None:
    text = f"Timed out at {moment(1_700_000_000.4)}; asked {mention('U0BOB')}."
    assert render_mentions(text, plain_mention) == "Timed out at 22:13 UTC; asked @U0BOB."
    assert render_mentions(text, plain_mention, lambda at: f"<{int(at)}>") == "Timed out at <1700000000>; asked @U0BOB."
    assert render_mentions("⟦t:soon⟧ stays", plain_mention) == "⟦t:soon⟧ stays", "a marker that is no time is left"
