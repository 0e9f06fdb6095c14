"""Running the bot: HTTP mode (aiohttp, ``/slack/events`` + ``/healthz``) and Socket Mode."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp
from aiohttp import web

import inbox_web
from agent import inbox
from agent.asking import Asking
from agent.delivery import DeliveryWorker
from agent.errors import ConfigError
from agent.logs import ctx
from agent.models import WEBHOOK
from agent.ports import TokensStore
from agent.runtime import Runtime
from agent.runtime.collector import collecting
from agent.runtime.home import AllCalm, RuntimeLoop, forwarded
from agent.settings import DEMO_TOOLS, CoreSettings
from api import a2a, mcp_http
from api import handoffs as api
from api.webhooks import WebhookSender
from bot.app import EdgeApp, build_app, build_client, run_socket_mode
from bot.channel import CHANNEL, SlackChannel
from bot.directory import Directory
from bot.handlers import Deps
from bot.inbox import SOURCE as SLACK_SOURCE
from bot.settings import SlackSettings
from bot.tasks import Background
from cli.wiring import Services, open_services, open_store
from mail.service import Mailing, mailing
from mail.web import mount as mount_mail

if TYPE_CHECKING:  # Feishu is an optional extra: imported only when its settings are given
    from feishu.deps import FeishuDeps
    from feishu.longconn import LongConnection
    from feishu.settings import FeishuSettings

log = logging.getLogger("tandem.bot")
S = TypeVar("S", bound=CoreSettings)


@dataclass
class Bot:
    app: EdgeApp
    deps: Deps
    url: str = ""
    feishu: FeishuDeps | None = None
    webhooks: DeliveryWorker | None = None  # decided handoffs' signed POSTs (api.webhooks)
    mail: Mailing | None = None  # reminders, escalations and email: handoffs by mail (mail.service)
    door: TokensStore | None = None  # API tokens checked on this loop's own connection (None: deps.store)


@dataclass
class FeishuBot:
    """Feishu alone (no Slack settings): the same server, ``/feishu/events`` and ``/healthz``."""

    deps: FeishuDeps
    background: Background
    url: str = ""
    connection: LongConnection | None = None
    mail: Mailing | None = None


@dataclass
class _Core:
    """What runs on the runtime's own loop: the services, and the Slack channel delivering the outbox."""

    services: Services
    channel: SlackChannel
    delivery: DeliveryWorker
    webhooks: DeliveryWorker
    mail: Mailing


@asynccontextmanager
async def _core(settings: SlackSettings) -> AsyncIterator[_Core]:
    """Entered on the runtime's loop: what it opens (the store, an HTTP session) belongs to that loop;
    a SQLite store is called on that loop's thread (nothing else reaches it but through the loop)."""
    async with (
        aiohttp.ClientSession() as session,
        open_services(settings, inline=True) as services,
        mailing(settings, services.runtime, poll=settings.delivery_poll, lease=settings.delivery_lease) as mail,
    ):
        config = services.runtime.config
        channel = SlackChannel(
            build_client(settings, session), services.store, card_interval=settings.card_update_interval, config=config
        )
        # What transitions write to the outbox goes out from here, after their commit, never under a run lock.
        delivery = DeliveryWorker(
            services.store,
            CHANNEL,
            channel,
            poll=settings.delivery_poll,
            lease=settings.delivery_lease,
            escalate=config.escalation_channel is not None,
        )
        channel.worker = delivery
        services.runtime.observers.append(channel)
        # Decided handoffs' webhooks: a worker of their own, so a slow receiver never holds up a chat message.
        signer = WebhookSender(services.store, session)
        webhooks = DeliveryWorker(
            services.store, WEBHOOK, signer, poll=settings.delivery_poll, lease=settings.delivery_lease
        )
        signer.worker = webhooks
        services.runtime.observers.append(signer)
        loop = asyncio.get_running_loop()
        workers = [loop.create_task(delivery.run(), name="delivery"), loop.create_task(webhooks.run(), name="webhooks")]
        try:
            yield _Core(services, channel, delivery, webhooks, mail)
        finally:
            for worker in workers:
                worker.cancel()
                with suppress(asyncio.CancelledError):
                    await worker
            if services.store.is_open:
                with suppress(TimeoutError):  # what is left stays in the outbox for the next start
                    async with asyncio.timeout(5.0):
                        await delivery.idle()


@asynccontextmanager
async def bot_services(
    settings: SlackSettings, feishu: FeishuSettings | None = None, *, feishu_webhook: bool = True
) -> AsyncIterator[Bot]:
    """The bot's services. Runtime work (transitions, tools, model calls, deliveries) runs on a loop of its
    own (:class:`~agent.runtime.home.RuntimeLoop`), so this loop, the one Bolt acks on, stays free."""
    background = Background()
    async with (
        RuntimeLoop.running() as home,
        home.context(_core(settings)) as core,
        aiohttp.ClientSession() as session,
        AsyncExitStack() as extra,
    ):
        runtime = core.services.runtime
        runtime.home = core.delivery.home = core.webhooks.home = core.mail.worker.home = home
        store = forwarded(home, core.services.store)  # the store as this loop reaches it
        # Requests are kept before their ack through a connection of this loop's own: a tool that holds the
        # runtime's loop never holds up an ack (agent.inbox).
        kept = await extra.enter_async_context(open_store(settings.db))
        client = build_client(settings, session)
        directory = Directory(client, runtime.config)
        deps = Deps(
            runtime=runtime,
            store=store,
            channel=core.channel,
            directory=directory,
            delivery=core.delivery,
            background=background,
            inbox_store=kept,
        )
        runtime.acks = deps.acks  # its work yields to requests being answered
        core.delivery.acks = AllCalm((deps.acks, deps.api_acks))  # the outbox's sends yield to API calls too
        app = build_app(settings, deps, client)
        bot = Bot(app=app, deps=deps, webhooks=core.webhooks, mail=core.mail, door=kept)
        assert app.inbox is not None
        replayers = {SLACK_SOURCE: app.inbox.replayer(app)}
        if feishu is not None:
            from feishu.dispatch import replayer
            from feishu.inbox import SOURCE as FEISHU_SOURCE
            from feishu.service import feishu_services

            bot.feishu = await extra.enter_async_context(
                feishu_services(feishu, runtime, store, background, webhook=feishu_webhook, inbox_store=kept)
            )
            replayers[FEISHU_SOURCE] = replayer(bot.feishu)
        # Clicks, forms and replies acked by a process that died before it was done are replayed (agent.inbox).
        replaying = inbox.recovering(
            store, replayers, deps.clock, background, poll=settings.inbox_poll, lease=settings.inbox_lease
        )
        background.spawn(replaying, name="inbox", service=True)
        # Runs whose process died mid-step resume (risky steps ask a person first), and
        # deadlines that passed while the bot was down are handled now, then periodically.
        background.spawn(scheduler(runtime, settings.scheduler_interval, background), name="scheduler", service=True)
        # Start-up objects live as long as the process: keep them out of full GC passes,
        # which otherwise pause every ack for tens of milliseconds; and make those passes at calm moments.
        gc.collect()
        gc.freeze()
        background.spawn(collecting(deps.acks), name="garbage collection", service=True)
        try:
            yield bot
        finally:
            await background.drain()
            gc.unfreeze()


async def scheduler(runtime: Runtime, interval: float, background: Background) -> None:
    """Reminders and deadlines, and work whose process died (its lease ran out): checked at start-up,
    then every ``interval`` seconds (until cancelled). A recovered run drives in the background, so a
    long step it resumes never delays the next deadline."""
    recovering: asyncio.Task[Any] | None = None
    while True:
        try:
            await runtime.tick()
            if recovering is None or recovering.done():
                recovering = background.spawn(runtime.recover_all(), name="recover")
        except Exception:
            log.exception("scheduler tick failed; trying again in %s s", interval)
        await asyncio.sleep(interval)


async def feishu_replaying(settings: FeishuSettings, deps: FeishuDeps, background: Background) -> None:
    """Feishu callbacks and messages acked by a process that died before it was done, replayed (agent.inbox)."""
    from feishu.dispatch import replayer
    from feishu.inbox import SOURCE

    replayers = {SOURCE: replayer(deps)}
    await inbox.recovering(
        deps.store, replayers, deps.clock, background, poll=settings.inbox_poll, lease=settings.inbox_lease
    )


def web_app(bot: Bot) -> web.Application:
    # Tandem's app (bot.edge.EdgeApp) checks the signature and reads the body before Bolt does.
    application = bot.app.web_app(path="/slack/events")

    async def healthz(request: web.Request) -> web.Response:
        try:
            await bot.deps.store.ping()
        except Exception as exc:
            return web.json_response({"ok": False, "error": f"database unreachable: {exc}"}, status=503)
        return web.json_response({"ok": True})

    application.router.add_get("/healthz", healthz)
    unserved = {"unserved": bot.mail.unserved} if bot.mail is not None else {}
    asking = Asking(bot.deps.store, bot.deps.runtime, bot.deps.usecases, tokens=bot.door, **unserved)
    api.mount(application, asking, bot.deps.api_acks)
    mount_mail(application, bot.mail.links if bot.mail is not None else None)
    a2a.mount(application, bot.deps.store, bot.deps.runtime, bot.deps.usecases)
    inbox_web.mount(application, bot)
    mcp_http.mount(application, application[api.ASKING])
    if bot.feishu is not None:
        from feishu.webhook import mount

        mount(application, bot.feishu)
    return application


@asynccontextmanager
async def serving(
    settings: SlackSettings, host: str = "127.0.0.1", port: int = 3000, *, feishu: FeishuSettings | None = None
) -> AsyncIterator[Bot]:
    """The bot in HTTP mode (with Feishu beside Slack when given); ``port=0`` picks a free port (see ``Bot.url``)."""
    settings.require("bot_token", "signing_secret")
    async with bot_services(settings, feishu) as bot:
        async with _listening(web_app(bot), host, port) as url:
            bot.url = url
            yield bot


@asynccontextmanager
async def _feishu_alone(settings: FeishuSettings, *, webhook: bool) -> AsyncIterator[FeishuBot]:
    """The runtime, the scheduler and the Feishu channel, without Slack (for either connection mode). As beside
    Slack, the runtime works on a loop of its own, and a SQLite store is called on that loop's thread."""
    from feishu.service import feishu_services

    settings.require(webhook=webhook)
    background = Background()
    poll, lease = settings.delivery_poll, settings.delivery_lease
    async with (
        RuntimeLoop.running() as home,
        home.context(open_services(settings, inline=True)) as services,
        home.context(mailing(settings, services.runtime, poll=poll, lease=lease)) as mail,
    ):
        runtime = services.runtime
        runtime.home = mail.worker.home = home
        store = forwarded(home, services.store)  # the store as this loop reaches it
        try:
            # requests are kept before their ack through this loop's own connection, as beside Slack
            async with (
                open_store(settings.db) as kept,
                feishu_services(settings, runtime, store, background, webhook=webhook, inbox_store=kept) as deps,
            ):
                background.spawn(
                    scheduler(runtime, settings.scheduler_interval, background), name="scheduler", service=True
                )
                background.spawn(feishu_replaying(settings, deps, background), name="inbox", service=True)
                yield FeishuBot(deps=deps, background=background, mail=mail)
        finally:
            await background.drain()


@asynccontextmanager
async def feishu_serving(
    settings: FeishuSettings, host: str = "127.0.0.1", port: int = 3000
) -> AsyncIterator[FeishuBot]:
    """Feishu alone in HTTP mode: the runtime, the scheduler, the Feishu channel and ``/feishu/events``."""
    from feishu.webhook import mount

    async with _feishu_alone(settings, webhook=True) as bot:
        application = web.Application()
        mount(application, bot.deps)
        mount_mail(application, bot.mail.links if bot.mail is not None else None)
        deps = bot.deps

        async def healthz(request: web.Request) -> web.Response:
            try:
                await deps.store.ping()
            except Exception as exc:
                return web.json_response({"ok": False, "error": f"database unreachable: {exc}"}, status=503)
            return web.json_response({"ok": True})

        application.router.add_get("/healthz", healthz)
        async with _listening(application, host, port) as url:
            bot.url = url
            yield bot


@asynccontextmanager
async def feishu_connected(settings: FeishuSettings) -> AsyncIterator[FeishuBot]:
    """Feishu alone over the long connection (``tandem feishu-ws``): no HTTP server, no public URL."""
    from feishu.longconn import long_connection

    async with _feishu_alone(settings, webhook=False) as bot, long_connection(bot.deps) as connection:
        bot.connection = connection
        yield bot


@asynccontextmanager
async def _listening(application: web.Application, host: str, port: int) -> AsyncIterator[str]:
    runner = web.AppRunner(application)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    try:
        yield f"http://{host}:{bound}"
    finally:
        await runner.cleanup()


DEMO_NOTICE = "Demo toolset: a simulated ops world; nothing real is restarted or deployed."


def choose_tools(settings: S, *, demo: bool) -> S:
    """The bot's toolset: the modules in ``TANDEM_TOOLS``, or the demo only when asked for with ``--demo``.

    Without either, the bot would run the demo's simulated tools in a real channel and
    report their pretend successes, so it does not start.
    """
    if settings.tools is None:
        if not demo:
            raise ConfigError(
                "TANDEM_TOOLS is not set, so the bot has no real tools. Set TANDEM_TOOLS to your tool modules "
                "(comma-separated, e.g. TANDEM_TOOLS=mycompany.ops_tools), or pass --demo to run on the demo "
                "toolset, a simulated ops world in which nothing real happens."
            )
        return settings.model_copy(update={"tools": DEMO_TOOLS})
    if demo and settings.tool_modules != [DEMO_TOOLS]:
        raise ConfigError(
            f"--demo runs the demo toolset, but TANDEM_TOOLS={settings.tools} is set: unset TANDEM_TOOLS "
            "to run the demo, or drop --demo to run those tools."
        )
    return settings


def _started(settings: CoreSettings, what: str, **context: object) -> None:
    """The start-up log line: what is served, with which tools as context; for the demo, a warning after a notice."""
    tools = ",".join(settings.tool_modules)
    if settings.demo:
        print(DEMO_NOTICE, flush=True)
        log.warning("%s on the demo toolset (simulated; nothing real happens)", what, extra=ctx(tools=tools, **context))
    else:
        log.info("%s", what, extra=ctx(tools=tools, **context))


async def serve_forever(
    settings: SlackSettings, host: str, port: int, *, demo: bool = False, feishu: FeishuSettings | None = None
) -> None:
    """Serve Slack, Feishu, or both on one HTTP server, after whichever settings are given."""
    if feishu is not None:
        feishu.require()
        try:
            import cryptography  # noqa: F401 - decrypts the webhook's bodies (a dependency)
        except ImportError:
            raise ConfigError("Feishu needs the 'cryptography' package: pip install -e .") from None
    if feishu is not None and not (settings.bot_token or settings.signing_secret):
        feishu = choose_tools(feishu, demo=demo)
        async with feishu_serving(feishu, host, port) as alone:
            print(f"Tandem is listening on {alone.url}/feishu/events (health: {alone.url}/healthz)", flush=True)
            _started(feishu, "serving Feishu over HTTP", mode="http", url=alone.url)
            await asyncio.Event().wait()
        return
    settings.require("bot_token", "signing_secret")  # the secrets are named first, as before the toolset
    settings = choose_tools(settings, demo=demo)
    async with serving(settings, host, port, feishu=feishu) as bot:
        also = f" and {bot.url}/feishu/events" if feishu is not None else ""
        print(f"Tandem is listening on {bot.url}/slack/events{also} (health: {bot.url}/healthz)", flush=True)
        _started(settings, "serving Slack over HTTP" + (" and Feishu" if feishu else ""), mode="http", url=bot.url)
        await asyncio.Event().wait()


def _long_connection_installed() -> None:
    import importlib.util

    if importlib.util.find_spec("lark_oapi") is None:
        raise ConfigError("Feishu's long connection needs the 'feishu' extra: pip install -e '.[feishu]'.")


async def socket_forever(settings: SlackSettings, *, demo: bool = False, feishu: FeishuSettings | None = None) -> None:
    """Slack in Socket Mode; with Feishu settings, Feishu's long connection beside it (neither needs a public URL)."""
    # The Bolt app checks signatures wherever it could be reached over HTTP, so Socket Mode needs the
    # signing secret too: named here at start-up instead of failing later inside Bolt.
    settings.require("bot_token", "signing_secret", "app_token")
    if feishu is not None:
        feishu.require(webhook=False)
        _long_connection_installed()
    settings = choose_tools(settings, demo=demo)
    async with bot_services(settings, feishu, feishu_webhook=False) as bot:
        print("Tandem is connecting to Slack in Socket Mode.", flush=True)
        _started(settings, "connecting to Slack in Socket Mode", mode="socket")
        if bot.feishu is None:
            await run_socket_mode(bot.app, settings.secret("app_token"))
            return
        from feishu.longconn import long_connection

        async with long_connection(bot.feishu) as connection:
            print("Tandem is connecting to Feishu over the long connection.", flush=True)
            both = {
                asyncio.create_task(run_socket_mode(bot.app, settings.secret("app_token"))),
                asyncio.create_task(connection.ended()),
            }
            done, pending = await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:  # either one ending (the long connection failing) ends both
                task.cancel()
                with suppress(asyncio.CancelledError):
                    await task
            for task in done:
                task.result()


async def feishu_ws_forever(settings: FeishuSettings, *, demo: bool = False) -> None:
    """Feishu alone over the long connection: needs only the app id and secret, and no public URL."""
    settings.require(webhook=False)
    _long_connection_installed()
    settings = choose_tools(settings, demo=demo)
    async with feishu_connected(settings) as bot:
        print("Tandem is connecting to Feishu over the long connection.", flush=True)
        _started(settings, "connecting to Feishu over the long connection", mode="feishu-ws")
        assert bot.connection is not None
        await bot.connection.ended()
