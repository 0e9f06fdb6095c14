"""The page's command menu offers every /tandem subcommand the bot handles."""

from __future__ import annotations

import re
from pathlib import Path

from bot.commands import COMMAND, SUBCOMMANDS

COMPOSER = Path(__file__).resolve().parents[2] / "workspace" / "static" / "composer.js"


def test_command_menu_lists_every_subcommand_the_bot_handles() -> None:
    offered = set(re.findall(rf'insert: "{re.escape(COMMAND)} (\w+)', COMPOSER.read_text()))
    assert offered == set(SUBCOMMANDS)
