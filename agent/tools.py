"""Tools: plain functions with a risk level and a validated parameter schema.

    from agent.tools import tool, Risk

    @tool(risk=Risk.DEPLOY)
    def deploy(service: str, version: str) -> str:
        '''Deploy a version of a service.

        Args:
            service: The service to deploy.
            version: The release to roll out, like 2.4.2.
        '''

The docstring's ``Args:`` entries become the parameters' descriptions in the JSON
schema and the rest of it is the tool's description. The decorator only marks the
function; :func:`load_tools` collects the marked functions of the modules named in
``TANDEM_TOOLS`` into a :class:`ToolRegistry`.

Where a tool runs decides what a step timeout can do to it (:attr:`ToolSpec.runs_in`):
an async tool runs in the event loop and is cancelled; a sync tool runs on a thread of
its own, which cannot be stopped, so its step is recorded as possibly still running;
``@tool(isolate="process")`` runs it in a child process, which is killed.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import inspect
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, assert_never, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from agent import tool_runs, tool_schema
from agent.errors import InvalidParams, ToolError, UnknownTool
from agent.models import Risk

__all__ = [
    "Isolation",
    "Risk",
    "RunsIn",
    "ToolRegistry",
    "ToolSpec",
    "load_tools",
    "parse_docstring",
    "risk_from_name",
    "tool",
]

DEFAULT_TOOLSETS = ("demo.tools",)
_MARK = "__tandem_tool__"

Isolation = Literal["process"]
RunsIn = Literal["loop", "thread", "process"]
ValuesProvider = Callable[[], Iterable[str]]
"""Lists the values a tool parameter may take, when the tool runs (see ``@tool(values=...)``)."""

# A tool that does not declare its risk is judged by its name.
_RISKY_NAMES: tuple[tuple[Risk, re.Pattern[str]], ...] = (
    (Risk.DEPLOY, re.compile(r"deploy|publish|release|rollback|migrate")),
    (Risk.EXEC, re.compile(r"delete|drop|remove|destroy|purge|truncate|kill|restart|exec|shutdown|terminate|wipe")),
    (Risk.WRITE, re.compile(r"send|post|notify|write|update|create|set|scale|insert|put|patch|email|page")),
)


def risk_from_name(name: str) -> Risk:
    """The risk a tool gets from its name when it declares none."""
    lowered = name.lower()
    for risk, pattern in _RISKY_NAMES:
        if pattern.search(lowered):
            return risk
    return Risk.READ


@dataclass(frozen=True)
class ToolSpec:
    """A tool, whatever its source: a ``@tool`` function (``params_model`` from its signature) or a tool of an
    MCP server (``input_schema``, the JSON schema the server lists; ``fn`` calls the server)."""

    name: str
    description: str
    risk: Risk
    params_model: type[BaseModel] | None
    fn: Callable[..., Any]
    isolate: Isolation | None = None
    values: Mapping[str, ValuesProvider] = field(default_factory=dict)
    """Parameters whose values the tool knows at run time (``@tool(values={"channel": known_channels})``)."""
    input_schema: Mapping[str, Any] | None = None
    source: str = ""
    """Where it comes from, for people: its module, or ``MCP server NAME``."""
    risk_why: str = ""
    """Why it has its risk, for people ("declared with @tool", "untrusted server kube, no override")."""
    idempotent: bool = False
    """Calling it again with the same params changes nothing more (a trusted MCP server's ``idempotentHint``):
    a call cut off by a crash is then made again without asking."""
    done: str | None = None
    """What a call did, as a person says it, with its parameters in braces: ``"restarted {service}"``."""

    def did(self, params: Mapping[str, Any]) -> str:
        """``restarted payments``: the tool's own words for a call where it has them, else its name and values."""
        if self.done:
            try:
                return self.done.format_map(dict(params))
            except (KeyError, IndexError, ValueError):
                pass
        values = ", ".join(str(v) for v in list(params.values())[:2])
        return f"ran {self.name}" + (f" ({values})" if values else "")

    @property
    def runs_in(self) -> RunsIn:
        """``loop`` and ``process`` calls stop when cancelled; a ``thread`` call runs to its end."""
        if self.isolate == "process":
            return "process"
        return "loop" if inspect.iscoroutinefunction(self.fn) else "thread"

    def json_schema(self) -> dict[str, Any]:
        """The parameters' JSON schema (built once per tool: pydantic takes most of a millisecond)."""
        if self.params_model is None:
            return copy.deepcopy(dict(self.input_schema or {}))
        schema: dict[str, Any] = json.loads(_params_schema(self.params_model))  # a copy, cheaper than deepcopy
        return schema

    def validate(self, params: dict[str, Any]) -> dict[str, Any]:
        """Check params against the signature (or the listed JSON schema); return them with defaults filled in."""
        if self.params_model is None:
            return tool_schema.validate(self.name, self.input_schema or {}, params)
        try:
            model = self.params_model.model_validate(params)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'params'}: {err['msg']}" for err in exc.errors()
            )
            raise InvalidParams(f"Invalid parameters for tool '{self.name}': {problems}") from None
        return model.model_dump(mode="json")

    async def call(self, params: dict[str, Any], *, answers: Sequence[Any] = ()) -> Any:
        """Validate ``params`` and run the tool where it runs (``answers`` reach a child process)."""
        args = self.validate(params)
        match self.runs_in:
            case "loop":
                return await self.fn(**args)
            case "thread":
                return await tool_runs.in_thread(self.fn, args, name=self.name)
            case "process":
                return await tool_runs.in_process(self.fn.__module__, self.name, args, answers)
            case _ as never:
                assert_never(never)

    def known_values(self) -> dict[str, list[str]]:
        """Each parameter whose values are known (an enum, a ``Literal`` or the tool's values provider), with
        those values. A provider that fails is left out: its parameter is then taken as free."""
        known: dict[str, list[str]] = {}
        for name, prop in self.json_schema().get("properties", {}).items():
            options = [prop, *prop.get("anyOf", ())]
            values = [str(v) for option in options for v in option.get("enum", ()) if v is not None]
            if values:
                known[name] = values
        for name, provider in self.values.items():
            try:
                provided = [str(v) for v in provider()]
            except Exception:  # a provider is the tool author's code: its failure must not block a correction
                continue
            if provided:
                known[name] = provided
        return known

    def unknown_value(self, params: dict[str, Any]) -> str | None:
        """Why ``params`` give a parameter a value it does not know ("There is no service `orders`. ..."), or None."""
        for name, known in self.known_values().items():
            value = params.get(name)
            if value is not None and str(value) not in known:
                return f"There is no {name.replace('_', ' ')} `{value}`. Known: {', '.join(known)}."
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "risk": self.risk.label,
            "parameters": self.json_schema(),
        }


@functools.cache
def _params_schema(model: type[BaseModel]) -> str:
    """The model's JSON schema as JSON text, each caller decoding a copy of its own."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    return json.dumps(schema)


def _spec_for(
    fn: Callable[..., Any],
    *,
    risk: Risk | None,
    name: str | None,
    isolate: Isolation | None,
    values: Mapping[str, ValuesProvider] | None = None,
) -> ToolSpec:
    tool_name = name or fn.__name__
    if isolate not in (None, "process"):
        raise TypeError(f"tool '{tool_name}': isolate must be 'process' or left out, not {isolate!r}")
    if isolate and ("<locals>" in fn.__qualname__ or fn.__module__ == "__main__"):
        raise TypeError(
            f"tool '{tool_name}' runs in a process of its own, so it must be a module-level function "
            "of an importable module (not __main__, not nested in a function)"
        )
    signature = inspect.signature(fn)
    hints = inspect.get_annotations(fn, eval_str=True)
    description, param_docs = parse_docstring(inspect.getdoc(fn) or "")
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool '{tool_name}' may not take *args or **kwargs")
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        if param.name in param_docs:
            default = Field(default, description=param_docs[param.name])
        fields[param.name] = (annotation, default)
    model = create_model(f"{tool_name}_params", __config__=ConfigDict(extra="forbid"), **fields)
    for param_name in values or {}:
        if param_name not in fields:
            raise TypeError(f"tool '{tool_name}' has no parameter '{param_name}' to know the values of")
    judged = risk if risk is not None else risk_from_name(tool_name)
    return ToolSpec(
        name=tool_name,
        description=description or tool_name.replace("_", " "),
        risk=judged,
        params_model=model,
        fn=fn,
        isolate=isolate,
        values=dict(values or {}),
        source=fn.__module__,
        risk_why=f"{judged.label}: " + ("declared with @tool(risk=...)" if risk is not None else "from its name"),
    )


_ARGS_HEADER = re.compile(r"(Args|Arguments|Parameters):\s*")
_ARG_ENTRY = re.compile(r"(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a (dedented) Google-style docstring into its text without the Args section and per-param docs.

    ``name: description`` and ``name (type): description`` entries are read;
    more deeply indented lines continue the entry above them.
    """
    kept: list[str] = []
    params: dict[str, str] = {}
    lines = doc.splitlines()
    i = 0
    while i < len(lines):
        if not _ARGS_HEADER.fullmatch(lines[i]):
            kept.append(lines[i])
            i += 1
            continue
        i += 1
        entry_indent: int | None = None
        current: str | None = None
        while i < len(lines) and (not lines[i].strip() or lines[i][0].isspace()):
            line = lines[i]
            i += 1
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            entry_indent = indent if entry_indent is None else entry_indent
            match = _ARG_ENTRY.fullmatch(line.strip()) if indent <= entry_indent else None
            if match:
                current = match.group(1).lstrip("*")
                params[current] = match.group(2).strip()
            elif current is not None:
                params[current] = f"{params[current]} {line.strip()}".strip()
    return "\n".join(kept).strip(), params


F = TypeVar("F", bound=Callable[..., Any])


@overload
def tool(fn: F, /) -> F: ...
@overload
def tool(
    *,
    risk: Risk | None = None,
    name: str | None = None,
    isolate: Isolation | None = None,
    values: Mapping[str, ValuesProvider] | None = None,
    done: str | None = None,
) -> Callable[[F], F]: ...
def tool(
    fn: F | None = None,
    /,
    *,
    risk: Risk | None = None,
    name: str | None = None,
    isolate: Isolation | None = None,
    values: Mapping[str, ValuesProvider] | None = None,
    done: str | None = None,
) -> F | Callable[[F], F]:
    """Mark a function as a Tandem tool (sync or async).

    ``isolate="process"`` runs each call in a child process that is killed when its step
    runs out of time; the function must then live at the top level of an importable
    module, take and return JSON-able values, and do without the runtime's tool context.

    ``values`` names parameters whose valid values the tool can list at run time (a function of no
    arguments returning them): a correction asking for another value is refused, naming the known ones.

    ``done`` says what a call did, as a person would (``"restarted {service}"``): results are headed with it.
    """

    def mark(f: F) -> F:
        spec = _spec_for(f, risk=risk, name=name, isolate=isolate, values=values)
        setattr(f, _MARK, dataclasses.replace(spec, done=done) if done else spec)
        return f

    return mark(fn) if fn is not None else mark


class ToolRegistry:
    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self.outages: Callable[[], list[str]] = list
        """Why some tools may be missing now (an MCP server not reachable), said with an unknown tool."""
        for spec in specs:
            self.add(spec)

    def add(self, spec: ToolSpec) -> None:
        if spec.name in self._specs:
            other = self._specs[spec.name].source
            sources = f" ({other} and {spec.source})" if other and spec.source else ""
            raise ToolError(f"Two tools are named '{spec.name}'{sources}; tool names must be unique.")
        self._specs[spec.name] = spec

    def replace_source(self, source: str, specs: Iterable[ToolSpec]) -> list[str]:
        """Make ``specs`` the tools of ``source`` (an MCP server's new listing): its old tools go, the new ones
        come, except those whose name another source's tool has. Returns the names left out that way."""
        kept = {name: spec for name, spec in self._specs.items() if spec.source != source}
        clashes = [spec.name for spec in specs if spec.name in kept]
        kept.update((spec.name, spec) for spec in specs if spec.name not in kept)
        self._specs = kept
        return clashes

    def add_function(self, fn: Callable[..., Any]) -> None:
        spec = getattr(fn, _MARK, None)
        if not isinstance(spec, ToolSpec):
            raise ToolError(f"{fn!r} is not marked with @tool")
        self.add(spec)

    def get(self, name: str) -> ToolSpec:
        try:
            return self._specs[name]
        except KeyError:
            known = ", ".join(sorted(self._specs)) or "none"
            down = "".join(f" {outage}" for outage in self.outages())
            raise UnknownTool(f"Unknown tool '{name}'. Known tools: {known}.{down}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __len__(self) -> int:
        return len(self._specs)

    @property
    def names(self) -> list[str]:
        return list(self._specs)

    def specs(self) -> list[ToolSpec]:
        return list(self._specs.values())

    def describe(self) -> list[dict[str, Any]]:
        return [spec.describe() for spec in self._specs.values()]


def known_values(tools: ToolRegistry, names: Iterable[str]) -> dict[str, list[str]]:
    """The known values of every parameter of the named tools (unknown names are skipped)."""
    known: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        if name in tools:
            for param, values in tools.get(name).known_values().items():
                known.setdefault(param, [])
                known[param] += [v for v in values if v not in known[param]]
    return known


def load_tools(modules: Iterable[str] = DEFAULT_TOOLSETS) -> ToolRegistry:
    """Import each module and register the functions it marked with @tool."""
    registry = ToolRegistry()
    for module_name in modules:
        module_name = module_name.strip()
        if not module_name:
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ToolError(f"Cannot import tool module '{module_name}' (from TANDEM_TOOLS): {exc}") from exc
        found = 0
        for value in vars(module).values():
            spec = getattr(value, _MARK, None)
            if isinstance(spec, ToolSpec) and getattr(value, "__module__", None) == module.__name__:
                registry.add(spec)
                found += 1
        if not found:
            raise ToolError(f"Tool module '{module_name}' defines no @tool functions.")
    return registry
