"""Policy configuration: who may decide, quorum, timeouts, escalation, confidence.

Read from a TOML file (``TANDEM_CONFIG``, default ``./tandem.toml`` when it
exists) with environment overrides ``TANDEM_POLICY__<KEY>[__<SUBKEY>]``
(JSON values, or comma-separated lists), validated once at start-up. People and
groups are named by id (as the registered platforms parse them), never by display name.
Errors are one line that names the bad key::

    [approvers]
    write = ["<user id>"]
    deploy = ["<user id>", "<group id>"]  # user ids and/or user group ids, as a platform writes them

    [quorum]
    deploy = 2                        # "any", "all" or a number

    [timeouts.before_result]
    after = "4h"
    strategy = "use_default"          # cancel | reassign | use_default | pause
    default = "approve"

    [anchors]
    stop = ["after_plan", "after_risky_step", "before_result"]   # which optional reviews stop a run
    after_risky_step = "risky_follows"  # a risky step's outcome stops only before another risky step
    merge_gate = true                 # approving a plan may approve the risky steps it shows exactly

    [rules]
    offer_after = 5                   # unchanged approvals in a row of one call shape before "always allow" is offered
    always_allow = [{channel = "<place id>", tool = "restart_service", service = "payments"}]  # or every_target = true

    [report]
    takeover_warning = 0.10           # warn when more runs than this are taken over
    correction_warning = 0.30         # warn when more runs than this are corrected
    channel = "<channel id>"          # post the report there every week (a platform that posts reports)
    weekday = "monday"                # on this day ...
    hour = 9                          # ... at this hour ...
    timezone = "Europe/Berlin"        # ... in this IANA time zone

    [mcp.servers.kube]                # tools from an MCP server (see agent.config_mcp)
    command = ["kubectl-mcp"]
"""

from __future__ import annotations

import json
import os
import re
import tomllib
import zoneinfo
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from agent.config_hints import problem
from agent.config_mail import MailRule
from agent.config_mcp import McpRule
from agent.config_rules import AlwaysAllow
from agent.errors import PolicyError
from agent.gates import GATES
from agent.models import CONFIGURABLE_ANCHORS, AfterRisky, Policy, Principal, ReadOnly, Risk, platforms

RiskName = Literal["read", "write", "exec", "deploy"]
Strategy = Literal["cancel", "reassign", "use_default", "pause", "degrade", "escalate"]
TimeoutKind = Literal[
    "after_plan", "before_risky_step", "after_risky_step", "before_result", "step_failed", "recovery", "handoff"
]
# The gates a timeout may be set for: their deadline can never approve them (see SafetyPolicy.on_deadline).
GATE_TIMEOUTS: tuple[str, ...] = tuple(kind for kind in get_args(TimeoutKind) if kind in GATES)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(value: object) -> float:
    """``90``, ``"90s"``, ``"15m"``, ``"2h"``, ``"1d"`` → seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and (m := re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", value)):
        seconds = float(m.group(1)) * _UNITS[m.group(2) or "s"]
    else:
        raise ValueError(f"{value!r} is not a duration; use seconds or a string like '90s', '15m', '2h', '1d'")
    if seconds <= 0:
        raise ValueError("a duration must be positive")
    return seconds


Duration = Annotated[float, BeforeValidator(parse_duration)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TimeoutRule(_Section):
    after: Duration
    remind_before: Duration | None = None
    strategy: Strategy = "pause"
    default: str | None = None

    @model_validator(mode="after")
    def _default_needed(self) -> TimeoutRule:
        if self.strategy == "use_default" and self.default is None:
            raise ValueError("strategy 'use_default' needs a 'default' (e.g. default = \"approve\")")
        if self.remind_before is not None and self.remind_before >= self.after:
            raise ValueError("remind_before must be shorter than after")
        return self

    @property
    def reminder_lead(self) -> float:
        return self.remind_before if self.remind_before is not None else self.after * 0.2


Quorum = Literal["any", "all"] | Annotated[int, Field(ge=1)]


WEEKDAYS: tuple[str, ...] = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


class ReportRule(_Section):
    """When ``tandem report`` (and ``/tandem report``) warns: rates above these fractions; and, with
    ``channel`` set, the weekly post: every ``weekday`` at ``hour`` o'clock in ``timezone``."""

    takeover_warning: float = Field(default=0.10, ge=0.0, le=1.0)  # the agent does not fit the task domain
    correction_warning: float = Field(default=0.30, ge=0.0, le=1.0)  # initial planning needs work
    min_runs: int = Field(default=5, ge=1)  # fewer runs than this in a period say too little to warn about
    channel: str | None = None
    weekday: str = "monday"
    hour: int = Field(default=9, ge=0, le=23)
    timezone: str = "UTC"

    @field_validator("channel")
    @classmethod
    def _channel_id(cls, value: str | None) -> str | None:
        if value is not None and platforms.report_destination(value) is None:
            raise ValueError(
                f"{json.dumps(value, ensure_ascii=False)} is not a channel reports can go to; {platforms.report_hint()}"
            )
        return value

    @field_validator("weekday")
    @classmethod
    def _weekday(cls, value: str) -> str:
        day = value.strip().lower()
        for name in WEEKDAYS:
            if day in (name, name[:3]):
                return name
        raise ValueError(f"{json.dumps(value, ensure_ascii=False)} is not a weekday; use monday … sunday")

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            zoneinfo.ZoneInfo(value)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f'{json.dumps(value, ensure_ascii=False)} is not an IANA time zone; use e.g. "UTC", '
                '"Europe/Berlin" or "America/New_York"'
            ) from None
        return value

    @model_validator(mode="after")
    def _schedule_needs_channel(self) -> ReportRule:
        fields = type(self).model_fields
        given = [name for name in ("weekday", "hour", "timezone") if getattr(self, name) != fields[name].default]
        if given and self.channel is None:
            raise ValueError(f"{', '.join(given)} schedule the weekly post: set channel too (where it goes)")
        return self

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.timezone)


class LessonsRule(_Section):
    """What earlier corrections teach later plans (``[lessons]``): on or off, how long a lesson lasts,
    how fast it loses weight, and how many a plan is given at most."""

    enabled: bool = True
    max_age: Duration = 90 * 86400.0
    half_life: Duration = 30 * 86400.0
    limit: int = Field(default=5, ge=1, le=50)


class RulesRule(_Section):
    """When a gate offers "always allow" with its history: after this many unchanged approvals in a row
    of the same call shape in a channel (0: never offered that way); and the always-allow rules the policy
    file sets itself (``always_allow``, see :mod:`agent.config_rules`)."""

    offer_after: int = Field(default=5, ge=0, le=100)
    always_allow: list[AlwaysAllow] = Field(default_factory=list)


class AnchorsRule(_Section):
    """Which reviews stop a run besides the risky-step gate (which always does): ``stop`` lists them;
    ``after_risky_step`` says when a risky step's outcome stops (``risky_follows``: only before another
    risky step; ``any_follows``: before any further step); ``merge_gate`` lets an eligible person's
    approval of a plan also approve the risky steps it shows exactly, where one approval suffices;
    ``read_only`` says whether a plan that only reads is delivered as done (``done``) or reviewed as
    Tandem first did (``review``: at its result, and at its plan when it has more than two steps)."""

    stop: list[str] = Field(default_factory=lambda: [str(a) for a in CONFIGURABLE_ANCHORS])
    after_risky_step: AfterRisky = "risky_follows"
    merge_gate: bool = True
    read_only: ReadOnly = "done"

    @field_validator("stop")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        allowed = ", ".join(CONFIGURABLE_ANCHORS)
        for name in value:
            if name == "before_risky_step":
                raise ValueError(
                    f"before_risky_step always stops (a risky step never runs unasked); list only {allowed}"
                )
            if name not in CONFIGURABLE_ANCHORS:
                raise ValueError(
                    f"{json.dumps(name, ensure_ascii=False)} is not an anchor that may stop; use {allowed}"
                )
        return value


class PolicyConfig(_Section):
    approvers: dict[RiskName, list[str]] = Field(default_factory=dict)
    allow_self_approval: bool = False
    quorum: dict[RiskName, Quorum] = Field(default_factory=dict)
    timeouts: dict[TimeoutKind, TimeoutRule] = Field(default_factory=dict)
    escalation_channel: str | None = None
    # Below this, a reading of free text is confirmed with the person instead of applied.
    confidence_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    groups: dict[str, list[str]] = Field(default_factory=dict)
    confirm_threshold: RiskName = "write"
    report: ReportRule = Field(default_factory=ReportRule)
    lessons: LessonsRule = Field(default_factory=LessonsRule)
    rules: RulesRule = Field(default_factory=RulesRule)
    anchors: AnchorsRule = Field(default_factory=AnchorsRule)
    mcp: McpRule = Field(default_factory=McpRule)
    mail: MailRule = Field(default_factory=MailRule)

    @model_validator(mode="after")
    def _gates_never_default(self) -> PolicyConfig:
        for kind, rule in self.timeouts.items():
            key = f"timeouts.{kind}.strategy"
            if kind in GATE_TIMEOUTS and rule.strategy == "use_default":
                raise ValueError(
                    f"{key}: 'use_default' would let a gated step run with nobody's approval; "
                    "use pause, cancel, reassign or degrade"
                )
            if kind not in GATE_TIMEOUTS and rule.strategy == "degrade":
                raise ValueError(f"{key}: 'degrade' applies to gates only (before_risky_step, recovery)")
        return self

    @property
    def has_approvers(self) -> bool:
        return any(self.approvers.values())

    def level_for(self, risk: Risk) -> Risk | None:
        """The highest configured approver level at or below ``risk``."""
        levels = [Risk.parse(name) for name, people in self.approvers.items() if people]
        below = [level for level in levels if level <= risk]
        return max(below) if below else None

    def run_policy(self, **fields: Any) -> Policy:
        """The policy a new run is given (and keeps): its confirm threshold and its anchors from here."""
        return Policy(
            confirm_threshold=Risk.parse(self.confirm_threshold),
            anchors=frozenset(a for a in CONFIGURABLE_ANCHORS if a in self.anchors.stop),
            after_risky_step=self.anchors.after_risky_step,
            merge_gate=self.anchors.merge_gate,
            read_only=self.anchors.read_only,
            **fields,
        )

    def quorum_for(self, risk: Risk) -> Quorum:
        level = max((Risk.parse(n) for n in self.quorum if Risk.parse(n) <= risk), default=None)
        return self.quorum[level.label] if level is not None else "any"  # type: ignore[index]


_ENV_PREFIX = "TANDEM_POLICY__"


def _env_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, raw in sorted(environ.items()):
        if not name.startswith(_ENV_PREFIX):
            continue
        path = [p.lower() for p in name[len(_ENV_PREFIX) :].split("__") if p]
        if not path:
            raise PolicyError(
                f"{name} names no policy key: use {_ENV_PREFIX}<KEY>[__<SUBKEY>], "
                f"e.g. {_ENV_PREFIX}APPROVERS__DEPLOY=<user id>."
            )
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = [v.strip() for v in raw.split(",") if v.strip()] if "," in raw else raw
        node = out
        for depth, key in enumerate(path[:-1]):
            node = node.setdefault(key, {})
            if not isinstance(node, dict):
                taken = ".".join(path[: depth + 1])
                raise PolicyError(f"{name}: {taken} is already set to a value by another {_ENV_PREFIX} variable.")
        if path[0] == "approvers" and isinstance(value, str):
            value = [value]
        node[path[-1]] = value
    return out


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def policy_file(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Path | None:
    """The file :func:`load_config` reads: ``path``, else ``TANDEM_CONFIG``, else ``./tandem.toml``; None if absent."""
    env = os.environ if environ is None else environ
    file = Path(path or env.get("TANDEM_CONFIG") or "tandem.toml")
    return file if file.exists() else None


def _is_user(entry: str) -> bool:
    principal = Principal.parse(entry)
    return principal.is_id and not principal.is_group


def _bad_ids(config: PolicyConfig) -> list[str]:
    """Entries that are no user or group id (``approvers.exec: "bob" …``), each naming its key."""
    problems = [
        f"approvers.{level}: {json.dumps(entry, ensure_ascii=False)} is not a user or group id"
        for level, entries in config.approvers.items()
        for entry in entries
        if not Principal.parse(entry).is_id
    ]
    for group, members in config.groups.items():
        if not Principal.parse(group).is_group:
            problems.append(f"groups.{group}: {json.dumps(group, ensure_ascii=False)} is not a group id")
        problems += [
            f"groups.{group}: {json.dumps(member, ensure_ascii=False)} is not a user id"
            for member in members
            if not _is_user(member)
        ]
    problems += [
        f"mail.people: {json.dumps(person, ensure_ascii=False)} is not a user id"
        for person in config.mail.people
        if not _is_user(person)
    ]
    return problems


def load_config(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> PolicyConfig:
    """Read and validate the policy; raise :class:`PolicyError` (one line) naming the bad key."""
    env = os.environ if environ is None else environ
    named = path or env.get("TANDEM_CONFIG") or None
    file = Path(named or "tandem.toml")
    data: dict[str, Any] = {}
    if file.exists():
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise PolicyError(f"{file} is not valid TOML: {exc}") from None
        except UnicodeDecodeError:
            raise PolicyError(f"Cannot read the policy file {file}: it is not UTF-8 text.") from None
        except OSError as exc:
            raise PolicyError(f"Cannot read the policy file {file}: {exc.strerror or exc}.") from None
    elif named is not None:
        raise PolicyError(f"Config file {file} does not exist (from TANDEM_CONFIG or --config).")
    overrides = _env_overrides(env)
    data = _merge(data, overrides)
    sources = [str(file)] if file.exists() else []
    if overrides:
        sources.append(f"{_ENV_PREFIX}* variables")
    where = " and ".join(sources) or "the defaults"
    try:
        config = PolicyConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(problem(error, PolicyConfig) for error in exc.errors())
        raise PolicyError(f"Invalid policy in {where}: {problems}") from None
    if bad := _bad_ids(config):
        raise PolicyError(f"Invalid policy in {where}: {'; '.join(bad)}. {platforms.id_hint()}")
    return config
