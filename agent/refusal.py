"""Why a person may not make a decision, with who may: what a refusal says, apart from how it was decided
(:mod:`agent.authz`), so errors and channels can carry one without importing the policy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Refusal"]


@dataclass(frozen=True)
class Refusal:
    """Why a person may not make this decision, with who may."""

    actor: str
    action: str  # e.g. "approve deploy steps"
    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    note: str = ""

    def describe(
        self,
        user: Callable[[str], str] = lambda u: f"@{u}",
        group: Callable[[str], str] = lambda g: f"members of @{g}",
    ) -> str:
        who = [user(u) for u in self.users] + [group(g) for g in self.groups]
        if not who:
            return f"Nobody may {self.action} here{self.note}; check the approvers in the policy."
        names = who[0] if len(who) == 1 else ", ".join(who[:-1]) + " or " + who[-1]
        return f"Only {names} can {self.action}{self.note}. Nothing changed."
