"""Two tools for use-case tests, a read and a restart, and the calls they made (cleared by each test's fixture)."""

from __future__ import annotations

from collections.abc import Sequence

from agent.config import PolicyConfig
from agent.models import Policy, Reading
from agent.ports import Store
from agent.runtime import Runtime
from agent.tools import Risk, ToolRegistry, tool
from agent.usecases import UseCases
from tests.fakes.brain import FixedBrain

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


STEPS = [("peek", {"service": "api"}), ("bounce", {"service": "api"})]
YES = Reading(intent="approve", reason="a yes", confidence=0.95)


def usecases(store: Store, config: PolicyConfig | None = None, reading: Reading = YES) -> UseCases:
    runtime = Runtime(store, FixedBrain(STEPS, reading), TOOLS, policy=Policy(), config=config or PolicyConfig())

    async def groups_of(user: str) -> Sequence[str]:
        return [OPS] if user == BOB else []

    return UseCases(runtime, store, groups_of)
