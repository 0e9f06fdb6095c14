"""A run card's pace: one edit per interval, none when the card shows what it would draw already."""

from __future__ import annotations

import pytest

from agent.card_pace import CardPace
from agent.delivery import DeliveryDeferred


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_card_that_shows_this_already_is_not_edited_even_within_the_interval() -> None:
    clock = Clock()
    pace = CardPace(1.0, clock)
    pace.posted("r1", {"text": "waiting on plan review"})
    assert pace.edit_now("r1", {"text": "waiting on plan review"}) is False


def test_changed_card_within_the_interval_is_deferred_for_the_rest_of_it() -> None:
    clock = Clock()
    pace = CardPace(1.0, clock)
    pace.posted("r1", {"text": "planning"})
    clock.now += 0.25
    with pytest.raises(DeliveryDeferred) as deferred:
        pace.edit_now("r1", {"text": "waiting on plan review"})
    assert deferred.value.after == pytest.approx(0.75)


def test_changed_card_after_the_interval_is_edited_and_starts_the_next_interval() -> None:
    clock = Clock()
    pace = CardPace(1.0, clock)
    pace.posted("r1", {"text": "planning"})
    clock.now += 1.5
    assert pace.edit_now("r1", {"text": "waiting on plan review"}) is True
    pace.shown("r1", {"text": "waiting on plan review"})
    clock.now += 0.5
    with pytest.raises(DeliveryDeferred):
        pace.edit_now("r1", {"text": "step 1 running"})


def test_card_this_process_never_drew_is_edited_at_once() -> None:
    pace = CardPace(1.0, Clock())
    assert pace.edit_now("drawn-elsewhere", {"text": "waiting on plan review"}) is True


def test_edit_out_of_pace_records_what_the_card_shows_without_moving_its_interval() -> None:
    clock = Clock()
    pace = CardPace(1.0, clock)
    pace.shown("r1", {"text": "approved by U1"})
    assert pace.edit_now("r1", {"text": "approved by U1"}) is False
    assert pace.edit_now("r1", {"text": "step 2 running"}) is True
