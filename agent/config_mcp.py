"""The MCP servers the policy file names (``[mcp.servers.NAME]``), whose tools join the ``@tool`` functions::

    [mcp.servers.kube]
    command = ["kubectl-mcp", "--read-write"]   # stdio: the server is started as this command
    # url = "https://mcp.example.com/mcp"       # or streamable HTTP ...
    # headers = { Authorization = "Bearer …" }  # ... with these headers
    trust = "untrusted"                         # default; "trusted" believes the server's annotations
    risk = { delete_pod = "deploy" }            # per-tool overrides: always win
    tools = ["get_pods", "logs", "delete_pod"]  # optional allow-list: only these are offered
    env = { KUBECONFIG = "/etc/kube/ops" }      # stdio only: added to the command's environment

Only the file is read here: nothing of the MCP SDK is imported unless a server is named (see
:mod:`agent.mcptools`).
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Trust = Literal["untrusted", "trusted"]
RiskName = Literal["read", "write", "exec", "deploy"]
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}")


class McpServer(BaseModel):
    """One ``[mcp.servers.NAME]`` entry: how to reach the server (``command`` or ``url``), how far to trust
    what it says about its tools, and the policy's own word on them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: list[str] | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    env: dict[str, str] = Field(default_factory=dict)
    trust: Trust = "untrusted"
    risk: dict[str, RiskName] = Field(default_factory=dict)
    tools: list[str] | None = None
    elicit_timeout: float | None = Field(default=None, gt=0)
    """Seconds people have to answer the server's questions (elicitation); unset: no deadline."""

    @field_validator("command")
    @classmethod
    def _command(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or not value[0].strip()):
            raise ValueError(
                'command is empty: give the program and its arguments, e.g. ["kubectl-mcp", "--read-write"]'
            )
        return value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"https?://[^/\s]+", value):
            raise ValueError(
                f"{json.dumps(value)} is not an http(s) URL; give the server's streamable HTTP endpoint, "
                'e.g. "https://mcp.example.com/mcp"'
            )
        return value

    @model_validator(mode="after")
    def _one_way_in(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError(
                'give either command = [...] (stdio) or url = "..." (streamable HTTP), not both or neither'
            )
        if self.headers and self.url is None:
            raise ValueError("headers go with url (streamable HTTP); a stdio server takes env instead")
        if self.env and self.command is None:
            raise ValueError("env goes with command (stdio); an HTTP server takes headers instead")
        if self.tools is not None:
            unlisted = sorted(set(self.risk) - set(self.tools))
            if unlisted:
                raise ValueError(
                    f"risk names {', '.join(unlisted)}, which tools = [...] leaves out: add them to tools or drop "
                    "their risk"
                )
        return self

    @property
    def where(self) -> str:
        """How it is reached, for people: the command line or the URL (never the headers: they hold secrets)."""
        return " ".join(self.command) if self.command is not None else str(self.url)


class McpRule(BaseModel):
    """``[mcp]``: the servers by name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers: dict[str, McpServer] = Field(default_factory=dict)

    @field_validator("servers")
    @classmethod
    def _names(cls, value: dict[str, McpServer]) -> dict[str, McpServer]:
        for name in value:
            if not _NAME.fullmatch(name):
                raise ValueError(
                    f"{json.dumps(name)} is not a server name: use letters, digits, '_', '-' and '.' (like kube)"
                )
        return value
