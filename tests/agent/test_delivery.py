"""The delivery worker on a real store: shorter forms of a refused review, and claims kept alive while sending."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent.delivery import DeliveryFailed, DeliveryWorker
from agent.models import Delivery, Form, NewsLine, OutgoingKind, ReviewAsked
from storage.facade import AsyncStore

CHANNEL = "slack"


@dataclass
class Refusing:
    """A channel that refuses the forms in ``refuse`` for good and takes the others."""

    refuse: set[Form] = field(default_factory=set)
    tried: list[tuple[OutgoingKind, Form, bool]] = field(default_factory=list)

    async def send(self, delivery: Delivery, *, uncertain: bool, form: Form = "full") -> None:
        self.tried.append((delivery.message.kind, form, uncertain))
        if form in self.refuse:
            raise DeliveryFailed(f"{form} too long", permanent=True)


@dataclass
class Slow:
    """A channel whose sends take until ``release`` is set."""

    started: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    sent: list[int] = field(default_factory=list)

    async def send(self, delivery: Delivery, *, uncertain: bool, form: Form = "full") -> None:
        self.started.set()
        await self.release.wait()
        self.sent.append(delivery.id)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "delivery.db") as opened:
        yield opened


async def test_review_refused_in_full_is_sent_short_and_delivered(store: AsyncStore) -> None:
    sender = Refusing(refuse={"full"})
    await store.add_outgoing("r1", CHANNEL, [ReviewAsked(review_id="rv1")], time.time())
    assert await DeliveryWorker(store, CHANNEL, sender).pass_once() == 1
    assert sender.tried == [("review", "full", False), ("review", "short", False)]
    assert await store.undelivered("r1") == []


async def test_review_refused_in_every_form_fails_and_says_so_on_the_card_and_escalation(store: AsyncStore) -> None:
    sender = Refusing(refuse={"full", "short", "text"})
    await store.add_outgoing("r1", CHANNEL, [ReviewAsked(review_id="rv1")], time.time())
    await DeliveryWorker(store, CHANNEL, sender, escalate=True).pass_once()
    assert [form for _, form, _ in sender.tried] == ["full", "short", "text"]
    [failed] = await store.undelivered("r1")
    assert failed.status == "failed"
    assert failed.error == "refused in every form (full: full too long; short: short too long; text: text too long)"
    follow = [d.message.kind for d in await store.due_deliveries(CHANNEL, time.time(), 10)]
    assert follow == ["card", "undelivered"]


async def test_notice_refused_has_no_shorter_form_and_fails_at_once(store: AsyncStore) -> None:
    sender = Refusing(refuse={"full"})
    await store.add_outgoing("r1", CHANNEL, [NewsLine(text="hi")], time.time())
    await DeliveryWorker(store, CHANNEL, sender).pass_once()
    assert sender.tried == [("notify", "full", False)]
    assert [d.error for d in await store.undelivered("r1")] == ["full too long"]


async def test_send_longer_than_the_lease_is_renewed_and_never_taken_over(store: AsyncStore) -> None:
    lease = 0.4
    slow, other = Slow(), Refusing()
    await store.add_outgoing("r1", CHANNEL, [NewsLine(text="hi")], time.time())
    owner = DeliveryWorker(store, CHANNEL, slow, lease=lease)
    rival = DeliveryWorker(store, CHANNEL, other, lease=lease)
    sending = asyncio.create_task(owner.pass_once())
    await slow.started.wait()
    began = time.monotonic()
    while time.monotonic() - began < 4 * lease:  # a second replica keeps looking for rows to take over
        await rival.pass_once()
        await asyncio.sleep(lease / 8)
    slow.release.set()
    assert await sending == 1
    assert other.tried == [], "a live send was taken over"
    assert await store.undelivered("r1") == []


async def test_claim_of_a_dead_worker_is_taken_over_after_the_lease_uncertain(store: AsyncStore) -> None:
    lease = 0.3
    await store.add_outgoing("r1", CHANNEL, [ReviewAsked(review_id="rv1")], time.time())
    [row] = await store.due_deliveries(CHANNEL, time.time(), lease)
    assert (await store.claim_delivery_row(row.id, time.time(), lease)).claimed  # its worker then dies
    sender = Refusing()
    worker = DeliveryWorker(store, CHANNEL, sender, lease=lease)
    began = time.monotonic()
    while not sender.tried:
        assert time.monotonic() - began < 5, "never taken over"
        await worker.pass_once()
        await asyncio.sleep(0.02)
    assert time.monotonic() - began >= lease * 0.9
    assert sender.tried == [("review", "full", True)]
