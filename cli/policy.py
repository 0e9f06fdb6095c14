"""The policy at start-up: validated before anything is opened or created, and named when one is in use."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from agent.config import PolicyConfig, load_config, policy_file
from agent.messages import plural

ENV_PREFIX = "TANDEM_POLICY__"


def checked_policy(path: str | None, *, announce: bool, environ: Mapping[str, str] | None = None) -> PolicyConfig:
    """The policy from ``path`` (else ``TANDEM_CONFIG``, else ``./tandem.toml``) and ``TANDEM_POLICY__*``.

    A bad one raises :class:`agent.errors.PolicyError` (the command exits 2). With ``announce``,
    one line on stderr says which file and overrides are in force, so a ``tandem.toml`` lying
    in the current folder is never applied silently.
    """
    env = os.environ if environ is None else environ
    config = load_config(path, env)
    if announce and (line := policy_line(config, path, env)) is not None:
        print(line, file=sys.stderr, flush=True)
    return config


def policy_line(config: PolicyConfig, path: str | None, environ: Mapping[str, str]) -> str | None:
    """``Policy from ./tandem.toml (found in the current folder): approvers for exec``; None for the defaults."""
    sources = []
    file = policy_file(path, environ)
    if file is not None:
        named = path or environ.get("TANDEM_CONFIG")
        sources.append(str(file) if named or file.is_absolute() else f"./{file} (found in the current folder)")
    overrides = sorted(name for name in environ if name.startswith(ENV_PREFIX))
    if overrides:
        sources.append(", ".join(overrides))
    if not sources:
        return None
    return f"Policy from {' + '.join(sources)}: {summary(config)}"


def summary(config: PolicyConfig) -> str:
    """What the policy changes, in a few words."""
    levels = [level for level, people in config.approvers.items() if people]
    parts = [f"approvers for {', '.join(levels)}" if levels else "no approvers: each run's requester decides"]
    if config.quorum:
        parts.append("quorum " + ", ".join(f"{level} {n}" for level, n in config.quorum.items()))
    if config.timeouts:
        parts.append(plural(len(config.timeouts), "deadline"))
    if config.escalation_channel:
        parts.append(f"escalation to {config.escalation_channel}")
    return "; ".join(parts)
