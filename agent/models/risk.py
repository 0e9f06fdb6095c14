"""How much harm a tool can do."""

from __future__ import annotations

from enum import IntEnum


class Risk(IntEnum):
    """How much harm a tool can do. Ordered: read < write < exec < deploy."""

    READ = 0
    WRITE = 1
    EXEC = 2
    DEPLOY = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, value: str | int | Risk) -> Risk:
        if isinstance(value, Risk):
            return value
        if isinstance(value, int):
            return cls(value)
        try:
            return cls[value.strip().upper()]
        except KeyError:
            names = ", ".join(r.label for r in cls)
            raise ValueError(f"unknown risk level {value!r}; use one of {names}") from None
