"""What the audit log keeps of each event and effect (short, JSON-ready payloads)."""

from __future__ import annotations

from typing import Any

from agent.models import AskHuman, Effect, Event, PlanProposed, StepFinished


def _audit_payload(event: Event) -> dict[str, Any]:
    data = event.model_dump(mode="json", exclude={"at", "nonce", "kind"}, exclude_defaults=True)
    if isinstance(event, StepFinished) and isinstance(data.get("result"), str) and len(data["result"]) > 200:
        data["result"] = data["result"][:200] + "…"
    if isinstance(event, PlanProposed):
        data = {"steps": [f"{s.tool}({', '.join(f'{k}={v}' for k, v in s.params.items())})" for s in event.steps]}
    return data


def _effect_payload(effect: Effect) -> dict[str, Any]:
    if isinstance(effect, AskHuman):
        r = effect.review
        return {"review": r.id, "anchor": r.anchor, **({"step": r.step} if r.step else {})}
    return effect.model_dump(mode="json", exclude={"kind"})
