"""The mail's two parts, rendered from a mail view: what is asked, by whom, by when, the choices, the link, and
that a reply decides nothing; the HTML part escapes every piece of text."""

from __future__ import annotations

from email.message import EmailMessage

from mail.render import MailView, html_part, render, subject, text_part

AT = 1_796_400_000.0
VIEW = MailView(
    about="asked",
    what='Roll back <b>checkout</b> to v41? "now"',
    title="A question for you",
    asked_by="ci (software, with an API token)",
    why="asked through the API",
    deadline=AT + 3600,
    choices=("roll back", "keep <v42>"),
    context=(("ticket", "<img src=x onerror=alert(1)>"),),
    note="",
    link="https://tandem.example.com/mail/open/abc.def",
    link_until=AT + 7 * 86400,
)


def test_text_part_says_what_by_whom_deadline_choices_link_and_that_replies_decide_nothing() -> None:
    text = text_part(VIEW)

    assert 'Asked: Roll back <b>checkout</b> to v41? "now"' in text
    assert "Asked by: ci (software, with an API token)\nWhy: asked through the API" in text
    assert "Deadline: Fri 04 Dec 2026, 17:00 UTC" in text
    assert "Choices: roll back · keep <v42>" in text
    assert "ticket: <img src=x onerror=alert(1)>" in text
    assert "https://tandem.example.com/mail/open/abc.def" in text
    assert "Replying to this mail does not answer it" in text


def test_html_part_escapes_the_requester_text_and_keeps_the_link() -> None:
    html = html_part(VIEW)

    assert "<b>checkout</b>" not in html and "&lt;b&gt;checkout&lt;/b&gt;" in html
    assert "<img" not in html and "keep &lt;v42&gt;" in html
    assert 'href="https://tandem.example.com/mail/open/abc.def"' in html
    assert "does not answer it" in html


def test_subject_of_a_long_prompt_is_cut_to_one_line() -> None:
    long = MailView(**{**VIEW.__dict__, "what": "Restart\nevery " + "service " * 40, "about": "remind"})

    assert subject(long).startswith("Reminder: Restart every service")
    assert len(subject(long)) < 110 and "\n" not in subject(long)


def test_render_gives_a_plain_and_an_html_part_with_a_stable_message_id() -> None:
    mail = render(VIEW, "Tandem <no-reply@example.com>", ["oncall@example.com"], "<tandem.r.1@example.com>", AT)

    assert isinstance(mail, EmailMessage)
    assert mail.get_body(preferencelist=("plain",)) is not None
    assert mail.get_body(preferencelist=("html",)) is not None
    assert (mail["Message-ID"], mail["To"], mail["Auto-Submitted"]) == (
        "<tandem.r.1@example.com>",
        "oncall@example.com",
        "auto-generated",
    )
