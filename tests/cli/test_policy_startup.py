"""A bad policy stops every command with one line naming the key (exit 2, nothing created); a policy in
force is named on stderr at start-up, so a ``tandem.toml`` in the current folder is never applied silently."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent.settings import CoreSettings
from cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s", "SLACK_APP_TOKEN": "xapp-1"}
NAME_NOT_ID = '[approvers]\nexec = ["bob"]\n'
TASK = "restart payments and check errors after"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    # Run from a bare folder (no tandem.toml of the checkout's); the checkout stays importable.
    return {**env, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", **SECRETS, **extra}


def tandem(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=cwd,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--detach", TASK],
        ["runs"],
        ["show", "abc"],
        ["answer", "abc", "--approve"],
        ["resume", "abc", "--detach"],
        ["tick"],
        ["dev", "--port", "0", "--config", "policy.toml"],
        ["serve", "--port", "0", "--demo"],
        ["socket", "--demo"],
    ],
)
def test_every_command_with_a_name_for_an_approver_exits_2_naming_key_and_entry(
    tmp_path: Path, command: list[str]
) -> None:
    (tmp_path / "policy.toml").write_text(NAME_NOT_ID)

    proc = tandem(tmp_path, *command, TANDEM_CONFIG="policy.toml")

    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith('error: Invalid policy in policy.toml: approvers.exec: "bob" is not a user or group id.')
    assert "Use ids, not names" in line and proc.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy.toml"], "nothing is created"


@pytest.mark.parametrize(
    ("setup", "named"),
    [
        ({"file": "[approvers]\ndeploi = ['U1']\n"}, "approvers.deploi: Input should be"),
        ({"file": "colour = 'blue'\n"}, "colour: unknown key"),
        ({"file": "[approvers\n"}, "is not valid TOML"),
        ({"file": b"\xff\xfe[approvers]\n"}, "it is not UTF-8 text"),
        ({"dir": True}, "Is a directory"),
        ({"env": {"TANDEM_POLICY__": "1"}}, "TANDEM_POLICY__ names no policy key"),
        (
            {"env": {"TANDEM_POLICY__APPROVERS": '["U1"]', "TANDEM_POLICY__APPROVERS__EXEC": "U2"}},
            "TANDEM_POLICY__APPROVERS__EXEC: approvers is already set",
        ),
        ({"env": {"TANDEM_POLICY__APPROVERS__DEPLOY": "U0BOB,@dave"}}, 'approvers.deploy: "@dave" is not a user'),
        ({"file": '[groups]\nops = ["U0BOB"]\n'}, 'groups.ops: "ops" is not a group id'),
        ({"file": '[groups]\nS0OPS = ["dave"]\n'}, 'groups.S0OPS: "dave" is not a user id'),
    ],
)
def test_bad_policy_of_any_kind_is_one_line_and_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    setup: dict[str, object],
    named: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("TANDEM_")]:
        monkeypatch.delenv(name)
    policy = tmp_path / "policy.toml"
    contents = setup.get("file")
    if isinstance(contents, bytes):
        policy.write_bytes(contents)
    elif isinstance(contents, str):
        policy.write_text(contents)
    elif setup.get("dir"):
        policy.mkdir()
    env = setup.get("env")
    for key, value in (env if isinstance(env, dict) else {}).items():
        monkeypatch.setenv(key, value)
    db, config = tmp_path / "t.db", str(policy) if policy.exists() else None

    code = main(["runs"], settings_factory=lambda: CoreSettings(db=str(db), config=config))

    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1 and named in err, err
    assert not db.exists()


def test_run_with_tandem_toml_in_the_folder_says_so_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "tandem.toml").write_text('[approvers]\nexec = ["U0BOB"]\ndeploy = ["S0OPS"]\n')

    proc = tandem(tmp_path, "run", "--detach", TASK)

    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        "Policy from ./tandem.toml (found in the current folder): approvers for exec, deploy"
    )


def test_run_without_a_policy_names_none(tmp_path: Path) -> None:
    proc = tandem(tmp_path, "run", "--detach", TASK)

    assert proc.returncode == 0, proc.stderr
    assert "Policy" not in proc.stderr and "TANDEM_TOOLS is not set" in proc.stderr


async def _first_stderr_line(cwd: Path, *args: str, **env: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cli.main",
        *args,
        cwd=cwd,
        env=_env(TANDEM_LOG_LEVEL="WARNING", **env),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        async with asyncio.timeout(30):
            return (await proc.stderr.readline()).decode().rstrip("\n")
    finally:
        proc.send_signal(signal.SIGKILL)
        await proc.wait()


POLICY = 'escalation_channel = "C0ESC"\n[timeouts.after_plan]\nafter = "1h"\n'
SAID = "no approvers: each run's requester decides; 1 deadline; escalation to C0ESC"


@pytest.mark.parametrize(
    "command",
    [["dev", "--port", "0", "--db", "dev.db"], ["serve", "--port", "0", "--demo"], ["socket", "--demo"]],
)
async def test_bots_name_the_policy_found_in_the_folder(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "tandem.toml").write_text(POLICY)

    line = await _first_stderr_line(tmp_path, *command)

    assert line == f"Policy from ./tandem.toml (found in the current folder): {SAID}"


async def test_serve_names_the_policy_file_and_overrides_it_was_given(tmp_path: Path) -> None:
    policy = tmp_path / "ops-policy.toml"
    policy.write_text(POLICY)

    line = await _first_stderr_line(
        tmp_path, "serve", "--port", "0", "--demo", TANDEM_CONFIG=str(policy), TANDEM_POLICY__APPROVERS__EXEC="U0BOB"
    )

    assert (
        line == f"Policy from {policy} + TANDEM_POLICY__APPROVERS__EXEC: approvers for exec; " + SAID.split("; ", 1)[1]
    )
