"""Policy configuration: who may decide, quorum, timeouts, escalation, confidence.

Read from a TOML file (``TANDEM_CONFIG``, default ``./tandem.toml`` when it
exists) with environment overrides ``TANDEM_POLICY__<KEY>[__<SUBKEY>]``
(JSON values, or comma-separated lists), validated once at start-up. Errors name
the bad key::

    [approvers]
    write = ["U0BOB"]
    deploy = ["U0BOB", "S0OPS"]      # user ids and/or user group ids

    [quorum]
    deploy = 2                        # "any", "all" or a number

    [timeouts.before_result]
    after = "4h"
    strategy = "use_default"          # cancel | reassign | use_default | pause
    default = "approve"

    [report]
    takeover_warning = 0.10           # warn when more runs than this are taken over
    correction_warning = 0.30         # warn when more runs than this are corrected
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from agent.errors import ConfigError
from agent.models import Risk

RiskName = Literal["read", "write", "exec", "deploy"]
Strategy = Literal["cancel", "reassign", "use_default", "pause", "degrade"]
# Reviews whose approval lets a gated step run: their deadline can never approve them.
GATE_TIMEOUTS: tuple[str, ...] = ("before_risky_step", "recovery")
TimeoutKind = Literal[
    "after_plan", "before_risky_step", "after_risky_step", "before_result", "step_failed", "recovery", "handoff"
]
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


class ReportRule(_Section):
    """When ``tandem report`` (and ``/tandem report``) warns: rates above these fractions."""

    takeover_warning: float = Field(default=0.10, ge=0.0, le=1.0)  # the agent does not fit the task domain
    correction_warning: float = Field(default=0.30, ge=0.0, le=1.0)  # initial planning needs work


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

    def quorum_for(self, risk: Risk) -> Quorum:
        level = max((Risk.parse(n) for n in self.quorum if Risk.parse(n) <= risk), default=None)
        return self.quorum[level.label] if level is not None else "any"  # type: ignore[index]


def _env_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    prefix = "TANDEM_POLICY__"
    for name, raw in environ.items():
        if not name.startswith(prefix):
            continue
        path = [p.lower() for p in name[len(prefix) :].split("__") if p]
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = [v.strip() for v in raw.split(",") if v.strip()] if "," in raw else raw
        node = out
        for key in path[:-1]:
            node = node.setdefault(key, {})
        if path and path[0] == "approvers" and isinstance(value, str):
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


def load_config(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> PolicyConfig:
    """Read and validate the policy; raise ConfigError naming the bad key."""
    env = os.environ if environ is None else environ
    file = Path(path) if path else Path(env.get("TANDEM_CONFIG", "tandem.toml"))
    data: dict[str, Any] = {}
    where = str(file)
    if file.exists():
        try:
            data = tomllib.loads(file.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{where} is not valid TOML: {exc}") from None
    elif path is not None or "TANDEM_CONFIG" in env:
        raise ConfigError(f"Config file {where} does not exist (from TANDEM_CONFIG or --config).")
    data = _merge(data, _env_overrides(env))
    try:
        return PolicyConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'config'}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"Invalid policy in {where}: {problems}") from None
