from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from agent.errors import InvalidParams, ToolError, UnknownTool
from agent.models import Risk
from agent.tools import ToolRegistry, ToolSpec, load_tools, parse_docstring, risk_from_name, tool

DEMO_TOOLS = [
    "list_services",
    "check_service",
    "read_logs",
    "query_metrics",
    "scale_service",
    "restart_service",
    "deploy_service",
    "rollback_service",
    "drop_cache",
    "send_message",
]


def spec_of(fn: Any) -> ToolSpec:
    registry = ToolRegistry()
    registry.add_function(fn)
    return registry.specs()[0]


@tool(risk=Risk.DEPLOY)
def ship(service: Literal["a", "b"], version: str, canary: Annotated[int, Field(ge=0, le=100)] = 10) -> str:
    """Ship a version of a service.

    Rolls out gradually.

    Args:
        service: Which service to ship.
        version (str): The release to roll out,
            like 1.2.3.
        canary: Percent of traffic on the new version first.

    Returns:
        What was shipped.
    """
    return f"{service}@{version} ({canary}%)"


@tool
async def purge_queue(queue: str) -> str:
    """Purge a queue."""
    await asyncio.sleep(0)
    return f"purged {queue}"


@tool(name="whoami")
def current_thread_name() -> str:
    return threading.current_thread().name


def test_tool_decorator_marks_function_and_keeps_it_callable() -> None:
    assert ship("a", "1.0") == "a@1.0 (10%)"
    spec = spec_of(ship)
    assert (spec.name, spec.risk, spec.fn) == ("ship", Risk.DEPLOY, ship)


def test_tool_without_docstring_describes_itself_by_name() -> None:
    spec = spec_of(current_thread_name)
    assert (spec.name, spec.description) == ("whoami", "whoami")


def test_tool_description_with_args_section_drops_it() -> None:
    assert (
        spec_of(ship).description
        == "Ship a version of a service.\n\nRolls out gradually.\n\nReturns:\n    What was shipped."
    )


def test_tool_schema_with_docstring_args_has_descriptions_enums_and_bounds() -> None:
    schema = spec_of(ship).json_schema()
    props = schema["properties"]
    assert props["service"]["description"] == "Which service to ship."
    assert props["service"]["enum"] == ["a", "b"]
    assert props["version"]["description"] == "The release to roll out, like 1.2.3."
    assert (props["canary"]["minimum"], props["canary"]["maximum"], props["canary"]["default"]) == (0, 100, 10)
    assert schema["required"] == ["service", "version"]
    assert schema["additionalProperties"] is False
    assert "title" not in schema


@pytest.mark.parametrize(
    ("doc", "description", "params"),
    [
        ("Just a summary.", "Just a summary.", {}),
        ("", "", {}),
        ("Do it.\n\nArgs:\n    x: The x.\n    *rest: Others.", "Do it.", {"x": "The x.", "rest": "Others."}),
        ("Do it.\n\nArguments:\n  x (int): One\n    two.\n\n  y: Why.", "Do it.", {"x": "One two.", "y": "Why."}),
        ("Do it.\n\nArgs:\n    x: The x.\nMore text.", "Do it.\n\nMore text.", {"x": "The x."}),
    ],
)
def test_parse_docstring_with_google_style_splits_description_and_params(
    doc: str, description: str, params: dict[str, str]
) -> None:
    assert parse_docstring(doc) == (description, params)


@pytest.mark.parametrize(
    ("name", "risk"),
    [
        ("drop_cache", Risk.EXEC),
        ("send_message", Risk.WRITE),
        ("rollback_release", Risk.DEPLOY),
        ("get_status", Risk.READ),
    ],
)
def test_risk_from_name_with_pattern_picks_level(name: str, risk: Risk) -> None:
    assert risk_from_name(name) == risk


def test_tool_without_declared_risk_gets_it_from_name() -> None:
    assert spec_of(purge_queue).risk == Risk.EXEC


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"version": "1.0"}, "service: Field required"),
        ({"service": "c", "version": "1.0"}, "service: Input should be 'a' or 'b'"),
        ({"service": "a", "version": "1.0", "canary": 101}, "canary: Input should be less than or equal to 100"),
        ({"service": "a", "version": "1.0", "force": True}, "force: Extra inputs are not permitted"),
    ],
)
def test_validate_with_bad_params_raises_invalid_params(params: dict[str, Any], problem: str) -> None:
    with pytest.raises(InvalidParams, match=f"Invalid parameters for tool 'ship': .*{problem}"):
        spec_of(ship).validate(params)


def test_validate_with_good_params_fills_defaults() -> None:
    assert spec_of(ship).validate({"service": "b", "version": "2"}) == {"service": "b", "version": "2", "canary": 10}


def test_tool_with_var_args_is_rejected() -> None:
    def bad(*names: str) -> None: ...

    with pytest.raises(TypeError, match="may not take"):
        tool(bad)


async def test_call_with_sync_tool_runs_it_in_a_worker_thread() -> None:
    result = await spec_of(current_thread_name).call({})
    assert result != threading.current_thread().name


async def test_call_with_async_tool_awaits_it() -> None:
    assert await spec_of(purge_queue).call({"queue": "jobs"}) == "purged jobs"


async def test_call_with_bad_params_raises_before_running() -> None:
    with pytest.raises(InvalidParams):
        await spec_of(ship).call({"service": "nope", "version": "1"})


def test_registry_with_duplicate_name_raises() -> None:
    with pytest.raises(ToolError, match="Two tools are named 'ship'"):
        ToolRegistry([spec_of(ship), spec_of(ship)])


def test_registry_get_with_unknown_name_lists_known_tools() -> None:
    with pytest.raises(UnknownTool, match="Unknown tool 'nope'. Known tools: ship."):
        ToolRegistry([spec_of(ship)]).get("nope")


def test_registry_add_function_without_mark_raises() -> None:
    with pytest.raises(ToolError, match="is not marked with @tool"):
        ToolRegistry().add_function(len)


def test_load_tools_with_default_module_registers_demo_tools() -> None:
    registry = load_tools()
    assert registry.names == DEMO_TOOLS
    risks = {spec.name: spec.risk for spec in registry.specs()}
    assert risks["drop_cache"] == Risk.EXEC
    assert risks["send_message"] == Risk.WRITE
    assert risks["restart_service"] == Risk.EXEC
    assert risks["deploy_service"] == risks["rollback_service"] == Risk.DEPLOY
    assert risks["scale_service"] == Risk.WRITE
    assert {risks[name] for name in ("list_services", "check_service", "read_logs", "query_metrics")} == {Risk.READ}


def test_load_tools_with_demo_tools_schema_shows_service_enum_and_descriptions() -> None:
    schema = load_tools().get("read_logs").json_schema()
    service = schema["properties"]["service"]
    assert service["enum"] == ["payments", "checkout", "search", "auth", "notifications"]
    assert service["description"]
    assert schema["properties"]["level"]["enum"] == ["all", "info", "warning", "error"]


def test_load_tools_with_blank_names_skips_them() -> None:
    assert len(load_tools([" demo.tools ", ""])) == len(DEMO_TOOLS)


def test_load_tools_with_bad_module_name_raises_tool_error() -> None:
    with pytest.raises(ToolError, match="Cannot import tool module 'no_such_tools' \\(from TANDEM_TOOLS\\)"):
        load_tools(["no_such_tools"])


def test_load_tools_with_module_without_tools_raises_tool_error() -> None:
    with pytest.raises(ToolError, match="Tool module 'agent.errors' defines no @tool functions"):
        load_tools(["agent.errors"])


def test_tool_known_values_come_from_enums_and_literals() -> None:
    spec = load_tools(["demo.tools"]).get("read_logs")

    assert spec.known_values() == {
        "service": ["payments", "checkout", "search", "auth", "notifications"],
        "level": ["all", "info", "warning", "error"],
    }


@pytest.mark.parametrize(
    ("params", "why"),
    [
        (
            {"service": "orders"},
            "There is no service `orders`. Known: payments, checkout, search, auth, notifications.",
        ),
        ({"service": "payments", "level": "debug"}, "There is no level `debug`. Known: all, info, warning, error."),
        ({"service": "payments", "level": "error", "limit": 999}, None),  # not an enum: validation says why
    ],
)
def test_tool_unknown_value_names_it_and_the_known_ones(params: dict[str, Any], why: str | None) -> None:
    assert load_tools(["demo.tools"]).get("read_logs").unknown_value(params) == why


def _channels() -> list[str]:
    return ["#ops", "#payments-oncall"]


def _down() -> list[str]:
    raise ConnectionError("directory down")


def test_tool_values_provider_is_known_and_refuses_others() -> None:
    @tool(values={"channel": _channels})
    def post(channel: str, text: str) -> str:
        """Post a message."""
        return text

    spec = _registry(post)
    assert spec.known_values() == {"channel": ["#ops", "#payments-oncall"]}
    assert spec.unknown_value({"channel": "#nope", "text": "x"}) == (
        "There is no channel `#nope`. Known: #ops, #payments-oncall."
    )
    assert spec.unknown_value({"channel": "#ops", "text": "x"}) is None


def test_tool_values_provider_that_fails_leaves_the_parameter_free() -> None:
    @tool(values={"channel": _down})
    def post(channel: str) -> str:
        """Post."""
        return channel

    assert _registry(post).known_values() == {}


def test_tool_values_for_a_parameter_it_lacks_is_refused() -> None:
    with pytest.raises(TypeError, match="tool 'post' has no parameter 'room'"):

        @tool(values={"room": _channels})
        def post(channel: str) -> str:
            """Post."""
            return channel


def _registry(fn: Any) -> ToolSpec:
    registry = ToolRegistry()
    registry.add_function(fn)
    return registry.get(fn.__name__)
