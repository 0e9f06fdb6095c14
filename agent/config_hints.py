"""One line per policy problem, naming its key, with the key or value meant when the one written is a near miss
(``aprovers: unknown key (did you mean approvers?)``)."""

from __future__ import annotations

import re
import types
from collections.abc import Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import ErrorDetails


def problem(error: ErrorDetails, root: type[BaseModel]) -> str:
    """``anchors.stpo: unknown key (did you mean stop?)``: ``error`` of validating ``root``, in one phrase."""
    loc = error["loc"]
    key = ".".join(str(part) for part in loc if part != "[key]")
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "unknown key" + did_you_mean(str(loc[-1]), keys_at(root, loc[:-1]))
    elif error["type"] == "literal_error" and isinstance(error["input"], str):
        expected = re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))
        message += did_you_mean(error["input"], expected)
    return f"{key}: {message}" if key else message


def did_you_mean(written: str, known: Sequence[str]) -> str:
    """`` (did you mean approvers?)`` when one of ``known`` is close to ``written``; else empty."""
    import difflib  # only when a policy has a mistake to name

    close = difflib.get_close_matches(written.lower(), known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def keys_at(root: type[BaseModel], path: Sequence[int | str]) -> tuple[str, ...]:
    """The keys the section at ``path`` of ``root`` takes (``("anchors",)``: ``stop``, ``merge_gate``…);
    none where the path leads to no section."""
    node: Any = root
    for part in path:
        if isinstance(node, type) and issubclass(node, BaseModel):
            field = node.model_fields.get(str(part))
            if field is None:
                return ()
            node = _inner(field.annotation)
        elif get_origin(node) in (dict, list):  # a key of a table, or an entry of a list: its value's type
            node = _inner(get_args(node)[-1])
        else:
            return ()
    if isinstance(node, type) and issubclass(node, BaseModel):
        return tuple(node.model_fields)
    return ()


def _inner(annotation: Any) -> Any:
    """``X`` of ``Annotated[X, …]`` and of ``X | None``; anything else as it is."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            options = [a for a in get_args(annotation) if a is not type(None)]
            if len(options) != 1:
                return annotation
            annotation = options[0]
        else:
            return annotation
