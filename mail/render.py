"""A mail rendered from the neutral review view: a plain text part and a simple HTML part.

Pure: no I/O. What is asked, by whom, by when and the choices come in the requester's own words; every
piece of text is escaped in the HTML part (a prompt may hold markup meant to trick a reader).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from html import escape

from agent.models import Review, RunState, render_mentions
from agent.policy import SafetyPolicy
from agent.review_view import review_view
from mail import messages as m
from mail.messages import About

SUBJECT_WIDTH = 90


@dataclass(frozen=True)
class MailView:
    about: About
    what: str
    """What is asked: the handoff's prompt, or the run's task, as the requester wrote it."""
    title: str
    asked_by: str
    why: str
    deadline: float | None
    choices: tuple[str, ...]
    context: tuple[tuple[str, str], ...]
    note: str
    link: str
    link_until: float


def mail_view(
    state: RunState, review: Review, safety: SafetyPolicy, about: About, note: str, link: str, link_until: float
) -> MailView:
    """The view of the mail about ``review`` (``note``: the reminder's own line, if any)."""
    view = review_view(state, review, safety)
    handoff = view.handoff
    if handoff is not None:
        what, reason = handoff.prompt, handoff.reason
        if handoff.input_type == "choice":
            choices = tuple(handoff.options)
        else:
            choices = (m.INPUT_LABELS.get(handoff.input_type, handoff.input_type),)
        context = tuple((str(k), v if isinstance(v, str) else json.dumps(v)) for k, v in handoff.context.items())
    else:
        what, reason = state.task, ""
        choices = tuple(m.CHOICE_LABELS.get(c, c) for c in view.choices)
        context = ((view.title, view.note),) if view.note else ()
    return MailView(
        about=about,
        what=what,
        title=view.title,
        asked_by=m.asked_by(state.requester),
        why=reason,
        deadline=view.deadline,
        choices=choices,
        context=context,
        note=render_mentions(note, lambda p: p.id),
        link=link,
        link_until=link_until,
    )


def _when(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%a %d %b %Y, %H:%M UTC")


def _lines(view: MailView) -> list[tuple[str, str]]:
    """The mail's facts as (label, value), the same in both parts."""
    rows = [("Asked", view.what), ("Asked by", view.asked_by)] + ([("Why", view.why)] if view.why else [])
    rows.append(("Deadline", _when(view.deadline) if view.deadline is not None else "none set"))
    rows.append(("Choices", " · ".join(view.choices) if view.choices else "—"))
    rows += list(view.context)
    return rows


def subject(view: MailView) -> str:
    what = " ".join(view.what.split())
    if len(what) > SUBJECT_WIDTH:
        what = what[: SUBJECT_WIDTH - 1].rstrip() + "…"
    return m.SUBJECTS[view.about].format(what=what)


def text_part(view: MailView) -> str:
    out = [m.OPENERS[view.about]]
    if view.note:
        out.append(view.note)
    out.append("")
    out += [f"{label}: {value}" for label, value in _lines(view)]
    out += ["", m.OPEN_LINK, view.link, m.LINK_LASTS.format(until=_when(view.link_until)), "", m.NOT_BY_REPLY]
    return "\n".join(out) + "\n"


def html_part(view: MailView) -> str:
    rows = "".join(
        f'<tr><th align="left" valign="top" style="padding:4px 12px 4px 0">{escape(label)}</th>'
        f'<td style="padding:4px 0;white-space:pre-wrap">{escape(value)}</td></tr>'
        for label, value in _lines(view)
    )
    note = f"<p>{escape(view.note)}</p>" if view.note else ""
    link = escape(view.link, quote=True)
    return (
        '<!doctype html><html><body style="font-family:sans-serif">'
        f"<p><strong>{escape(m.OPENERS[view.about])}</strong></p>{note}"
        f"<table>{rows}</table>"
        f'<p>{escape(m.OPEN_LINK)}<br><a href="{link}">{escape(view.title)}</a></p>'
        f"<p><small>{escape(m.LINK_LASTS.format(until=_when(view.link_until)))}</small></p>"
        f"<p><small>{escape(m.NOT_BY_REPLY)}</small></p>"
        "</body></html>"
    )


def render(view: MailView, sender: str, to: list[str], message_id: str, at: float) -> EmailMessage:
    """The mail to send: ``message_id`` stays the same on every try, so a mail sent twice reads as one."""
    mail = EmailMessage()
    mail["Subject"] = subject(view)
    mail["From"] = sender
    mail["To"] = ", ".join(to)
    mail["Date"] = format_datetime(datetime.fromtimestamp(at, UTC))
    mail["Message-ID"] = message_id
    mail["Auto-Submitted"] = "auto-generated"
    mail.set_content(text_part(view))
    mail.add_alternative(html_part(view), subtype="html")
    return mail
