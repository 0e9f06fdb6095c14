"""``tandem dev``: the whole bot in a browser, with no Slack account and no LLM key.

The local workspace (:mod:`workspace`) plays Slack: it serves the Web API and a
Slack-like page, and turns what people do on the page into signed requests.
The real bot runs in HTTP mode beside it, on the offline model and the demo
toolset. The two are pointed at each other; nothing is read from ``SLACK_*`` or
``TANDEM_*`` variables, so a shell set up for real Slack cannot leak in (only
``TANDEM_LOG_LEVEL`` and ``TANDEM_LOG_FORMAT``, which shape the log lines, count).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from functools import partial
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

import inbox_web
from bot.settings import SlackSettings
from cli.policy import checked_policy
from cli.serve import Bot, serving
from mail import dev as mail
from workspace import Workspace, WorkspaceState, run_workspace
from workspace.persist import keep, restore

if TYPE_CHECKING:
    from feishu.settings import FeishuSettings
    from workspace.feishu_fake import FeishuFake

T = TypeVar("T")

DEMO_TOOLS = "demo.tools"
CARD_INTERVAL = 0.25
"""Seconds between run card edits: quick enough to watch a run move."""


class ArgumentsOnly:
    """Settings from arguments only: the environment and ``.env`` files are not read (mix in before the settings)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


class DevSettings(ArgumentsOnly, SlackSettings):
    """Slack settings from arguments only."""


def dev_settings(ws: Workspace, db: str | Path, **extra: Any) -> SlackSettings:
    """The bot's settings for talking to ``ws``: its token, signing secret and Web API URL."""
    values: dict[str, Any] = {
        "bot_token": ws.bot_token,
        "signing_secret": ws.signing_secret,
        "api_url": ws.api_url,
        "db": str(db),
        "model": "offline",
        "tools": DEMO_TOOLS,
        "card_update_interval": CARD_INTERVAL,
    }
    return DevSettings(**{**values, **extra})


def feishu_installed() -> bool:
    """Whether the webhook's cryptography is there (a dependency; without it ``tandem dev`` shows the Slack
    view alone)."""
    return importlib.util.find_spec("cryptography") is not None


def dev_feishu_settings(fake: FeishuFake) -> FeishuSettings:
    """The Feishu channel's settings for talking to ``fake``: from arguments only, like :class:`DevSettings`."""
    from feishu.settings import FeishuSettings
    from workspace.feishu_fake import APP_ID, APP_SECRET

    class DevFeishuSettings(ArgumentsOnly, FeishuSettings):
        pass

    return DevFeishuSettings(
        app_id=APP_ID,
        app_secret=APP_SECRET,
        verification_token=fake.verification_token,
        encrypt_key=fake.encrypt_key,
        api_url=fake.api_url,
        card_update_interval=CARD_INTERVAL,
    )


@dataclass
class Dev:
    ws: Workspace
    bot: Bot
    feishu: FeishuFake | None = None
    """The local Feishu with its chat page (when the ``feishu`` extra is installed)."""

    @property
    def url(self) -> str:
        """The page (and the workspace's Web API under ``/api/``)."""
        return self.ws.base_url

    @property
    def feishu_url(self) -> str:
        """The Feishu-style chat page, or "" without one."""
        return self.feishu.api_url if self.feishu is not None else ""


@asynccontextmanager
async def developing(
    host: str = "127.0.0.1", port: int = 3000, db: str | Path = "./tandem.db", **extra: Any
) -> AsyncIterator[Dev]:
    """The workspace with its page on ``host:port`` (0 picks a free port) and the bot on a free local port.

    The workspace's messages are kept beside an existing ``db`` (see :func:`workspace_file`),
    so run cards and threads are still there after a restart. ``extra`` goes into the bot's
    settings (tests use it, e.g. for a faster card).
    """
    state = WorkspaceState()
    saved = await asyncio.to_thread(_saved_workspace, Path(db))
    if saved is not None:
        restore(state, saved)
    async with AsyncExitStack() as stack:
        box = await stack.enter_async_context(mail.local_smtp(mail.Mailbox())) if mail.installed() else None
        pages = [partial(mail.add_page, box=box)] if box is not None else []
        page = run_workspace(host=host, port=port, ui=True, state=state, pages=pages)
        ws = await _listening(stack, page, "the page", host, port)
        fake: FeishuFake | None = None
        feishu: FeishuSettings | None = None
        if feishu_installed():
            from workspace.feishu_fake import run_feishu
            from workspace.feishu_page import add_page

            chat = port + 1 if port else 0
            fake = await _listening(
                stack, run_feishu(host=host, port=chat, page=add_page), "the Feishu view", host, chat
            )
            feishu = dev_feishu_settings(fake)
        keeping: list[asyncio.Task[None]] = []
        stack.push_async_callback(_stop_keeping, keeping)  # after the bot has stopped: what it said last is kept
        stack.enter_context(inbox_web.switching(lambda: {u.id: u.name for u in state.users.values() if not u.is_bot}))
        mailing = mail.dev_settings(box) if box is not None else {}
        bot = await stack.enter_async_context(
            serving(dev_settings(ws, db, **{**mailing, **extra}), "127.0.0.1", 0, feishu=feishu)
        )
        if bot.mail is not None:
            bot.mail.base = bot.url  # the links in mail open on the bot
        ws.events_url = f"{bot.url}/slack/events"
        if fake is not None:
            fake.events_url = f"{bot.url}/feishu/events"
            state.elsewhere["feishu"] = fake.api_url
        state.elsewhere["inbox"] = f"{bot.url}{inbox_web.PREFIX}"
        # kept only once everything is up: a start that fails leaves no file behind
        keeping.append(asyncio.create_task(keep(state, workspace_file(db)), name="workspace:keep"))
        yield Dev(ws=ws, bot=bot, feishu=fake)


async def _stop_keeping(keeping: list[asyncio.Task[None]]) -> None:
    for keeper in keeping:
        keeper.cancel()
        with suppress(asyncio.CancelledError):
            await keeper


class PortBusy(Exception):
    """A port ``tandem dev`` needs could not be listened on: which part, where, and why."""

    def __init__(self, part: str, host: str, port: int, error: OSError) -> None:
        super().__init__(f"could not start {part} on {host}:{port}: {error.strerror or error}")
        self.port = port


async def _listening(
    stack: AsyncExitStack, server: AbstractAsyncContextManager[T], part: str, host: str, port: int
) -> T:
    """``server`` entered on ``stack``; a port it cannot listen on is a :class:`PortBusy` naming ``part``."""
    try:
        return await stack.enter_async_context(server)
    except OSError as exc:
        raise PortBusy(part, host, port, exc) from exc


def _saved_workspace(db: Path) -> str | None:
    """The messages kept beside ``db``; none for a fresh database, which starts a fresh workspace."""
    saved = workspace_file(db)
    return saved.read_text() if db.exists() and saved.exists() else None


def workspace_file(db: str | Path) -> Path:
    """Where the workspace's messages are kept: beside the database, ``tandem.db.workspace.json``."""
    path = Path(db)
    return path.with_name(path.name + ".workspace.json")


async def dev_forever(host: str, port: int, db: str, *, policy_name: str = "no policy", **extra: Any) -> None:
    """Serve until SIGTERM (or Ctrl-C, which ``asyncio.run`` turns into cancelling this)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    async with developing(host, port, db, **extra) as dev:
        print(f"Tandem is running in a local workspace: open {dev.url}", flush=True)
        if dev.feishu_url:
            print(f"  the same bot in a Feishu-style chat: {dev.feishu_url}", flush=True)
        print(f"  bot {dev.bot.url}/slack/events · database {db} · offline model · demo tools", flush=True)
        print(f"  {policy_name}", flush=True)
        if dev.bot.mail is not None and dev.bot.mail.links is not None:
            print(f"  mail Tandem sends (to a local SMTP server): {dev.url}{mail.PAGE}", flush=True)
        print("  Act as alice, bob or carol; try /tandem restart payments and check errors after. Ctrl-C stops.")
        await stop.wait()


DEMO_POLICY = str(resources.files("demo") / "policy.toml")
"""The policy ``tandem dev`` starts with when given none: bob approves exec and deploy steps."""


def policy_for(config: str | None) -> tuple[str, str]:
    """The policy file ``tandem dev`` uses, and how the banner names it."""
    if config:
        return config, f"policy {config}"
    if Path("tandem.toml").exists():
        return "tandem.toml", "policy ./tandem.toml (found in this folder)"
    return DEMO_POLICY, "the demo policy: bob approves exec and deploy steps (--config FILE for yours)"


def main(args: argparse.Namespace) -> int:
    """Run until Ctrl-C or SIGTERM; exit 0 after a clean stop.

    The policy is checked before the workspace or the database is touched (the banner names it).
    """
    config, named = policy_for(args.config)
    mine = config != DEMO_POLICY  # the person's own policy is named on stderr like every command's
    checked_policy(args.config if mine else config, announce=mine)
    extra = {"config": config, "policy_name": named}
    try:
        asyncio.run(dev_forever(args.host, args.port, args.db, **extra))
    except KeyboardInterrupt:
        pass
    except PortBusy as exc:
        hint = "free it, or pick other ports with --port N (the page takes N, the Feishu view N+1)"
        print(f"error: {exc}; {hint}. Nothing was started.", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: could not start: {exc}", file=sys.stderr)
        return 1
    print(f"\nStopped. Runs are saved in {args.db}; `tandem dev` picks them up again.", flush=True)
    return 0
