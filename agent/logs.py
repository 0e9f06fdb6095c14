"""Logs for operators: timestamped text or JSON lines that carry run, review and delivery ids.

    log.info("transition %s -> %s", old, new, extra=ctx(run=state.id, review=review.id))

    with bind(run=state.id):        # every line logged inside, including from tasks
        await drive(state)          # created inside, carries run=...

:func:`configure` installs one handler on the root logger (``main`` calls it once). Text
lines read ``2026-01-02T03:04:05.678Z INFO tandem.runtime: message run=r1 review=v2``,
with a traceback on the lines after; JSON lines are one object each:
``{"ts": ..., "level": ..., "logger": ..., "msg": ..., "run": ..., "exc": "Traceback ..."}``.
Pure standard library, so any package may log through it.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from types import MappingProxyType
from typing import IO, Literal, TypeAlias

__all__ = ["FORMATS", "LEVELS", "Format", "Level", "adopt_console_loggers", "bind", "configure", "ctx"]

Level: TypeAlias = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
Format: TypeAlias = Literal["text", "json"]
LEVELS: tuple[Level, ...] = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
FORMATS: tuple[Format, ...] = ("text", "json")

Value: TypeAlias = str | int | float | bool
_RESERVED = frozenset({"ts", "level", "logger", "msg", "exc", "stack"})
_ATTR = "tandem_context"
"""The LogRecord attribute that holds a line's context (one attribute, so no key clashes with LogRecord's own)."""

QUIET_BELOW_DEBUG = (
    "aiohttp.access",
    "aiohttp_asgi",
    "mcp.server.lowlevel.server",
    "mcp.server.streamable_http_manager",
)
"""Loggers held at WARNING unless the level is DEBUG: one line per HTTP request (or MCP request, or mounted app
starting) drowns everything else."""

_bound: ContextVar[Mapping[str, Value]] = ContextVar("tandem_log_context", default=MappingProxyType({}))


def _clean(ids: Mapping[str, object]) -> dict[str, Value]:
    """Context values as they will be written: ``None`` dropped, anything not a scalar as ``str``."""
    clash = _RESERVED.intersection(ids)
    if clash:
        keys = "key" if len(clash) == 1 else "keys"
        raise ValueError(f"log context {keys} {', '.join(sorted(clash))} would overwrite a field of the line")
    return {k: v if isinstance(v, str | int | float | bool) else str(v) for k, v in ids.items() if v is not None}


def ctx(**ids: object) -> dict[str, object]:
    """Context for one line, to pass as ``extra=``: ``log.info("...", extra=ctx(run=run_id))``."""
    return {_ATTR: _clean(ids)}


@contextmanager
def bind(**ids: object) -> Iterator[None]:
    """Attach ``ids`` to every line logged inside the block, in this task and in tasks created inside it."""
    token = _bound.set(MappingProxyType({**_bound.get(), **_clean(ids)}))
    try:
        yield
    finally:
        _bound.reset(token)


def _context(record: logging.LogRecord) -> Mapping[str, Value]:
    context: Mapping[str, Value] = getattr(record, _ATTR, {})
    return context


class _Stamp(logging.Filter):
    """Merges the bound ids into the record's context while still in the task that logged it."""

    def filter(self, record: logging.LogRecord) -> bool:
        setattr(record, _ATTR, {**_bound.get(), **_context(record)})
        return True


def _timestamp(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _text_value(value: Value) -> str:
    text = str(value)
    if not text or any(c.isspace() or c in '"=' for c in text):
        return json.dumps(text, ensure_ascii=False)
    return text


class TextFormatter(logging.Formatter):
    """``TS LEVEL logger: message key=value ...``, then the traceback, if any, on the following lines."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [_timestamp(record), record.levelname, f"{record.name}:", record.getMessage()]
        parts += [f"{k}={_text_value(v)}" for k, v in _context(record).items()]
        line = " ".join(parts)
        if record.exc_info and record.exc_info[0] is not None:
            line += "\n" + self.formatException(record.exc_info)
        if record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``msg``, the context, and ``exc`` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "ts": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
            **_context(record),
        }
        if record.exc_info and record.exc_info[0] is not None:
            line["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def adopt_console_loggers() -> None:
    """Take the console away from libraries that brought their own (litellm's handler writes INFO lines to
    standard output, where ``tandem run --detach`` prints its JSON): their console handlers go, and their
    lines reach the one handler :func:`configure` installed (standard error) through the root logger.
    Handlers that write to a file stay. Call it after importing such a library."""
    for logger in list(logging.Logger.manager.loggerDict.values()):
        if not isinstance(logger, logging.Logger) or logger.name.startswith("tandem"):
            continue
        for handler in list(logger.handlers):
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                logger.removeHandler(handler)
        logger.propagate = True


class _Handler(logging.StreamHandler[IO[str]]):
    """The handler :func:`configure` installs, told apart from others so a second call replaces it."""


def configure(level: Level = "INFO", fmt: Format = "text", stream: IO[str] | None = None) -> logging.Handler:
    """Send every logger's lines at ``level`` and above to ``stream`` (default: standard error) as ``fmt``.

    Replaces a handler an earlier call installed; leaves handlers others installed alone.
    """
    if level not in LEVELS:
        raise ValueError(f"log level {level!r} is not one of {', '.join(LEVELS)}")
    if fmt not in FORMATS:
        raise ValueError(f"log format {fmt!r} is not one of {', '.join(FORMATS)}")
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Handler)]:
        root.removeHandler(old)
    handler = _Handler(stream if stream is not None else sys.stderr)
    handler.addFilter(_Stamp())
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_BELOW_DEBUG:
        logging.getLogger(name).setLevel(logging.NOTSET if level == "DEBUG" else logging.WARNING)
    adopt_console_loggers()
    return handler
