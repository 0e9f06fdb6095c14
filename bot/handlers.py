"""Slack listeners. Each one parses its payload first, acks at once, and hands
slow work (database, model, tools) to the app's background tasks."""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.config import PolicyConfig
from agent.errors import NotAllowed, StaleDecision, TandemError
from agent.messages import decided_verb
from agent.models import Answer, Approve, AuditEvent, Cancel, Correct, Decision, Intent, Review, Risk, Rule
from agent.runtime import Runtime
from blocks import ids
from blocks.clarify import clarify
from blocks.decided import already_decided, classified_reply
from blocks.handoff import answer_modal
from blocks.help import RunRow, help_blocks, list_blocks, status_blocks
from blocks.modals import feedback_modal, review_details
from blocks.rules import rules_blocks
from blocks.text import Blocks, mention, section, waiting_for
from bot import messages
from bot.channel import SlackChannel, card_placeholder, review_key
from bot.directory import Directory
from bot.payloads import BlockActions, MessageEvent, SlashCommand, ViewSubmission
from bot.render import decision_lines
from bot.tasks import Background
from storage.facade import AsyncStore

log = logging.getLogger("tandem.bot")

SUBCOMMANDS = ("help", "list", "status", "cancel", "rules")
COMMAND = "/tandem"
ANSWER_BUTTONS = re.compile(r"^tandem\.answer(\.\w+)?$")
CLARIFY_BUTTONS = re.compile(r"^tandem\.clarify(\.\w+)?$")
EVENTS = ("message", "app_mention")


@dataclass
class Deps:
    runtime: Runtime
    store: AsyncStore
    channel: SlackChannel
    directory: Directory
    background: Background = field(default_factory=Background)
    clock: Callable[[], float] = time.time

    @property
    def config(self) -> PolicyConfig:
        return self.runtime.config


def register(app: AsyncApp, deps: Deps) -> None:
    """Attach every Tandem listener to ``app``."""
    Listeners(deps).attach(app)


class Listeners:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.runtime = deps.runtime
        self.store = deps.store

    def attach(self, app: AsyncApp) -> None:
        app.command(COMMAND)(self.on_command)
        app.action(ids.APPROVE)(self.on_approve)
        app.action(ids.CANCEL)(self.on_cancel)
        app.action(ids.REJECT)(self.on_request_changes)
        app.action(ids.REQUEST_CHANGES)(self.on_request_changes)
        app.action(ids.OVERRIDE)(self.on_override)
        app.action(ids.DETAILS)(self.on_details)
        app.action(ANSWER_BUTTONS)(self.on_answer)
        app.action(ids.ANSWER_SELECT)(self.on_answer)
        app.action(ids.ANSWER_TEXT)(self.on_answer_text)
        app.action(ids.APPROVE_ALWAYS)(self.on_approve_always)
        app.action(ids.REVOKE_RULE)(self.on_revoke_rule)
        app.action(CLARIFY_BUTTONS)(self.on_clarify)
        app.view(ids.FEEDBACK_MODAL)(self.on_feedback)
        app.view(ids.ANSWER_MODAL)(self.on_answer_modal)
        app.event(EVENTS[0])(self.on_message)
        app.event(EVENTS[1])(self.on_mention)

    def spawn(self, work: Awaitable[object], name: str) -> None:
        async def run() -> None:
            await work

        self.deps.background.spawn(run(), name=name)

    # --- slash command --------------------------------------------------------

    async def on_command(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        cmd = SlashCommand.model_validate(body)
        text = " ".join(cmd.text.split())
        word, _, rest = text.partition(" ")
        word = word.lower()
        if not text or word == "help":
            await ack(blocks=help_blocks(), text="Tandem help")
            return
        if " " not in text and word not in SUBCOMMANDS:
            blocks = [section(messages.UNKNOWN_SUBCOMMAND.format(word=word)), *help_blocks()]
            await ack(blocks=blocks, text="Tandem help")
            return
        await ack()
        if word in SUBCOMMANDS:
            self.spawn(self.subcommand(client, cmd, word, rest.strip()), name=f"command:{word}")
        else:
            self.spawn(self.start_run(client, cmd, text), name="command:start")

    async def start_run(self, client: AsyncWebClient, cmd: SlashCommand, task: str) -> None:
        card = await client.chat_postMessage(
            channel=cmd.channel_id, blocks=card_placeholder(task, cmd.user_id), text=f"Tandem: {task}"
        )
        where = {"channel": cmd.channel_id, "thread_ts": str(card["ts"])}
        try:
            await self.runtime.start(task, cmd.user_id, channel=where)
        except TandemError as exc:
            await self.ephemeral(client, cmd.channel_id, cmd.user_id, messages.STARTING_FAILED.format(error=exc))

    async def subcommand(self, client: AsyncWebClient, cmd: SlashCommand, word: str, arg: str) -> None:
        channel, user = cmd.channel_id, cmd.user_id
        if word == "list":
            rows = await self.store.list_runs(channel=channel, limit=100)
            open_rows, mine = [], []
            for summary in rows:
                if summary.status in ("done", "cancelled", "failed"):
                    continue
                state, _ = await self.store.load(summary.id)
                row = RunRow(
                    id=state.id,
                    task=state.task,
                    status=state.status,
                    requester=state.requester,
                    updated_at=state.updated_at,
                    waiting_on=waiting_for(state.pending) if state.pending else None,
                )
                open_rows.append(row)
                if state.pending is not None and state.requester == user:
                    mine.append(row)
            await self.ephemeral(client, channel, user, blocks=list_blocks(open_rows, mine))
            return
        if word == "rules":
            await self.ephemeral(client, channel, user, blocks=rules_blocks(await self.store.rules(channel)))
            return
        if not arg:
            await self.ephemeral(client, channel, user, f"Say which run: `/tandem {word} <run>`.")
            return
        run_id = await self.resolve(arg)
        if run_id is None:
            await self.ephemeral(client, channel, user, messages.UNKNOWN_RUN.format(run=arg))
            return
        if word == "status":
            state, _ = await self.store.load(run_id)
            lines = decision_lines(await self.store.events(run_id))
            await self.ephemeral(client, channel, user, blocks=status_blocks(state, lines))
        elif word == "cancel":
            try:
                await self.runtime.cancel(run_id, user, "cancelled with /tandem cancel")
            except TandemError as exc:
                await self.ephemeral(client, channel, user, str(exc))
            else:
                await self.ephemeral(client, channel, user, messages.CANCELLED.format(run=run_id))

    async def resolve(self, prefix: str) -> str | None:
        matches = await self.store.find(prefix.strip("`"))
        return matches[0] if len(matches) == 1 else (prefix if prefix in matches else None)

    # --- buttons --------------------------------------------------------------

    async def on_approve(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        self.spawn(self.decide_click(client, click, Approve()), name="action:approve")

    async def on_cancel(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        self.spawn(self.decide_click(client, click, Cancel(reason="")), name="action:cancel")

    async def decide_click(
        self, client: AsyncWebClient, click: BlockActions, decision: Decision, review_id: str | None = None
    ) -> bool:
        review_id = review_id if review_id is not None else click.action.value or ""
        record = await self.store.get_review(review_id)
        key = review_key(review_id)
        if record is not None and click.message and click.channel_id and await self.store.message(key) is None:
            # The process that posted this review died before noting where: the click tells us.
            await self.store.save_message(key, record.run_id, click.channel_id, click.message.ts, click.message.blocks)
        return await self.decide(client, review_id, decision, click.user.id, click.channel_id)

    async def decide(
        self, client: AsyncWebClient, review_id: str, decision: Decision, user: str, channel: str | None
    ) -> bool:
        """Apply a decision; tell the person (ephemeral) when it did not take effect."""
        record = await self.store.get_review(review_id)
        if record is None:
            await self.ephemeral(client, channel, user, messages.UNKNOWN_REVIEW)
            return False
        try:
            groups = await self.deps.directory.groups_of(user)
            await self.runtime.decide(record.run_id, decision, user, review_id=review_id, groups=groups)
        except NotAllowed as exc:
            await self.ephemeral(client, channel, user, exc.refusal.describe(user=mention, group=_group))
            return False
        except StaleDecision as exc:
            if exc.decided_by is None:
                await self.ephemeral(client, channel, user, str(exc))
                return False
            answered = await self.store.get_review(review_id)
            verb = decided_verb(answered.answer if answered else None)
            blocks = already_decided(exc.decided_by, exc.decided_at, verb)
            await self.ephemeral(client, channel, user, f"Already {verb} by {exc.decided_by}.", blocks=blocks)
            return False
        except TandemError as exc:
            await self.ephemeral(client, channel, user, messages.FAILED.format(error=exc))
            return False
        return True

    # --- handoff answers, always-allow rules ---------------------------------------

    async def on_answer(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        raw = click.action.selected_value or click.action.value or "{}"
        try:
            data = json.loads(raw)
            review_id, value = str(data["review"]), data["answer"]
        except (ValueError, KeyError, TypeError):
            await self.ephemeral(client, click.channel_id, click.user.id, messages.BAD_ANSWER_BUTTON)
            return
        self.spawn(self.decide_click(client, click, Answer(value=value), review_id), name="action:answer")

    async def on_clarify(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        try:
            data = json.loads(click.action.value or "{}")
            review_id, intent, text = str(data["review"]), str(data["intent"]), str(data["text"])
            step = data.get("step")
        except (ValueError, KeyError, TypeError):
            await self.ephemeral(client, click.channel_id, click.user.id, messages.BAD_ANSWER_BUTTON)
            return
        decision: Decision
        if intent == "approve":
            decision = Approve()
        elif intent == "cancel":
            decision = Cancel(reason=text)
        elif intent in ("replan", "retry_step", "refine_output"):
            decision = Correct(intent=intent, feedback=text, target_step=step if isinstance(step, int) else None)
        else:
            await self.ephemeral(client, click.channel_id, click.user.id, messages.BAD_ANSWER_BUTTON)
            return
        self.spawn(self.decide_click(client, click, decision, review_id), name="action:clarify")

    async def on_answer_text(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        meta = json.dumps({"review": click.action.value or "", "channel": click.channel_id or ""})
        await client.views_open(trigger_id=click.trigger_id or "", view=answer_modal(meta))

    async def on_answer_modal(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        submission = ViewSubmission.model_validate(body)
        text = (submission.view.value(ids.ANSWER_BLOCK, ids.ANSWER_ACTION) or "").strip()
        if not text:
            await ack(response_action="errors", errors={ids.ANSWER_BLOCK: messages.EMPTY_ANSWER})
            return
        await ack()
        meta = submission.view.metadata()
        decide = self.decide(
            client, meta.get("review", ""), Answer(value=text), submission.user.id, meta.get("channel")
        )
        self.spawn(decide, name="view:answer")

    async def on_approve_always(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        self.spawn(self.approve_always(client, click), name="action:approve_always")

    async def approve_always(self, client: AsyncWebClient, click: BlockActions) -> None:
        review_id, user, channel = click.action.value or "", click.user.id, click.channel_id
        record = await self.store.get_review(review_id)
        if record is None or record.step is None or channel is None:
            await self.ephemeral(client, channel, user, messages.UNKNOWN_REVIEW)
            return
        state, _ = await self.store.load(record.run_id)
        step = state.step(record.step)
        if step.risk >= Risk.DEPLOY:
            await self.ephemeral(client, channel, user, messages.NO_RULE_FOR_DEPLOY.format(tool=step.tool))
            return
        if not await self.decide_click(client, click, Approve()):
            return
        rule = Rule(
            id=uuid.uuid4().hex[:8], channel=channel, tool=step.tool, created_by=user, created_at=self.deps.clock()
        )
        await self.store.add_rule(rule)
        payload = {"rule": rule.id, "tool": rule.tool, "channel": channel}
        await self.store.append_events(
            state.id, [AuditEvent(at=rule.created_at, actor=user, kind="rule_added", payload=payload)]
        )
        text = messages.RULE_ADDED.format(tool=rule.tool, user=mention(user))
        await client.chat_postMessage(channel=channel, thread_ts=state.channel.get("thread_ts"), text=text)

    async def on_revoke_rule(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        self.spawn(self.revoke_rule(client, click.action.value or "", click.user.id, click.channel_id), name="rule")

    async def revoke_rule(self, client: AsyncWebClient, rule_id: str, user: str, channel: str | None) -> None:
        rules = await self.store.rules(channel or "")
        rule = next((r for r in rules if r.id == rule_id), None)
        approvers = {p for people in self.deps.config.approvers.values() for p in people}
        if rule is not None and approvers and user != rule.created_by and user not in approvers:
            await self.ephemeral(client, channel, user, messages.RULE_NOT_YOURS.format(user=mention(rule.created_by)))
            return
        revoked = await self.store.revoke_rule(rule_id, user, self.deps.clock()) if rule else None
        if revoked is None:
            await self.ephemeral(client, channel, user, messages.UNKNOWN_RULE)
            return
        await self.ephemeral(client, channel, user, messages.RULE_REVOKED.format(tool=revoked.tool))

    async def on_request_changes(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        # The trigger id expires in 3 s: open the modal before any other work.
        meta = {"review": click.action.value or "", "channel": click.channel_id or ""}
        await client.views_open(trigger_id=click.trigger_id or "", view=feedback_modal(json.dumps(meta)))

    async def on_override(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        meta = {"override": click.action.value or "", "channel": click.channel_id or ""}
        subject = "Tell Tandem what you meant; this applies to what the run is waiting for now."
        await client.views_open(
            trigger_id=click.trigger_id or "", view=feedback_modal(json.dumps(meta), subject=subject)
        )

    async def on_details(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        click = BlockActions.model_validate(body)
        await ack()
        loading = {"type": "modal", "title": {"type": "plain_text", "text": "Details"}, "blocks": [section("Loading…")]}
        opened = await client.views_open(trigger_id=click.trigger_id or "", view=loading)
        view_id = opened["view"]["id"]
        record = await self.store.get_review(click.action.value or "")
        if record is None:
            await client.views_update(view_id=view_id, view={**loading, "blocks": [section(messages.UNKNOWN_REVIEW)]})
            return
        state, _ = await self.store.load(record.run_id)
        review = Review(id=record.id, anchor=record.anchor, step=record.step, created_at=record.created_at)
        await client.views_update(view_id=view_id, view=review_details(state, review))

    # --- the feedback modal ---------------------------------------------------

    async def on_feedback(self, ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        submission = ViewSubmission.model_validate(body)
        view = submission.view
        feedback = (view.value(ids.FEEDBACK_BLOCK, ids.FEEDBACK_ACTION) or "").strip()
        if not feedback:
            await ack(response_action="errors", errors={ids.FEEDBACK_BLOCK: messages.EMPTY_FEEDBACK})
            return
        if len(feedback) > 3000:
            error = messages.FEEDBACK_TOO_LONG.format(length=len(feedback))
            await ack(response_action="errors", errors={ids.FEEDBACK_BLOCK: error})
            return
        await ack()
        intent = view.value(ids.INTENT_BLOCK, ids.INTENT_ACTION) or "auto"
        meta = view.metadata()
        self.spawn(self.apply_feedback(client, submission.user.id, meta, intent, feedback), name="view:feedback")

    async def apply_feedback(
        self, client: AsyncWebClient, user: str, meta: dict[str, str], intent: str, feedback: str
    ) -> None:
        channel = meta.get("channel") or None
        review_id = meta.get("review") or meta.get("override") or ""
        record = await self.store.get_review(review_id)
        if record is None:
            await self.ephemeral(client, channel, user, messages.UNKNOWN_REVIEW)
            return
        if "override" in meta:  # applies to whatever the run waits for now
            state, _ = await self.store.load(record.run_id)
            if state.pending is None:
                status = state.status
                text = messages.NOTHING_PENDING.format(run=state.id, status=status.replace("_", " "))
                await self.ephemeral(client, channel, user, text)
                return
            review_id = state.pending.id
        if intent in ("replan", "retry_step", "refine_output"):
            chosen: Intent = intent  # type: ignore[assignment]
            decision = Correct(intent=chosen, target_step=record.step, feedback=feedback)
            await self.decide(client, review_id, decision, user, channel)
            return
        await self.read_and_apply(client, record.run_id, review_id, feedback, user, channel)

    async def read_and_apply(
        self, client: AsyncWebClient, run_id: str, review_id: str | None, text: str, user: str, channel: str | None
    ) -> None:
        try:
            reading, decision, review_id = await self.runtime.read(run_id, text, review_id=review_id)
        except TandemError as exc:
            await self.ephemeral(client, channel, user, str(exc))
            return
        state, _ = await self.store.load(run_id)
        if self.runtime.unsure(reading) and reading is not None and state.pending is not None:
            where = state.channel
            blocks = clarify(reading, review_id, text, state.pending.anchor)
            if "thread_ts" in where:
                await client.chat_postMessage(
                    channel=where["channel"],
                    thread_ts=where["thread_ts"],
                    blocks=blocks,
                    text="Not sure what you meant",
                )
            else:
                await self.ephemeral(client, channel, user, "Not sure what you meant", blocks=blocks)
            payload = {"text": text[:500], "intent": reading.intent, "confidence": reading.confidence}
            await self.store.append_events(
                run_id, [AuditEvent(at=self.deps.clock(), actor=user, kind="clarify_asked", payload=payload)]
            )
            return
        if reading is not None and "thread_ts" in state.channel:
            await client.chat_postMessage(
                channel=state.channel["channel"],
                thread_ts=state.channel["thread_ts"],
                blocks=classified_reply(reading, review_id),
                text=f"Read as: {reading.intent}",
            )
        await self.decide(client, review_id, decision, user, channel)

    # --- thread replies -------------------------------------------------------

    async def on_message(self, body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient) -> None:
        message = MessageEvent.model_validate(event)
        if not message.from_a_person or message.thread_ts is None or message.thread_ts == message.ts:
            return
        await self.thread_reply(client, message)

    async def on_mention(self, body: dict[str, Any], event: dict[str, Any], client: AsyncWebClient) -> None:
        message = MessageEvent.model_validate(event)
        if not message.from_a_person:
            return
        if message.thread_ts is not None and message.thread_ts != message.ts:
            await self.thread_reply(client, message)
            return
        task = " ".join(w for w in message.text.split() if not w.startswith("<@"))
        if not await self.store.claim_delivery(f"msg:{message.channel}:{message.ts}", self.deps.clock()):
            return
        assert message.user is not None
        cmd = SlashCommand(user_id=message.user, channel_id=message.channel, text=task)
        if not task:
            await self.ephemeral(client, message.channel, message.user, blocks=help_blocks())
            return
        self.spawn(self.start_run(client, cmd, task), name="mention:start")

    async def thread_reply(self, client: AsyncWebClient, message: MessageEvent) -> None:
        assert message.user is not None and message.thread_ts is not None
        run_id = await self.store.run_for_thread(message.channel, message.thread_ts)
        if run_id is None:
            return  # not a Tandem thread
        # Slack retries events, and sends both `message` and `app_mention` for one post: act once.
        if not await self.store.claim_delivery(f"msg:{message.channel}:{message.ts}", self.deps.clock()):
            return
        state, _ = await self.store.load(run_id)
        if state.finished or state.pending is None:
            template = messages.RUN_FINISHED if state.finished else messages.NOTHING_PENDING
            text = template.format(run=run_id, status=state.status.replace("_", " "))
            await client.chat_postMessage(channel=message.channel, thread_ts=message.thread_ts, text=text)
            return
        self.spawn(
            self.read_and_apply(client, run_id, state.pending.id, message.text, message.user, message.channel),
            name="thread:reply",
        )

    # --- helpers --------------------------------------------------------------

    async def ephemeral(
        self, client: AsyncWebClient, channel: str | None, user: str, text: str = "", *, blocks: Blocks | None = None
    ) -> None:
        if not channel:
            log.info("no channel to tell %s: %s", user, text)
            return
        await client.chat_postEphemeral(
            channel=channel, user=user, text=text or "Tandem", blocks=blocks or [section(text)]
        )


def _group(group: str) -> str:
    return f"members of <!subteam^{group}>"
