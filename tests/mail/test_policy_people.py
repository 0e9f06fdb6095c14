"""``[mail] people`` in the policy: each person's id and mail address, checked at start-up."""

from __future__ import annotations

from pathlib import Path

import pytest

import cli.platforms  # noqa: F401 - registers the platforms whose ids a policy names
from agent.config import load_config
from agent.errors import PolicyError


def test_mail_people_maps_a_user_id_to_an_address(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, '[mail]\npeople = { U0ALICE = "alice@example.com" }\n'), {})

    assert config.mail.address_of("U0ALICE") == "alice@example.com"
    assert config.mail.address_of("U0BOB") is None


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[mail]\npeople = { U0ALICE = "alice" }\n', "'alice' is not a mail address"),
        ('[mail]\npeople = { alice = "alice@example.com" }\n', 'mail.people: "alice" is not a user id'),
        ('[mail]\nfolks = { U0ALICE = "alice@example.com" }\n', "folks"),
    ],
)
def test_mail_people_with_a_bad_entry_is_refused_naming_it(tmp_path: Path, toml: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        load_config(_write(tmp_path, toml), {})


def _write(tmp_path: Path, toml: str) -> Path:
    file = tmp_path / "tandem.toml"
    file.write_text(toml)
    return file
