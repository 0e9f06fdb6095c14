"""The OpenAPI 3.1 document of ``/api/v1``, built from the same pydantic models the handlers validate with."""

from __future__ import annotations

from typing import Any

from agent.asking import AskRequest, HandoffView

ERROR = {"$ref": "#/components/schemas/Problem"}


def _answer(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    words = {401: "no valid token", 403: "missing scope", 404: "not this token's", 409: "cannot", 422: "bad field"}
    return {str(c): _answer(words[c], ERROR) for c in codes}


def document() -> dict[str, Any]:
    view = {"$ref": "#/components/schemas/Handoff"}
    handoff_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tandem Handoff API", "version": "1"},
        "components": {
            "securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "HandoffRequest": AskRequest.model_json_schema(),
                "Handoff": HandoffView.model_json_schema(),
                "Problem": {
                    "type": "object",
                    "properties": {
                        "status": {"type": "integer"},
                        "title": {"type": "string"},
                        "detail": {"type": "string"},
                        "field": {"type": "string"},
                    },
                },
            },
        },
        "security": [{"token": []}],
        "paths": {
            "/api/v1/handoffs": {
                "post": {
                    "summary": "Ask your people a question (scope handoffs:write)",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/HandoffRequest"}}},
                    },
                    "responses": {
                        "201": _answer("asked", view),
                        "200": _answer("asked before with this idempotency_key", view),
                        **_errors(401, 403, 422),
                    },
                }
            },
            "/api/v1/handoffs/{id}": {
                "get": {
                    "summary": "A handoff's status and answer (scope handoffs:read)",
                    "parameters": [
                        handoff_id,
                        {"name": "wait", "in": "query", "schema": {"type": "number", "maximum": 30}},
                    ],
                    "responses": {"200": _answer("the handoff", view), **_errors(401, 403, 404)},
                }
            },
            "/api/v1/handoffs/{id}/cancel": {
                "post": {
                    "summary": "Withdraw the question (scope handoffs:write)",
                    "parameters": [handoff_id],
                    "responses": {"200": _answer("the handoff", view), **_errors(401, 403, 404, 409)},
                }
            },
        },
    }
