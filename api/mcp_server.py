"""Tandem as an MCP server: ``ask_human`` and ``request_approval`` let any MCP client ask your people.

Both tools go through the same use case as ``POST /api/v1/handoffs`` (:class:`agent.asking.Asking`): the
handoff is a run that only asks, posted in the named Slack channel or Feishu chat by the running bot and
answered there under the policy (or, with ``channel="inbox"``, posted nowhere and answered in the assignees' web
inbox). The tool call waits for the answer, sending a progress notification every
``progress_every`` seconds so the client keeps the call open, and returns it typed.

A call cut off (the client went away) leaves the handoff pending in chat: the person may still answer, and
a call again with the same ``idempotency_key`` returns the same handoff, answered or waited for again.

The same tools are served over stdio by ``tandem mcp`` (:mod:`cli.mcp_server`), acting as the client it was
started for, and over streamable HTTP at ``/mcp`` on ``tandem serve`` (:mod:`api.mcp_http`), acting as each
request's token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ValidationError

from agent.asking import MAX_WAIT, Asking, AskRequest, Caller, HandoffView, NoSuchHandoff, Status
from agent.machine.asked import OnTimeout

PROGRESS_EVERY = 15.0
"""Seconds between progress notifications while a tool waits for its answer."""
Risk = Literal["low", "medium", "high", "critical"]
PRIORITY_OF_RISK = {"low": "low", "medium": "normal", "high": "high", "critical": "urgent"}


class HumanAnswer(BaseModel):
    """What ``ask_human`` returns: the handoff's id, its status, and (once decided) the answer, who, when."""

    id: str
    status: Status
    answer: Any = None
    by: str | None = None
    at: float | None = None


class ApprovalResult(BaseModel):
    """What ``request_approval`` returns: ``approved`` is true or false once decided, else null."""

    id: str
    status: Status
    approved: bool | None = None
    by: str | None = None
    at: float | None = None


def _refused(exc: ValidationError) -> ToolError:
    first = exc.errors()[0]
    detail = str(first["msg"]).removeprefix("Value error, ")
    field = ".".join(str(x) for x in first["loc"])
    return ToolError(f"{field}: {detail}" if field else detail)


Identify = Callable[[Context | None], Caller]
"""Who calls a tool: over stdio, the client ``tandem mcp`` was started for; over HTTP, the request's token."""


def always(caller: Caller) -> Identify:
    """Every call is ``caller``'s (one client per process, as over stdio)."""
    return lambda _ctx: caller


class HandoffTools:
    """The two tools on one :class:`Asking`, each call acting as whom ``identify`` says."""

    def __init__(self, asking: Asking, identify: Identify, *, progress_every: float = PROGRESS_EVERY) -> None:
        self.asking = asking
        self.identify = identify
        self.progress_every = progress_every

    async def handoff(self, fields: dict[str, Any], ctx: Context | None) -> HandoffView:
        """Ask (or find the handoff already asked with this idempotency key), then wait until it is decided."""
        try:
            wanted = AskRequest.model_validate({k: v for k, v in fields.items() if v is not None})
        except ValidationError as exc:
            raise _refused(exc) from None
        caller = self.identify(ctx)
        asked = await self.asking.ask(caller, wanted, reason=f"asked by {caller.principal} over MCP")
        view = asked.handoff
        waited = 0.0
        while view.status == "pending":
            step = min(max(self.progress_every, 0.1), MAX_WAIT)  # (never a busy loop)
            read = await self.asking.read(caller, view.id, step)
            if isinstance(read, NoSuchHandoff):  # pruned meanwhile
                raise ToolError(f"Handoff {view.id} is gone (pruned); ask again.")
            view, waited = read, waited + step
            if view.status == "pending" and ctx is not None:
                await ctx.report_progress(waited, wanted.timeout, f"Waiting for an answer in {wanted.channel}")
        return view

    async def ask_human(
        self,
        question: str,
        channel: str,
        assignees: list[str],
        input_type: Literal["text", "choice", "confirm"] = "text",
        options: list[str] | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 (the tool parameter named by the spec)
        on_timeout: OnTimeout | None = None,
        default: Any = None,
        idempotency_key: str | None = None,
        ctx: Context | None = None,
    ) -> HumanAnswer:
        """Ask a person in a Slack channel or Feishu chat and wait for the answer. channel: the channel or chat
        id, or "inbox" (asked in the assignees' web inbox alone); assignees: who may answer (user or group ids);
        timeout in seconds. Give an idempotency_key to wait again for the same question after a reconnect."""
        fields: dict[str, Any] = {
            "prompt": question,
            "channel": channel,
            "assignees": assignees,
            "input_type": input_type,
        }
        fields |= {"options": options, "timeout": timeout, "on_timeout": on_timeout, "default": default}
        view = await self.handoff({**fields, "idempotency_key": idempotency_key}, ctx)
        return HumanAnswer(id=view.id, status=view.status, answer=view.answer, by=view.by, at=view.at)

    async def request_approval(
        self,
        action: str,
        channel: str,
        approvers: list[str],
        details: str = "",
        risk: Risk = "medium",
        quorum: int = 1,
        idempotency_key: str | None = None,
        ctx: Context | None = None,
    ) -> ApprovalResult:
        """Ask people to approve an action and wait for their yes or no (approved true or false). channel: a Slack
        channel or Feishu chat id, or "inbox" (asked in the approvers' web inbox alone); quorum: how many approvers
        must answer. Give an idempotency_key to wait again for the same request after a reconnect."""
        fields: dict[str, Any] = {
            "prompt": f"Approve: {action}?",
            "channel": channel,
            "assignees": approvers,
            "quorum": quorum,
        }
        fields |= {"input_type": "confirm", "priority": PRIORITY_OF_RISK[risk], "idempotency_key": idempotency_key}
        fields["context"] = {"risk": risk} | ({"details": details} if details else {})
        view = await self.handoff(fields, ctx)
        approved = view.answer if view.status == "resolved" and isinstance(view.answer, bool) else None
        return ApprovalResult(id=view.id, status=view.status, approved=approved, by=view.by, at=view.at)


def build_server(tools: HandoffTools) -> MCPServer:
    """The MCP server offering ``tools`` (run it with ``.run_stdio_async()``, or serve its HTTP app)."""
    server = MCPServer(
        "tandem",
        instructions="Ask Tandem's people: ask_human for an answer, request_approval for a yes or no.",
    )
    waits = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)

    server.tool(annotations=waits)(tools.ask_human)
    server.tool(annotations=waits)(tools.request_approval)
    return server
