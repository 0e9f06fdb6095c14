"""The two bases every model of the loop builds on: strict fields, and a kept ``kind`` tag."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer


class Model(BaseModel):
    # Built on first use: a process that only resumes a run validates a few of the many models.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Tagged(Model):
    """A member of a tagged union: its ``kind`` is always written, even when
    defaults are left out, so stored JSON parses back to the right class."""

    @model_serializer(mode="wrap")
    def _keep_kind(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        data["kind"] = getattr(self, "kind")  # noqa: B009
        return data
