"""Tandem's A2A agent card: one skill (an ops task run with people steering), JSON-RPC at ``/a2a``, bearer tokens."""

from __future__ import annotations

from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from a2a.utils.constants import PROTOCOL_VERSION_CURRENT, TransportProtocol

from agent.models.tokens import Scope

PATH = "/a2a"
SCOPE: Scope = "runs:write"
SKILL = AgentSkill(
    id="ops-task",
    name="Run an ops task with people steering",
    description=(
        "Tandem plans the task, runs its steps with your tools and reports the result. Your people follow the run "
        'in the chat channel named in the message metadata ({"channel": "C0123ABCD"}) and decide at its '
        "reviews; a review the caller may answer comes back as INPUT_REQUIRED, with the question as text and the "
        "choices as data. Answer with SendMessage on the same taskId, naming the review_id and one choice."
    ),
    tags=["ops", "human-in-the-loop", "approvals"],
    examples=["restart payments and check errors after", "deploy checkout 2.4.1"],
    input_modes=["text/plain", "application/json"],
    output_modes=["text/plain", "application/json"],
)


def card(base_url: str, version: str) -> AgentCard:
    """The card for a server reached at ``base_url`` (``https://tandem.example.com``)."""
    bearer = SecurityScheme(
        http_auth_security_scheme=HTTPAuthSecurityScheme(
            scheme="bearer",
            description=f"A Tandem API token with the scope {SCOPE}: tandem tokens create NAME --scopes {SCOPE}",
        )
    )
    return AgentCard(
        name="Tandem",
        description="An ops agent your people steer: risky steps wait for the approvals your policy asks for.",
        supported_interfaces=[
            AgentInterface(
                url=f"{base_url}{PATH}/",
                protocol_binding=TransportProtocol.JSONRPC.value,
                protocol_version=PROTOCOL_VERSION_CURRENT,
            )
        ],
        version=version,
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        security_schemes={"bearer": bearer},
        security_requirements=[SecurityRequirement(schemes={"bearer": StringList(list=[SCOPE])})],
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[SKILL],
    )
