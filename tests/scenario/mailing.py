"""Helpers for mail on the real ``tandem serve`` app: a local SMTP server (the one ``tandem dev`` runs), the
bot's mail settings pointed at it, and the link a mail carries."""

from __future__ import annotations

import re
from email.message import EmailMessage
from pathlib import Path

from mail.dev import Mailbox
from tests.scenario.harness import policy_file

PUBLIC = "https://tandem.example.com"
SECRET = "mail-secret-for-tests-0123456789abcdef"
FROM = "Tandem <no-reply@tandem.example.com>"
ONCALL = "oncall@example.com"
PEOPLE = '[mail]\npeople = { U0ALICE = "alice@example.com", U0BOB = "bob@example.com" }\n'


def mail_settings(box: Mailbox, tmp_path: Path, policy: str = PEOPLE) -> dict[str, str]:
    """The bot's settings: mail through ``box``, links under :data:`PUBLIC`, and a policy with addresses."""
    return {
        "smtp_url": box.url,
        "mail_from": FROM,
        "mail_secret": SECRET,
        "public_url": PUBLIC,
        "config": policy_file(tmp_path, policy),
    }


def text_of(mail: EmailMessage) -> str:
    """The plain text part, its lines ended as Python writes them (SMTP carries them as CRLF)."""
    part = mail.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")


def html_of(mail: EmailMessage) -> str:
    part = mail.get_body(preferencelist=("html",))
    assert part is not None
    return str(part.get_content())


def link_path(mail: EmailMessage) -> str:
    """The path of the mail's link on the server (the mail names it under :data:`PUBLIC`)."""
    found = re.search(re.escape(PUBLIC) + r"(/mail/open/\S+)", text_of(mail))
    assert found is not None, text_of(mail)
    return found.group(1)
