"""Who gets mail (``[mail]`` in the policy file): the address of each person a reminder or an escalation may
be mailed to, by the id the policy names them with::

    [mail]
    people = { "<user id>" = "alice@example.com", "<another user id>" = "bo@example.com" }

Mail goes out only when ``TANDEM_SMTP_URL`` is set; a person with no address here gets the chat message alone.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

_ADDRESS = re.compile(r"[^@\s<>\"]+@[^@\s<>\"]+\.[^@\s<>\"]+")


def is_address(value: str) -> bool:
    """Whether ``value`` looks like one mail address (``name@example.com``; no display name, no list)."""
    return _ADDRESS.fullmatch(value) is not None


class MailRule(BaseModel):
    """``[mail]``: ``people`` maps a person's id to their mail address."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    people: dict[str, str] = Field(default_factory=dict)

    @field_validator("people")
    @classmethod
    def _addresses(cls, value: dict[str, str]) -> dict[str, str]:
        for person, address in value.items():
            if not is_address(address):
                raise ValueError(f"{person}: {address!r} is not a mail address (like alice@example.com)")
        return value

    def address_of(self, person: str) -> str | None:
        return self.people.get(person)
