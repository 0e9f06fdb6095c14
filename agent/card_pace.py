"""How often a run card is edited: at most once per interval, and not when it shows what it would draw already.

Every chat channel paces its run cards with this. What a card showed and when is kept by
the process that drew it: after a restart, or on another replica, the first edit goes out as before.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from agent.delivery import DeliveryDeferred


def fingerprint(card: object) -> int:
    """What a drawn card shows, as a number to compare with what it showed before (in this process)."""
    return hash(json.dumps(card, sort_keys=True, default=str))


class CardPace:
    """Each run card's last edit (time and fingerprint), and whether the next may go out now."""

    def __init__(self, interval: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self._at: dict[str, float] = {}
        self._shown: dict[str, int] = {}

    def posted(self, run_id: str, card: object) -> None:
        """The card was just posted (or edited on its interval) showing ``card``."""
        self._at[run_id] = self.clock()
        self._shown[run_id] = fingerprint(card)

    def shown(self, run_id: str, card: object) -> None:
        """The card now shows ``card`` (an edit made out of pace, e.g. at once after a click)."""
        self._shown[run_id] = fingerprint(card)

    def edit_now(self, run_id: str, card: object) -> bool:
        """Whether to edit the card to show ``card`` now: not when it shows it already (in a burst, a new run's
        card is mostly posted after the change that asked for its first edit); :class:`DeliveryDeferred` when the
        last edit was less than the interval ago (later changes join the deferred edit)."""
        if self._shown.get(run_id) == fingerprint(card):
            return False
        wait = self._at.get(run_id, -1e9) + self.interval - self.clock()
        if wait > 0:
            raise DeliveryDeferred(wait)
        self._at[run_id] = self.clock()
        return True
