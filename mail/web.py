"""``GET /mail/open/{token}`` on ``tandem serve``: a mailed link, checked, becomes a redirect (303) to the item
in the web inbox, where signing in is still needed to decide; an expired or altered link gets a page saying
what happened and what to do."""

from __future__ import annotations

from html import escape

from aiohttp import web

from mail.links import OPEN, Links, NotOpened, inbox_path
from mail.messages import LINK_PAGES

INBOX = "/inbox"


def mount(application: web.Application, links: Links | None) -> None:
    """Add the link route to ``application`` (``links`` None: mail links are not set up; the route says so)."""

    async def open_link(request: web.Request) -> web.StreamResponse:
        if links is None:
            return _page("off")
        opened = links.open(request.match_info["token"])
        if isinstance(opened, NotOpened):
            return _page(opened.why)
        raise web.HTTPSeeOther(inbox_path(opened.review_id))

    application.router.add_get(OPEN + "{token}", open_link)


def _page(why: str) -> web.Response:
    status, title, body = LINK_PAGES[why]
    text = escape(body.format(inbox=INBOX)).replace(escape(INBOX), f'<a href="{INBOX}">{escape(INBOX)}</a>', 1)
    html = (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{escape(title)}</title></head>'
        f'<body style="font-family:sans-serif;max-width:40em;margin:3em auto"><h1>{escape(title)}</h1>'
        f"<p>{text}</p></body></html>"
    )
    return web.Response(status=status, text=html, content_type="text/html")
