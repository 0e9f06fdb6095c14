"""The A2A methods on Tandem's runs: a task is a run, requested by the token that sent its first message.

``SendMessage`` without a ``taskId`` starts a run (as ``/tandem TASK`` does); with one, it answers that run's
pending review through the same use case as a button. ``GetTask``, ``CancelTask`` and ``SubscribeToTask``
read and stop the run. Every task is read from the stored run, so nothing is lost when the process restarts.
A token sees only the runs it started over A2A (see :class:`~agent.models.tokens.TaskRecord`): another's is "not
found" to it. The same start message (its ``messageId``) sent again finds its run instead of starting another.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any, assert_never

from a2a.helpers.proto_helpers import get_message_text
from a2a.server.context import ServerCallContext
from a2a.server.events.event_queue import Event
from a2a.server.request_handlers import RequestHandler
from a2a.types import (
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
)
from a2a.utils.errors import (
    InvalidParamsError,
    InvalidRequestError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from google.protobuf.json_format import MessageToDict

from agent.errors import UnknownRun
from agent.models import RunState, mention, moment
from agent.models.platforms import place_hint, run_origin
from agent.models.tokens import ApiToken, TaskRecord
from agent.usecases import AlreadyDecided, Answered, Applied, Asked, NeedsButton, NotApplied, Outcome, Refused
from api.a2a import answers, tasks
from api.a2a.watch import Door, updates

TOKEN = "tandem.token"
"""Where the request's checked token waits in the call context's state (see :mod:`api.a2a.auth`)."""


def _token(context: ServerCallContext) -> ApiToken:
    token = context.state.get(TOKEN)
    assert isinstance(token, ApiToken), "the A2A routes are served only behind the token check"
    return token


def _refused(outcome: Outcome) -> str | None:
    """Why ``outcome`` changed nothing (None: it took effect, or was taken as a question or clarified)."""
    match outcome:
        case Applied() | Asked() | Answered():
            return None
        case Refused(refusal=refusal):
            return refusal.describe()
        case AlreadyDecided(by=str(by), at=float(at), verb=verb):
            return f"Already {verb} by {mention(by)} at {moment(at)}; nothing changed."
        case NeedsButton(review_id=review):
            choice = f'{{"review_id": "{review}", "choice": "approve"}}'
            return f"This step is approved with the data {choice}, not with text; nothing changed."
        case AlreadyDecided(message=message) | NotApplied(message=message):
            return message
        case _:
            assert_never(outcome)


class RunsHandler(RequestHandler):
    def __init__(self, door: Door) -> None:
        self.door = door
        self._starting: dict[tuple[str, str], asyncio.Lock] = {}  # (token, message id) -> its start, in this process

    async def _owned(self, run_id: str, token: ApiToken) -> tuple[RunState, TaskRecord]:
        record = await self.door.store.task_by_id(run_id)
        if record is None or record.token != token.name:
            raise TaskNotFoundError(f"No task {run_id} for this token.")
        try:
            state, _ = await self.door.store.load(run_id)
        except UnknownRun:  # pruned
            raise TaskNotFoundError(f"No task {run_id} for this token.") from None
        return state, record

    def _task(self, state: RunState, record: TaskRecord) -> Task:
        return tasks.task(state, self.door.runtime.safety, record.context_id)

    async def _send(self, params: SendMessageRequest, context: ServerCallContext) -> tuple[RunState, TaskRecord]:
        token, message = _token(context), params.message
        if message.task_id:
            return await self._answer(message, token)
        if not message.message_id:
            raise InvalidParamsError(
                "Give the message a messageId: sent again, it finds its task instead of a new one."
            )
        key = (token.name, message.message_id)
        lock = self._starting.setdefault(key, asyncio.Lock())
        try:
            async with lock:  # the same message twice at once: the second finds the run the first started
                return await self._start(params, token)
        finally:
            if not lock.locked():
                self._starting.pop(key, None)

    async def _start(self, params: SendMessageRequest, token: ApiToken) -> tuple[RunState, TaskRecord]:
        message = params.message
        known = await self.door.store.task_by_message(token.name, message.message_id)
        if known is not None:
            return (await self.door.store.load(known.id))[0], known
        text = get_message_text(message, "\n").strip()
        if not text:
            raise InvalidParamsError("Say what Tandem should do: send the task as a text part.")
        meta: dict[str, Any] = MessageToDict(message.metadata) if message.HasField("metadata") else {}
        if params.HasField("metadata"):
            meta = {**MessageToDict(params.metadata), **meta}
        channel = meta.get("channel")
        origin = run_origin(channel) if isinstance(channel, str) else None
        if origin is None:
            raise InvalidParamsError(
                "Name the channel where your people follow and steer the run: message metadata "
                f'{{"channel": "C0123ABCD"}} ({place_hint()}); got {channel!r}.'
            )
        outcome = await self.door.usecases.start(text, token.principal, origin)
        if isinstance(outcome, NotApplied):
            raise InvalidRequestError(tasks.plain(outcome.message))
        state = outcome.state
        record = TaskRecord(
            id=state.id,
            token=token.name,
            context_id=message.context_id or state.id,
            message_id=message.message_id,
            created_at=self.door.runtime.clock(),
        )
        kept = await self.door.store.keep_task(record)
        if kept.id != state.id:  # another process started this message's run meanwhile: that one is the task
            await self.door.usecases.cancel(state.id, token.principal, "started twice by the same A2A message")
            return (await self.door.store.load(kept.id))[0], kept
        return state, kept

    async def _answer(self, message: Message, token: ApiToken) -> tuple[RunState, TaskRecord]:
        state, record = await self._owned(message.task_id, token)
        if message.context_id and message.context_id != record.context_id:
            raise InvalidParamsError(f"Context {message.context_id} is not the context of task {state.id}.")
        if state.finished:
            raise UnsupportedOperationError(f"Task {state.id} has ended ({state.status}); nothing changed.")
        try:
            answer = answers.parse(message)
            outcome = await answers.apply(self.door.usecases, state.id, answer, token.principal)
        except answers.BadAnswer as exc:
            raise InvalidParamsError(str(exc)) from None
        why = _refused(outcome)
        if why is not None:
            raise InvalidRequestError(tasks.plain(why))
        fresh, _ = await self.door.store.load(state.id)
        return fresh, record

    async def on_message_send(self, params: SendMessageRequest, context: ServerCallContext) -> Task | Message:
        return self._task(*await self._send(params, context))

    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event]:
        state, record = await self._send(params, context)
        async for event in updates(self.door, state, record.context_id, until_input=True):
            yield event

    async def on_get_task(self, params: GetTaskRequest, context: ServerCallContext) -> Task | None:
        return self._task(*await self._owned(params.id, _token(context)))

    async def on_cancel_task(self, params: CancelTaskRequest, context: ServerCallContext) -> Task | None:
        token = _token(context)
        state, record = await self._owned(params.id, token)
        if state.finished:
            raise TaskNotCancelableError(f"Task {state.id} has already ended ({state.status}).")
        outcome = await self.door.usecases.cancel(state.id, token.principal, "cancelled over A2A")
        if isinstance(outcome, AlreadyDecided):
            raise TaskNotCancelableError(tasks.plain(outcome.message))
        why = _refused(outcome)
        if why is not None:
            raise TaskNotCancelableError(tasks.plain(why))
        fresh, _ = await self.door.store.load(state.id)
        return self._task(fresh, record)

    async def on_subscribe_to_task(
        self, params: SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event]:
        state, record = await self._owned(params.id, _token(context))
        async for event in updates(self.door, state, record.context_id, until_input=False):
            yield event

    async def on_list_tasks(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        raise UnsupportedOperationError("Listing tasks is not offered; keep the ids SendMessage returned.")

    async def on_get_extended_agent_card(
        self, params: GetExtendedAgentCardRequest, context: ServerCallContext
    ) -> AgentCard:
        raise UnsupportedOperationError("There is no extended agent card.")

    async def on_create_task_push_notification_config(
        self, params: TaskPushNotificationConfig, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError

    async def on_get_task_push_notification_config(
        self, params: GetTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> TaskPushNotificationConfig:
        raise PushNotificationNotSupportedError

    async def on_list_task_push_notification_configs(
        self, params: ListTaskPushNotificationConfigsRequest, context: ServerCallContext
    ) -> ListTaskPushNotificationConfigsResponse:
        raise PushNotificationNotSupportedError

    async def on_delete_task_push_notification_config(
        self, params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> None:
        raise PushNotificationNotSupportedError
