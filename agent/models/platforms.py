"""The chat platforms a process knows: each channel package registers its own, the core names none.

A channel package describes its platform with a :class:`Platform` (its origin variants, how its
ids look, where a report can go) and calls :func:`register` when it is imported; the composition
root imports the packages it installs before it loads a policy or a run. The core asks only
through the functions below, so a new platform is a new package, never an edit here. The
base of every origin, :class:`Origin`, and the core's own :class:`Terminal` live here too, beside
the registry their validation reads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from pydantic import ModelWrapValidatorHandler, model_validator

from agent.models.base import Tagged

PrincipalKind = Literal["user", "group"]

TERMINAL = "terminal"
"""The core's own: the kind of a run started at a terminal and the platform of a name typed there."""


@dataclass(frozen=True)
class Platform:
    """What a channel package tells the core about its platform."""

    name: str
    """Its name: the ``channel`` of its origins (which delivery worker shows a run) and the
    ``platform`` of its people and groups."""
    origins: tuple[type[Origin], ...]
    """Its origin variants; a stored origin finds its class again by its ``kind`` tag."""
    parse_id: Callable[[str], PrincipalKind | None]
    """Whether a stored id names one of its users or groups (None: not one of its ids)."""
    is_place: Callable[[str], bool]
    """Whether an id names one of its places (channel, chat) a standing rule can be scoped to."""
    id_hint: str
    """How a policy names its people, for the error that rejects a name (``Acme users a_…``); "" names nobody."""
    report_destination: Callable[[str], Origin | None] | None = None
    """The origin a ``[report] channel`` id stands for, if the platform posts reports there."""
    report_hint: str = ""
    """How a policy names a report destination here (``an Acme room r_…``), when it posts reports."""
    run_origin: Callable[[str], Origin | None] | None = None
    """The origin of a run started from outside (the API) in the place an id names, if the platform has one."""
    legacy: Callable[[dict[str, str]], Origin | None] | None = None
    """The origin of a run stored before origins existed (its ``channel`` record), if it was this platform's."""
    card_lifetime: float | None = None
    """Seconds a posted card can still be clicked and updated (None: as long as it exists). A review waiting
    longer is shown on a fresh card before then (:mod:`agent.runtime.fresh_cards`)."""


_REGISTERED: dict[str, Platform] = {}
_BY_KIND: dict[str, type[Origin]] = {}
"""Each registered origin variant by its ``kind`` tag (read for every stored run loaded)."""


def register(platform: Platform) -> Platform:
    """Make ``platform`` known to the core (again: a no-op). A name or origin kind another platform
    already holds is a programming error, refused."""
    held = _REGISTERED.get(platform.name)
    if held == platform:
        return platform
    if held is not None:
        raise ValueError(f"a platform named {platform.name!r} is already registered")
    kinds = {kind_of(o) for o in platform.origins}
    if TERMINAL in kinds | {platform.name}:
        raise ValueError(f"{TERMINAL!r} is the core's own, no platform's name or origin kind")
    if taken := kinds & {kind_of(o) for p in _REGISTERED.values() for o in p.origins}:
        raise ValueError(f"origin kinds {sorted(taken)} are already registered by another platform")
    _REGISTERED[platform.name] = platform
    _BY_KIND.update({kind_of(o): o for o in platform.origins})
    return platform


def platform_named(name: str | None) -> Platform | None:
    """The registered platform called ``name``, if any."""
    return _REGISTERED.get(name) if name is not None else None


def registered() -> tuple[Platform, ...]:
    """The platforms registered so far, in the order they registered."""
    return tuple(_REGISTERED.values())


def kind_of(origin: type[Origin]) -> str:
    """The ``kind`` tag an origin class writes."""
    kind = origin.model_fields["kind"].default
    if not isinstance(kind, str):
        raise TypeError(f"{origin.__name__} has no default kind tag")
    return kind


def origin_class(kind: str) -> type[Origin] | None:
    """The registered origin variant tagged ``kind``, if any."""
    return _BY_KIND.get(kind)


def principal_of(entry: str) -> tuple[str, PrincipalKind] | None:
    """The platform whose id ``entry`` is, and whether it names a user or a group (None: no platform's)."""
    for platform in _REGISTERED.values():
        if (kind := platform.parse_id(entry)) is not None:
            return platform.name, kind
    return None


def is_place(entry: str) -> bool:
    """Whether ``entry`` names a place (a channel, a chat) on some platform."""
    return any(p.is_place(entry) for p in _REGISTERED.values())


def report_destination(entry: str) -> Origin | None:
    """Where a ``[report] channel`` id posts the report: the first platform that takes it."""
    for platform in _REGISTERED.values():
        if platform.report_destination is not None and (where := platform.report_destination(entry)):
            return where
    return None


def run_origin(entry: str) -> Origin | None:
    """Where a run asked from outside lives when ``entry`` names its place: the first platform that takes it."""
    for platform in _REGISTERED.values():
        if platform.run_origin is not None and (where := platform.run_origin(entry)) is not None:
            return where
    return None


def legacy_origin(channel: dict[str, str]) -> Origin | None:
    """The origin of a run stored before origins existed, from the platform that recognises its record."""
    for platform in _REGISTERED.values():
        if platform.legacy is not None and (where := platform.legacy(channel)) is not None:
            return where
    return None


def id_hint() -> str:
    """How a policy names people and groups on every registered platform."""
    hints = ", ".join(p.id_hint for p in _REGISTERED.values() if p.id_hint)  # (a platform may name nobody)
    return f"Use ids, not names: {hints}." if hints else "Use ids, not names (no chat platform is installed)."


def report_hint() -> str:
    """How a policy names a report destination on the registered platforms that post reports."""
    hints = " or ".join(p.report_hint for p in _REGISTERED.values() if p.report_destination is not None)
    return f"use {hints}" if hints else "no installed chat platform posts reports"


def place_hint() -> str:
    """Which platforms name places, for the error that rejects a rule's channel."""
    return ", ".join(p.name for p in _REGISTERED.values()) or "no chat platform is installed"


class Origin(Tagged):
    """Where a run lives. Each platform subclasses it with its own ``kind`` tag and fields and
    answers the three questions below; the core never reads those fields.

    Validating an ``Origin`` from stored data finds the registered variant by its ``kind``."""

    kind: str

    @property
    def channel(self) -> str | None:
        """The delivery worker that shows the run: its platform's name (None: nobody follows it)."""
        raise NotImplementedError

    @property
    def scope(self) -> str | None:
        """Where standing rules live and which runs a place lists (None: rules do not apply)."""
        raise NotImplementedError

    @property
    def thread(self) -> str | None:
        """The key that finds the run again from a reply in its thread (None: no thread, or none yet:
        a run is stored before its card, the thread's first message, is posted)."""
        raise NotImplementedError

    def at_thread(self, thread: str) -> Origin:
        """This origin once its card is posted at ``thread`` (the store keeps that key beside the run)."""
        raise NotImplementedError

    @model_validator(mode="wrap")
    @classmethod
    def _registered_variant(cls, data: Any, handler: ModelWrapValidatorHandler[Origin]) -> Origin:
        if cls is not Origin or isinstance(data, Origin):
            return handler(data)
        kind = data.get("kind") if isinstance(data, dict) else None
        variant = Terminal if kind == TERMINAL else origin_class(kind) if isinstance(kind, str) else None
        if variant is None:
            known = [TERMINAL, *(kind_of(o) for p in registered() for o in p.origins)]
            raise ValueError(
                f"origin kind {kind!r} belongs to no registered platform (known: {', '.join(known)}); "
                "the channel package that stores it must be installed and imported"
            )
        return variant.model_validate(data)


class ThreadedOrigin(Origin):
    """A place in a chat platform with the run's thread in it, rooted at the run's card. A platform's variant
    names its fields: ``PLACE`` (the channel or chat id, the rules' scope) and ``ROOT`` (the card's message id,
    None until it is posted), and the ``PLATFORM`` whose delivery worker shows it."""

    PLATFORM: ClassVar[str]
    PLACE: ClassVar[str]
    ROOT: ClassVar[str]

    @property
    def channel(self) -> str | None:
        return self.PLATFORM

    @property
    def scope(self) -> str | None:
        return str(getattr(self, self.PLACE))

    @property
    def thread(self) -> str | None:
        root = getattr(self, self.ROOT)
        return f"{self.scope}:{root}" if root is not None else None

    def at_thread(self, thread: str) -> Self:
        return self.model_copy(update={self.ROOT: thread.partition(":")[2]})


class Unfollowed(Origin):
    """A place outside every chat: no delivery worker shows its runs, rules do not apply, it has no thread."""

    @property
    def channel(self) -> str | None:
        return None

    @property
    def scope(self) -> str | None:
        return None

    @property
    def thread(self) -> str | None:
        return None

    def at_thread(self, thread: str) -> Self:
        return self


class Terminal(Unfollowed):
    """A run started from the command line: nobody follows it in a chat, rules do not apply."""

    kind: Literal["terminal"] = "terminal"
