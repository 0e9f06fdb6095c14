"""``await human.ask(...)``: a tool hands a structured question to a person.

No coroutine waits for the answer. The first time a tool asks, the call raises
:class:`NeedsHuman`; the runtime pauses the run at a ``handoff`` review (stored
like any other) and the process may stop. When the answer arrives, the step
runs again from the top and this time ``ask`` returns the stored answer, in
order, so a tool can ask several times (chained handoffs). Tool code before an
``ask`` therefore runs again on resume: ask first, act after.

    from agent import human
    from agent.tools import tool

    @tool
    async def pick_region(service: str) -> str:
        region = await human.ask(
            f"Which region should {service} move to?",
            input_type="choice", options=["eu-west-1", "us-east-1", "other"],
            reason="ambiguous intent", timeout=3600, on_timeout="use_default", default="eu-west-1",
        )
        if region == "other":
            region = await human.ask("Type the region", input_type="text")
        return region
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.errors import ToolError
from agent.models import Handoff, InputType, Priority

Strategy = Literal["cancel", "reassign", "use_default", "pause", "escalate"]


class NeedsHuman(BaseException):  # noqa: N818 - a flow-control signal, not a failure
    """Raised by ``ask`` when no answer is stored yet. Derives from BaseException so a
    tool's own ``except Exception`` cannot swallow it."""

    def __init__(
        self,
        handoff: Handoff,
        *,
        assignees: list[str],
        quorum: int,
        timeout: float | None,
        on_timeout: Strategy | None,
    ) -> None:
        super().__init__(handoff.prompt)
        self.handoff = handoff
        self.assignees = assignees
        self.quorum = quorum
        self.timeout = timeout
        self.on_timeout = on_timeout


class PlannerQuestion(Exception):  # noqa: N818 - a flow-control signal, not a failure
    """The planner is not sure enough to propose a plan: it asks a person first."""

    def __init__(self, question: str, options: list[str] | None = None) -> None:
        super().__init__(question)
        self.question = question
        self.options = list(options or [])


class NothingToDo(Exception):  # noqa: N818 - a flow-control signal, not a failure
    """No tool can do any part of the task: ``reason`` says so, with what the tools can do."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Replay:
    answers: list[Any]
    index: int = field(default=0)


_replay: ContextVar[_Replay | None] = ContextVar("tandem_human_replay", default=None)


@contextmanager
def replay(answers: list[Any]) -> Iterator[None]:
    """Bind the answers already given to this step's questions (the runtime does this)."""
    token = _replay.set(_Replay(list(answers)))
    try:
        yield
    finally:
        _replay.reset(token)


def given() -> list[Any]:
    """The answers already given to this step's questions (empty outside a step)."""
    state = _replay.get()
    return list(state.answers) if state is not None else []


def ask_now(
    prompt: str,
    input_type: InputType = "text",
    options: list[str] | None = None,
    context: dict[str, Any] | None = None,
    reason: str = "",
    timeout: float | None = None,
    on_timeout: Strategy | None = None,
    priority: Priority = "normal",
    assignees: list[str] | None = None,
    quorum: int = 1,
    default: Any = None,
    max_length: int = 3000,
) -> Any:
    """The synchronous form of :func:`ask`, for sync tools."""
    state = _replay.get()
    if state is None:
        raise ToolError("human.ask only works inside a tool that Tandem runs.")
    call = state.index
    state.index += 1
    if call < len(state.answers):
        return state.answers[call]
    options = list(options or [])
    if input_type == "choice" and not options:
        raise ToolError("human.ask(input_type='choice') needs options.")
    handoff = Handoff(
        prompt=prompt,
        input_type=input_type,
        options=options,
        context=context or {},
        reason=reason,
        priority=priority,
        default=default,
        max_length=max_length,
        call=call,
    )
    if on_timeout == "use_default":
        if default is None:
            raise ToolError("human.ask(on_timeout='use_default') needs a default.")
        try:
            handoff.validate_answer(default)
        except ValueError as exc:
            raise ToolError(f"human.ask default is not a valid answer: {exc}") from None
    if quorum < 1 or (assignees and quorum > len(assignees)):
        raise ToolError(f"human.ask quorum {quorum} cannot be met by {len(assignees or [])} assignees.")
    raise NeedsHuman(handoff, assignees=list(assignees or []), quorum=quorum, timeout=timeout, on_timeout=on_timeout)


async def ask(
    prompt: str,
    input_type: InputType = "text",
    options: list[str] | None = None,
    context: dict[str, Any] | None = None,
    reason: str = "",
    timeout: float | None = None,  # noqa: ASYNC109 - the handoff's deadline, not an await timeout
    on_timeout: Strategy | None = None,
    priority: Priority = "normal",
    assignees: list[str] | None = None,
    quorum: int = 1,
    default: Any = None,
    max_length: int = 3000,
) -> Any:
    """Ask a person; returns the validated answer (see the module docstring)."""
    return ask_now(
        prompt,
        input_type,
        options,
        context,
        reason,
        timeout,
        on_timeout,
        priority,
        assignees,
        quorum,
        default,
        max_length,
    )
