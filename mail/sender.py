"""Sends the mail outbox channel's rows (a :class:`~agent.delivery.Sender`).

Who gets what:

* an ``email:`` handoff's question (its run's ``review`` row) goes to the address it was asked at;
* a reminder or an escalation (a :class:`~agent.models.MailNotice`) goes to the people the review waits on
  whose address the policy's ``[mail] people`` table knows (a policy group counts as its members; a chat
  platform's own user groups cannot be looked into), to the address of an ``email:`` handoff, and, for an
  escalation, to the requester too;
* every other row of a mailed run (its card, decision lines, its end) has nothing to mail and is let go.

A review decided before its mail left is not mailed (nobody is asked what is already decided). Without
``TANDEM_SMTP_URL`` nothing is mailed: reminders and escalations go to chat alone, and an ``email:`` handoff's
question fails for good, in the log and the outbox.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from agent.config import PolicyConfig
from agent.delivery import DeliveryFailed, DeliveryWorker
from agent.errors import UnknownRun
from agent.logs import ctx
from agent.models import AskHuman, Delivery, Form, MailNotice, Remind, ReviewAsked, RunState
from agent.policy import SafetyPolicy
from agent.ports import Change, Store
from mail.links import Links
from mail.messages import About
from mail.origin import MailTo
from mail.render import mail_view, render
from mail.smtp import Smtp

log = logging.getLogger("tandem.mail")


@dataclass(frozen=True)
class Outgoing:
    """Where mail goes from and how its links are made: None of it without ``TANDEM_SMTP_URL``."""

    smtp: Smtp
    sender: str
    links: Links
    base: Callable[[], str]
    """The server's address people open links on (read at send time: ``tandem dev`` knows it late)."""


def recipients(config: PolicyConfig, safety: SafetyPolicy, state: RunState, about: About) -> list[str]:
    """The addresses a mail about ``state``'s pending review goes to, each once, in order."""
    review = state.pending
    assert review is not None
    if about == "asked":  # the question goes where it was asked, as a chat question goes to its channel
        return [state.origin.address] if isinstance(state.origin, MailTo) else []
    people: list[str] = []
    for who in safety.waiting_on(state, review):
        people += config.groups.get(who, [who])
    if about == "escalate":
        people.append(state.requester)
    found = [a for p in people if (a := config.mail.address_of(p)) is not None]
    if isinstance(state.origin, MailTo):
        found.insert(0, state.origin.address)
    return list(dict.fromkeys(found))


class MailSender:
    """Mails what a row asks of people; as a runtime observer it wakes its ``worker`` when a review is asked
    or reminded, so the mail leaves at once rather than at the next poll."""

    def __init__(
        self,
        store: Store,
        safety: SafetyPolicy,
        outgoing: Outgoing | None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.config = safety.config
        self.safety = safety
        self.outgoing = outgoing
        self.clock = clock
        self.worker: DeliveryWorker | None = None

    async def on_change(self, change: Change) -> None:
        if self.worker is not None and any(isinstance(e, AskHuman | Remind) for e in change.effects):
            self.worker.wake()

    async def send(self, delivery: Delivery, *, uncertain: bool, form: Form = "full") -> None:
        message = delivery.message
        if isinstance(message, MailNotice):
            await self._mail(delivery, message.review_id, message.about, message.text)
        elif isinstance(message, ReviewAsked):
            await self._mail(delivery, message.review_id, "asked", "")
        # anything else of a mailed run (its card, decision lines, its end) has nothing to mail

    async def _mail(self, delivery: Delivery, review_id: str, about: About, note: str) -> None:
        try:
            state, _ = await self.store.load(delivery.run_id)
        except UnknownRun:
            raise DeliveryFailed(f"run {delivery.run_id} is no longer stored", permanent=True) from None
        ids = ctx(run=state.id, review=review_id, delivery=delivery.id)
        if state.finished or state.pending is None or state.pending.id != review_id:
            log.info("not mailing %s: the review is no longer pending", about, extra=ids)
            return
        outgoing = self.outgoing
        if outgoing is None:
            if about == "asked":  # the only place this question was to be shown
                raise DeliveryFailed("mail is not set up (TANDEM_SMTP_URL): the question was not sent", permanent=True)
            return
        to = recipients(self.config, self.safety, state, about)
        if not to:
            log.info("not mailing %s: nobody it waits on has a known address", about, extra=ids)
            return
        now = self.clock()
        link = outgoing.links.url(outgoing.base(), review_id)
        view = mail_view(state, state.pending, self.safety, about, note, link, now + outgoing.links.ttl)
        domain = outgoing.sender.rpartition("@")[2].rstrip(">") or "tandem"
        message_id = f"<tandem.{state.id}.{delivery.id}@{domain}>"
        await outgoing.smtp.send(render(view, outgoing.sender, to, message_id, now))
        log.info("mailed %s to %d people", about, len(to), extra=ids)
