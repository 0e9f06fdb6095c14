"""Parameters checked against a tool's JSON schema (an MCP server's tool), the way a ``@tool`` function's
signature checks them: unknown parameters are refused, defaults are filled in, and the error names each
problem's parameter."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from typing import Any

from agent.errors import InvalidParams

__all__ = ["validate"]


def validate(tool: str, schema: Mapping[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """``params`` checked against ``schema``, with the defaults it gives filled in; :class:`InvalidParams`
    naming every problem otherwise."""
    validator = _validator(json.dumps(schema, sort_keys=True))
    problems = [
        f"{'.'.join(str(p) for p in error.absolute_path) or 'params'}: {error.message}"
        for error in sorted(validator.iter_errors(params), key=lambda e: list(map(str, e.absolute_path)))
    ]
    if problems:
        raise InvalidParams(f"Invalid parameters for tool '{tool}': {'; '.join(problems)}")
    filled = copy.deepcopy(params)
    for name, prop in (schema.get("properties") or {}).items():
        if name not in filled and isinstance(prop, dict) and "default" in prop:
            filled[name] = copy.deepcopy(prop["default"])
    return filled


@functools.lru_cache(maxsize=512)
def _validator(schema_json: str) -> Any:
    """A compiled validator per schema (kept: a listing's schemas are checked on every plan and call). A schema
    that says nothing of extra parameters refuses them, as a ``@tool`` signature does."""
    import jsonschema  # type: ignore[import-untyped]  # only MCP tools have JSON schemas; a process without them never loads it

    schema = json.loads(schema_json)
    if schema.get("type", "object") == "object" and "additionalProperties" not in schema:
        schema["additionalProperties"] = False
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)
