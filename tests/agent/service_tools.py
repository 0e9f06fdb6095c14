"""Two tools for use-case tests, a read and a restart, and the calls they made (cleared by each test's fixture)."""

from __future__ import annotations

from agent.tools import Risk, ToolRegistry, tool

ALICE, BOB, CAROL, OPS = "U0ALICE", "U0BOB", "U0CAROL", "S0OPS"
RAN: list[str] = []


@tool(risk=Risk.READ)
def peek(service: str) -> str:
    """Read a service's state."""
    RAN.append(f"peek {service}")
    return f"{service} ok"


@tool(risk=Risk.EXEC)
def bounce(service: str) -> str:
    """Restart a service."""
    RAN.append(f"bounce {service}")
    return f"{service} restarted"


TOOLS = ToolRegistry()
for fn in (peek, bounce):
    TOOLS.add_function(fn)
