"""The ``rules`` command in Feishu: what each always-allow rule of the chat covers; ``rules widen ID`` makes a
scoped rule cover every target of its tool, ``rules revoke ID`` ends one (the same use cases as Slack's buttons)."""

from __future__ import annotations

from typing import assert_never

from agent.messages import rule_what, rule_widened
from agent.models import Rule
from agent.usecases import NotApplied, Refused, RuleRevoked, RuleWidened, UseCases
from feishu import messages
from feishu.wording import Lang, escape, prose, say, who


async def rules_text(usecases: UseCases, chat: str, user: str, arg: str, lang: Lang = "en") -> str:
    """``rules`` lists (in the asker's language); ``rules widen ID`` and ``rules revoke ID`` act, where the
    policy lets ``user``."""
    verb, _, rule_id = arg.strip().partition(" ")
    verb, rule_id = verb.lower(), rule_id.strip()
    if verb in ("widen", "revoke") and rule_id:
        outcome = await (usecases.widen_rule if verb == "widen" else usecases.revoke_rule)(rule_id, user, chat)
        return _outcome(outcome, verb, lang)
    if verb:
        return say("rules_usage", lang)
    listed = await usecases.rule_list(chat)
    return "\n".join(_row(r, lang) for r in listed.rules) or say("no_rules", lang)


def _row(rule: Rule, lang: Lang) -> str:
    what = _what(rule, lang)
    if rule.from_policy:
        return say("rule_from_policy", lang, what=what)
    row = say("rule_set_by", lang, what=what, who=who(rule.created_by), id=escape(rule.id))
    if rule.widened_by is not None:
        return row + say("rule_widened", lang, who=who(rule.widened_by))
    if rule.tool_wide:
        return row + say("rule_old", lang)
    return row + say("rule_widen_hint", lang, id=escape(rule.id))


def _what(rule: Rule, lang: Lang) -> str:
    """What a rule covers (:func:`agent.messages.rule_what`), in the asker's language."""
    if lang == "en":
        return prose(rule_what(rule))
    tool = f"`{escape(rule.tool)}`"
    if rule.tool_wide:
        return say("rule_tool_wide", lang, tool=tool)
    return say("rule_what", lang, tool=tool, label=prose(rule.label)) if rule.label else tool


def _outcome(outcome: RuleWidened | RuleRevoked | Refused | NotApplied, verb: str, lang: Lang) -> str:
    match outcome:
        case RuleWidened(rule=rule):
            if lang == "en":
                return prose(rule_widened(rule, rule.widened_by or ""))
            return say("rule_widened_to_all", lang, tool=escape(rule.tool), who=who(rule.widened_by or ""))
        case RuleRevoked(rule=rule):
            return say("rule_revoked", lang, what=_what(rule, lang))
        case Refused(refusal=refusal):
            setter = refusal.users[0] if refusal.users else ""
            return say("rule_not_yours", lang, user=who(setter), verb=say(f"verb_{verb}", lang))
        case NotApplied(message=message):
            return messages.FAILED.format(error=prose(message))
        case _:
            assert_never(outcome)
