"""Web API methods for modals and App Home, and what a view_submission reply does.

Modals open only with a trigger_id the workspace issued in the last three
seconds (:meth:`WorkspaceState.redeem_trigger`); each person has one modal
stack, at most three deep.
"""

from __future__ import annotations

from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.views import View as SdkView

from workspace.errors import SlackFailure
from workspace.models import MAX_VIEW_BLOCKS, MAX_VIEW_STACK, View
from workspace.params import Params, check_blocks
from workspace.state import WorkspaceState

Result = dict[str, Any]


def views_open(state: WorkspaceState, params: Params) -> Result:
    trigger = state.redeem_trigger(params.required("trigger_id"))
    spec = check_view(params.structured("view"), kind="modal")
    for view in state.open_modals(trigger.user):
        view.open = False
    view = _new_view(state, trigger.user, spec)
    view.client = trigger.client
    state.modal_stacks[trigger.user] = [view.id]
    return {"view": view.to_slack()}


def views_push(state: WorkspaceState, params: Params) -> Result:
    trigger = state.redeem_trigger(params.required("trigger_id"))
    spec = check_view(params.structured("view"), kind="modal")
    view = push(state, trigger.user, spec)
    view.client = trigger.client
    return {"view": view.to_slack()}


def views_update(state: WorkspaceState, params: Params) -> Result:
    view_id, external_id = params.optional("view_id"), params.optional("external_id")
    if view_id:
        view = state.view(view_id)
    elif external_id:
        view = state.view_by_external_id(external_id)
    else:
        raise SlackFailure("invalid_arguments", response_metadata={"messages": ["[ERROR] need view_id or external_id"]})
    _check_hash(view, params.optional("hash"))
    replace(state, view, check_view(params.structured("view"), kind=view.type))
    return {"view": view.to_slack()}


def views_publish(state: WorkspaceState, params: Params) -> Result:
    user = state.user(params.required("user_id"))
    spec = check_view(params.structured("view"), kind="home")
    current = state.home_view(user.id)
    if current is None:
        current = _new_view(state, user.id, spec)
        state.home[user.id] = current.id
    else:
        _check_hash(current, params.optional("hash"))
        replace(state, current, spec)
    return {"view": current.to_slack()}


def check_view(raw: Any, *, kind: str) -> dict[str, Any]:
    """Accept a view only if slack_sdk's View model validates it and its blocks parse."""
    if not isinstance(raw, dict):
        raise _invalid("view must be an object")
    if raw.get("type") != kind:
        raise _invalid(f"view type must be {kind!r}")
    try:
        check_blocks(raw.get("blocks", []), limit=MAX_VIEW_BLOCKS)
        SdkView(**raw).validate_json()
    except SlackFailure as exc:
        raise _invalid("; ".join(exc.extra.get("errors", [exc.error]))) from None
    except (SlackObjectFormationError, TypeError, ValueError, KeyError, AttributeError) as exc:
        raise _invalid(str(exc)) from None
    return dict(raw)


def push(state: WorkspaceState, user: str, spec: dict[str, Any]) -> View:
    stack = state.modal_stacks.get(user, [])
    if not stack:
        raise SlackFailure("not_found")
    if len(stack) >= MAX_VIEW_STACK:
        raise SlackFailure("push_limit_reached")
    view = _new_view(state, user, spec, root=stack[0], previous=stack[-1])
    stack.append(view.id)
    return view


def replace(state: WorkspaceState, view: View, spec: dict[str, Any]) -> None:
    view.spec = spec
    view.hash = state.new_hash()
    view.errors = {}


def close(state: WorkspaceState, view: View, *, clear: bool = False) -> None:
    """Close ``view`` and whatever was pushed on top of it; ``clear`` closes the whole stack."""
    stack = state.modal_stacks.get(view.user, [])
    keep = [] if clear or view.id not in stack else stack[: stack.index(view.id)]
    for view_id in stack[len(keep) :]:
        state.views[view_id].open = False
    state.modal_stacks[view.user] = keep


def apply_submission(state: WorkspaceState, view: View, reply: Any) -> None:
    """What Slack does with the bot's answer to a view_submission."""
    action = reply.get("response_action") if isinstance(reply, dict) else None
    match action:
        case None:
            close(state, view)
        case "clear":
            close(state, view, clear=True)
        case "errors":
            view.errors = {str(k): str(v) for k, v in dict(reply.get("errors") or {}).items()}
        case "update":
            replace(state, view, check_view(reply.get("view"), kind="modal"))
        case "push":
            push(state, view.user, check_view(reply.get("view"), kind="modal"))
        case _:
            raise SlackFailure("invalid_response_action")


def _new_view(
    state: WorkspaceState, user: str, spec: dict[str, Any], *, root: str | None = None, previous: str | None = None
) -> View:
    view_id = state.new_id("V")
    view = View(
        id=view_id, user=user, hash=state.new_hash(), spec=spec, root_view_id=root or view_id, previous_view_id=previous
    )
    state.views[view.id] = view
    return view


def _check_hash(view: View, given: str | None) -> None:
    if given is not None and given != view.hash:
        raise SlackFailure("hash_conflict")


def _invalid(message: str) -> SlackFailure:
    return SlackFailure(
        "invalid_arguments", response_metadata={"messages": [f"[ERROR] {message} [json-pointer:/view]"]}
    )
