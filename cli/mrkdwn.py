"""Slack mrkdwn, as a terminal shows it: :func:`terminal_text`.

Run output is written for Slack (``*Done*``, backticks, code fences, ``<url|text>``,
``&lt;``). A terminal gets the same content without the markup: bold, italic and
strike become ANSI styles when the output is a terminal (:func:`use_color`) and plain
text otherwise; fences become indented blocks; links become ``text (url)``; mentions
``@name``; date tokens local times; entities the characters they stand for.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from typing import TextIO

BOLD = ("\x1b[1m", "\x1b[22m")
ITALIC = ("\x1b[3m", "\x1b[23m")
STRIKE = ("\x1b[9m", "\x1b[29m")
CODE = ("\x1b[36m", "\x1b[39m")  # cyan
INDENT = "    "

_FENCE = re.compile(r"```(.*?)```", re.DOTALL)
_INLINE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|<(?P<token>[^<>\n]+)>"
    r"|(?<![\w*])\*(?P<bold>[^*\s](?:[^*\n]*[^*\s])?)\*(?![\w*])"
    r"|(?<![\w_])_(?P<italic>[^_\s](?:[^_\n]*[^_\s])?)_(?![\w_])"
    r"|(?<![\w~])~(?P<strike>[^~\s](?:[^~\n]*[^~\s])?)~(?![\w~])"
)
_QUOTE = re.compile(r"^(?:>|&gt;) ?", re.MULTILINE)
_DATE_PARTS = {
    "{date_num}": "%Y-%m-%d",
    "{date}": "%B %d, %Y",
    "{date_short}": "%b %d, %Y",
    "{date_long}": "%A, %B %d, %Y",
    "{date_pretty}": "%B %d, %Y",
    "{date_short_pretty}": "%b %d, %Y",
    "{date_long_pretty}": "%A, %B %d, %Y",
    "{time}": "%H:%M",
    "{time_secs}": "%H:%M:%S",
}


def use_color(stream: TextIO) -> bool:
    """ANSI styles only on a terminal, and never with ``NO_COLOR`` set or ``TERM=dumb``."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except ValueError:  # a closed stream
        return False


def unescape(text: str) -> str:
    """Slack's three entities back to their characters (``&amp;`` last, so ``&amp;lt;`` stays ``&lt;``)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def terminal_text(text: str, *, color: bool = False) -> str:
    """``text`` (Slack mrkdwn) rendered for a terminal; ANSI styles only with ``color``."""
    out = ""
    last = 0
    for fence in _FENCE.finditer(text):
        out += _inline(text[last : fence.start()], color).rstrip(" ")
        if out and not out.endswith("\n"):
            out += "\n"
        out += _block(fence.group(1))
        rest = text[fence.end() :]
        last = len(text) - len(rest.lstrip(" "))  # the rest of the fence's line starts a line of its own
        if last < len(text):
            out += "\n"
            if text[last] == "\n":
                last += 1
    return out + _inline(text[last:], color)


def _block(code: str) -> str:
    """A fenced block as indented lines (no newline after the last)."""
    lines = unescape(code).strip("\n").splitlines() or [""]
    return "\n".join(INDENT + line if line.strip() else "" for line in lines)


def _style(text: str, codes: tuple[str, str], color: bool) -> str:
    return f"{codes[0]}{text}{codes[1]}" if color else text


def _inline(text: str, color: bool) -> str:
    text = _QUOTE.sub("│ ", text)

    def replace(match: re.Match[str]) -> str:
        if (code := match.group("code")) is not None:
            return _style(unescape(code), CODE, color)
        if (token := match.group("token")) is not None:
            return _token(token)
        if (bold := match.group("bold")) is not None:
            return _style(_inline(bold, color), BOLD, color)
        if (italic := match.group("italic")) is not None:
            return _style(_inline(italic, color), ITALIC, color)
        return _style(_inline(match.group("strike"), color), STRIKE, color)

    out: list[str] = []
    last = 0
    for match in _INLINE.finditer(text):
        out.append(unescape(text[last : match.start()]))
        out.append(replace(match))
        last = match.end()
    out.append(unescape(text[last:]))
    return "".join(out)


def _token(token: str) -> str:
    """``<url|text>``, ``<@U1>``, ``<#C1|ops>``, ``<!here>``, ``<!subteam^S1>``, ``<!date^…|…>``."""
    target, _, label = token.partition("|")
    label = unescape(label)
    if target.startswith("@"):
        return f"@{label or target[1:]}"
    if target.startswith("#"):
        return f"#{label or target[1:]}"
    if target.startswith("!date^"):
        return _date(target, label)
    if target.startswith("!subteam^"):
        return label if label.startswith("@") else f"@{label or target.removeprefix('!subteam^')}"
    if target.startswith("!"):
        return f"@{label or target[1:]}"
    url = unescape(target)
    if not label or label in (url, url.removeprefix("mailto:")):
        return url.removeprefix("mailto:")
    return f"{label} ({url})"


def _date(target: str, fallback: str) -> str:
    """``<!date^1796177776^{date_num} {time}|…>`` in local time; the fallback when it cannot be read."""
    fields = target.split("^")
    try:
        at = datetime.fromtimestamp(int(fields[1])).astimezone()
    except (IndexError, ValueError, OverflowError, OSError):
        return fallback
    shown = fields[2] if len(fields) > 2 else "{date_num} {time}"
    for part, fmt in _DATE_PARTS.items():
        shown = shown.replace(part, at.strftime(fmt))
    return fallback if re.search(r"\{[a-z_]+\}", shown) else shown
