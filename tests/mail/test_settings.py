"""Mail's settings: the SMTP URL's forms, and what mail refuses to start without."""

from __future__ import annotations

import pytest

from agent.errors import ConfigError
from agent.settings import CoreSettings
from mail.service import outgoing_of
from mail.smtp import Smtp


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("smtp://user:p%40ss@mail.example.com:587?starttls=1", ("mail.example.com", 587, "user", "p@ss", False, True)),
        ("smtps://user:pass@mail.example.com", ("mail.example.com", 465, "user", "pass", True, False)),
        ("smtp://relay.internal", ("relay.internal", 25, None, None, False, False)),
    ],
)
def test_smtp_url_forms_parse_to_host_port_login_and_tls(url: str, expected: tuple[object, ...]) -> None:
    smtp = Smtp.parse(url)

    assert (smtp.host, smtp.port, smtp.username, smtp.password, smtp.use_tls, smtp.start_tls) == expected


@pytest.mark.parametrize("url", ["http://mail.example.com", "mail.example.com:25", "smtp://:25"])
def test_smtp_url_of_another_form_is_refused_with_an_example(url: str) -> None:
    with pytest.raises(ConfigError, match="smtp://user:pass@host:587"):
        Smtp.parse(url)


def test_smtp_url_without_from_secret_or_public_url_is_refused_naming_them() -> None:
    settings = CoreSettings(smtp_url="smtp://relay.internal")

    with pytest.raises(ConfigError, match="TANDEM_MAIL_FROM, TANDEM_MAIL_SECRET, TANDEM_PUBLIC_URL"):
        outgoing_of(settings)


def test_no_smtp_url_sends_no_mail_but_a_secret_still_checks_links() -> None:
    outgoing, links = outgoing_of(CoreSettings(mail_secret="s3cret"))

    assert outgoing is None
    assert links is not None and links.open(links.token("rev_1")).__class__.__name__ == "Opened"
