"""Tools from MCP servers, beside the ``@tool`` functions: the servers the policy names (``[mcp.servers.NAME]``,
:mod:`agent.config_mcp`) are connected at start, their tools listed (and listed again when a server says they
changed) into the same :class:`~agent.tools.ToolRegistry`, and called through the same worker path (gate,
params digest, step lease, timeout, recovery, audit).

* :mod:`agent.mcptools.risk` — a tool's risk from its annotations, the server's trust and the policy (pure);
* :mod:`agent.mcptools.connection` — one server's session, in one place (the MCP SDK is imported there only);
* :mod:`agent.mcptools.toolset` — every named server connected for as long as a block runs.

Importing this package imports nothing of the SDK: a process whose policy names no server never loads it.
"""
