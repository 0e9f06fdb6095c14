"""``tandem mcp`` refuses to start without knowing who the client is, or without the bot's database."""

from __future__ import annotations

from pathlib import Path

from tests.cli.run import tandem_in


def test_mcp_without_a_name_exits_2_saying_how_to_give_one(tmp_path: Path) -> None:
    proc = tandem_in(tmp_path, "mcp")

    assert proc.returncode == 2
    assert "--as NAME or TANDEM_MCP_NAME" in proc.stderr and proc.stdout == ""


def test_mcp_with_no_database_exits_1_and_creates_none(tmp_path: Path) -> None:
    proc = tandem_in(tmp_path, "mcp", "--as", "coder")

    assert proc.returncode == 1 and "no database at" in proc.stderr
    assert not (tmp_path / "tandem.db").exists()


def test_mcp_with_a_name_that_is_no_name_exits_2(tmp_path: Path) -> None:
    proc = tandem_in(tmp_path, "mcp", "--as", "mcp:coder")

    assert proc.returncode == 2 and "no name for an MCP client" in proc.stderr
